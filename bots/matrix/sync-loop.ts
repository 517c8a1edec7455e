import { MatrixError } from "matrix-js-sdk";
import { BotStopError } from "../../src/kernel/errors.ts";
import type { Log } from "../shared.ts";
import type { MatrixApi, MatrixRawEvent, MatrixSyncResponse } from "./client.ts";
import type { SyncTokenStore } from "./sync-token.ts";

/** How long one /sync waits on the homeserver for something to happen. */
export const SYNC_TIMEOUT_MS = 30_000;
/** Events per room one batch may carry; a room with more comes back `limited`, and the gap is read with /messages. */
const TIMELINE_LIMIT = 100;
/** Pages of a gap read at most (100 events each), so a huge gap cannot hold the loop forever. */
const GAP_PAGES_MAX = 20;

const FILTER = JSON.stringify({
  presence: { not_types: ["*"] },
  room: { timeline: { limit: TIMELINE_LIMIT }, ephemeral: { not_types: ["*"] }, account_data: { not_types: ["*"] } },
  account_data: { types: ["m.direct"] },
});

/** One batch, as the handler gets it: each joined room's events in order (a gap already filled), and the rest. */
export interface SyncBatch {
  /** The first sync of a bot with no saved token: what happened before it never ran is not for it to answer. */
  initial: boolean;
  rooms: Array<{ roomId: string; state: MatrixRawEvent[]; timeline: MatrixRawEvent[] }>;
  /** Rooms the bot is invited to; `direct`: the inviter marked it a DM (`is_direct` on the bot's invite). */
  invites: Array<{ roomId: string; inviter?: string; direct: boolean }>;
  accountData: Array<{ type: string; content: Record<string, any> }>;
}

export interface SyncLoopOptions {
  api: MatrixApi;
  tokens: SyncTokenStore;
  botUserId: string;
  log: Log;
  /** Handles one batch; the token is saved only after it settles, so a crash before then gives the batch again. */
  onBatch(batch: SyncBatch): Promise<void>;
  /** The homeserver refused the token for good: the bot cannot go on. */
  onStop(error: BotStopError): void;
  timeoutMs?: number;
  /** Waits between failed syncs: 1 s, 2 s, 4 s … 60 s. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Reads one /sync response as a batch: each joined room's events, a `limited` room's gap read back first. */
function batchReader(api: MatrixApi, botUserId: string) {
  async function fillGap(roomId: string, from: string, to: string): Promise<MatrixRawEvent[]> {
    const older: MatrixRawEvent[] = [];
    let token: string | undefined = from;
    for (let page = 0; token && page < GAP_PAGES_MAX; page++) {
      const { chunk, end } = await api.messages(roomId, { dir: "b", from: token, to, limit: "100" });
      if (!chunk?.length) break;
      older.push(...chunk);
      token = end;
    }
    return older.reverse();
  }

  async function toBatch(response: MatrixSyncResponse, since: string | undefined): Promise<SyncBatch> {
    const rooms: SyncBatch["rooms"] = [];
    for (const [roomId, room] of Object.entries(response.rooms?.join ?? {})) {
      let timeline = room.timeline?.events ?? [];
      if (since && room.timeline?.limited && room.timeline.prev_batch) {
        const gap = await fillGap(roomId, room.timeline.prev_batch, since);
        const seen = new Set(timeline.map((e) => e.event_id));
        timeline = [...gap.filter((e) => !seen.has(e.event_id)), ...timeline];
      }
      rooms.push({ roomId, state: room.state?.events ?? [], timeline });
    }
    const invites = Object.entries(response.rooms?.invite ?? {}).map(([roomId, invite]) => {
      const own = invite.invite_state?.events?.find((e) => e.type === "m.room.member" && e.state_key === botUserId);
      return { roomId, direct: own?.content?.is_direct === true, ...(own?.sender ? { inviter: own.sender } : {}) };
    });
    return { initial: since === undefined, rooms, invites, accountData: response.account_data?.events ?? [] };
  }
  return toBatch;
}

/**
 * A bot with no saved token (its first start, or a new DATA_DIR) takes the homeserver's current position first, with
 * one sync that waits for nothing: what happened before was not for it (it had sent no prompt). Done before the bot
 * sends its first prompts, so a reply to one of them is after that position and is handled.
 */
export async function ensureSyncToken({ api, tokens, botUserId, onBatch }: Pick<SyncLoopOptions, "api" | "tokens" | "botUserId" | "onBatch">): Promise<void> {
  if (tokens.read()) return;
  const response = await api.sync({ filter: FILTER }, 0, new AbortController().signal);
  await onBatch(await batchReader(api, botUserId)(response, undefined));
  tokens.write(response.next_batch);
}

/**
 * The bot's sync loop: /sync with `since` the saved token, long-polling; each batch is handled in full, then its
 * `next_batch` is saved (atomically, in DATA_DIR), and the next sync starts from it. So a restart goes on where the
 * last handled batch ended: what came while the bot was down arrives then, and nothing it had handled comes again
 * (a crash in the middle of a batch gives that batch again; typed replies are taken once by the gateway, and a vote
 * counts once). A room whose batch was `limited` (more events than the batch holds) has the gap read back with
 * /messages, so nothing is skipped.
 */
export function startSyncLoop({ api, tokens, botUserId, log, onBatch, onStop, timeoutMs = SYNC_TIMEOUT_MS, sleep = abortableSleep }: SyncLoopOptions) {
  const toBatch = batchReader(api, botUserId);
  // One controller per sync and per wait: a listener added to a long-lived signal on every sync would pile up.
  let controller = new AbortController();
  let stopped = false;

  const done = (async () => {
    let since = tokens.read();
    let failures = 0;
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await api.sync({ filter: FILTER, ...(since ? { since } : {}) }, since ? timeoutMs : 0, controller.signal);
        const batch = await toBatch(response, since);
        await onBatch(batch);
        tokens.write(response.next_batch);
        since = response.next_batch;
        if (failures > 0) log(`reached the homeserver again after ${failures} failed syncs`);
        failures = 0;
      } catch (error) {
        if (stopped) break;
        if (error instanceof MatrixError && (error.errcode === "M_UNKNOWN_TOKEN" || error.httpStatus === 401)) {
          onStop(new BotStopError("matrix: the access token was rejected (M_UNKNOWN_TOKEN): check MATRIX_ACCESS_TOKEN, or log the bot account in again for a new one", true));
          break;
        }
        failures++;
        const wait = Math.min(60_000, 1_000 * 2 ** Math.min(failures - 1, 6));
        if (failures === 1 || failures % 10 === 0) log(`sync failed (${failures} in a row); retrying in ${wait} ms`, error);
        await sleep(wait, controller.signal);
      }
    }
  })();

  return {
    /** Stops after the batch being handled (its token saved); an open long-poll is aborted. */
    async stop(): Promise<void> {
      stopped = true;
      controller.abort();
      await done;
    },
  };
}
