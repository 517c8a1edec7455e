/**
 * Conversation references, kept durably: a Teams bot can message a conversation only with the service URL, tenant and
 * conversation it learnt from Teams (the app's installation, or any message to the bot). Each is captured from every
 * inbound activity and kept as one file per conversation under DATA_DIR/teams-conversations/ (0700, files 0600),
 * written atomically (a temporary file renamed over the old one), so a crash never leaves half a reference and two bot
 * processes sharing DATA_DIR never overwrite each other's other conversations. A miss is read from disk again, and a
 * cached reference after a minute, so what another process captured (a new conversation, a new serviceUrl) is found. A personal chat is filed under its conversation id and under the
 * person (their Entra object id), the target that names them. An activity whose token names no service URL cannot
 * move a known reference to another origin (./trust.ts).
 *
 * Why not the gateway: its stores hold question records and credentials, with no place for a platform's own state;
 * a table there would be a change to the three store backends for one platform. References are not secret (the
 * token is what protects the conversation) but they name people and chats, so they get DATA_DIR's privacy.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync, chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { preparePrivateDir } from "../../src/runtime/data-dir.ts";
import { originOf } from "./trust.ts";

/** What the bot needs to message a conversation (the SDK's ConversationReference, the parts Teams uses). */
export interface TeamsReference {
  serviceUrl: string;
  channelId: string;
  conversation: { id: string; conversationType?: string; tenantId?: string; isGroup?: boolean };
  bot: { id: string; name?: string };
  /** The person, in a personal chat. */
  user?: { id: string; name?: string; aadObjectId?: string };
  /** When it was last captured (ms). */
  capturedAtMs: number;
}

export const TEAMS_REFERENCES_DIR = "teams-conversations";
/** A cached reference is read from disk again after this long, for what another bot process captured since. */
const REREAD_AFTER_MS = 60_000;

/** A channel thread's conversation id is the channel's with `;messageid=<root>`: the reference is the channel's. */
export function baseConversationId(conversationId: string): string {
  const at = conversationId.indexOf(";messageid=");
  return at === -1 ? conversationId : conversationId.slice(0, at);
}

/** The thread root a channel conversation id names, if any. */
export function threadRootOf(conversationId: string): string | undefined {
  const at = conversationId.indexOf(";messageid=");
  return at === -1 ? undefined : conversationId.slice(at + ";messageid=".length) || undefined;
}

const fileOf = (key: string) => `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.json`;

function isReference(value: unknown): value is TeamsReference {
  const r = value as Partial<TeamsReference> | null;
  return !!r && typeof r.serviceUrl === "string" && typeof r.channelId === "string" && typeof r.conversation?.id === "string" && typeof r.bot?.id === "string";
}

export interface TeamsReferenceStore {
  /**
   * Keeps a reference (written only when it changed). Keys: the conversation, and in a personal chat the person.
   * Returns the target chats it was new for (none when every key was already known). With `keepOrigin` (an activity
   * whose token names no service URL), a key already known on another origin keeps its reference as it is.
   */
  remember(reference: TeamsReference, options?: { keepOrigin?: boolean }): string[];
  /** The reference of a target chat: a conversation id, or a person's object id for their personal chat. */
  find(chat: string): TeamsReference | undefined;
}

export function createTeamsReferenceStore(dataDir: string, log: (message: string, error?: unknown) => void): TeamsReferenceStore {
  const dir = join(dataDir, TEAMS_REFERENCES_DIR);
  preparePrivateDir(dataDir);
  preparePrivateDir(dir);
  /** What was read or written, and when: another process may refresh a reference (a new serviceUrl) meanwhile. */
  const cache = new Map<string, { reference: TeamsReference; atMs: number }>();
  const cached = (key: string) => {
    const entry = cache.get(key);
    return entry && Date.now() - entry.atMs < REREAD_AFTER_MS ? entry.reference : undefined;
  };
  const keep = (key: string, reference: TeamsReference) => cache.set(key, { reference, atMs: Date.now() });

  function read(key: string): TeamsReference | undefined {
    try {
      const parsed = JSON.parse(readFileSync(join(dir, fileOf(key)), "utf8")) as unknown;
      return isReference(parsed) ? parsed : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") log(`could not read the conversation reference of ${key}`, error);
      return undefined;
    }
  }

  function write(key: string, reference: TeamsReference): void {
    const target = join(dir, fileOf(key));
    const temporary = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(temporary, JSON.stringify(reference), { mode: 0o600 });
      chmodSync(temporary, 0o600);
      renameSync(temporary, target);
    } catch (error) {
      rmSync(temporary, { force: true });
      log(`could not keep the conversation reference of ${key}`, error);
    }
  }

  const same = (a: TeamsReference | undefined, b: TeamsReference) =>
    !!a && JSON.stringify({ ...a, capturedAtMs: 0 }) === JSON.stringify({ ...b, capturedAtMs: 0 });

  return {
    remember(reference, options = {}) {
      const keys = [reference.conversation.id];
      if (reference.conversation.conversationType === "personal" && reference.user?.aadObjectId) keys.push(reference.user.aadObjectId);
      const fresh: string[] = [];
      for (const key of keys) {
        const known = cached(key) ?? read(key);
        if (same(known, reference)) {
          keep(key, known!);
          continue;
        }
        if (known && options.keepOrigin && originOf(known.serviceUrl) !== originOf(reference.serviceUrl)) {
          log(`kept the conversation reference of ${key} on ${originOf(known.serviceUrl)}: an activity whose token names no service URL cannot move it to ${originOf(reference.serviceUrl) ?? "another"}`);
          keep(key, known);
          continue;
        }
        if (!known) fresh.push(key);
        keep(key, reference);
        write(key, reference);
      }
      return fresh;
    },
    find(chat) {
      const hit = cached(chat);
      if (hit) return hit;
      const found = read(chat) ?? cache.get(chat)?.reference;
      if (found) keep(chat, found);
      return found;
    },
  };
}
