import { createHash, randomBytes, scryptSync } from "node:crypto";
import type { FoundSession, StoredSessions } from "../gateway/store/kit/credentials.ts";
import { createMemoryCredentialStore } from "../gateway/auth/store.ts";

/**
 * How long a Control UI session lasts. It slides: every use (a page load, an `/rpc` call, a WebSocket, and a page
 * keeping its WebSocket open) moves the idle deadline. 12 hours idle lets a working day's comings and goings keep one
 * sign-in while a browser left alone overnight signs out; 7 days in all bounds how long a copied cookie or a
 * forgotten browser stays good, whatever its use. Signing in again only takes the token.
 */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * How old a session's state may be when a request is let through, as for scoped credentials: each instance reads a
 * session from the store at most this often (one query for all its open pages), so a sign-out on one instance
 * reaches every other within about this long.
 */
export const SESSION_RECHECK_MS = 1_000;
/** A session's "last used" is written at most this often: sliding costs one write a minute, not one per request. */
export const SESSION_TOUCH_EVERY_MS = 60_000;
/** Expired sessions are deleted from the store at most this often (at a sign-in). */
export const SESSION_PRUNE_EVERY_MS = 10 * 60_000;
/** Sessions this process remembers the store's answer for; past it the cache starts again (it is only a cache). */
const MAX_CACHED = 10_000;

/** A session id: 32 random bytes, base64url (43 characters). The cookie carries it and nothing else. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Where sessions live: the store's session table (the gateway's database, or memory), keyed by the ids' SHA-256. */
export type SessionStore = StoredSessions;

/** Who a live session is: the admin (GATEWAY_TOKEN), or a person by its credential (with its token hash, re-checked). */
export type SessionHolder = { kind: "admin" } | { kind: "person"; credentialId: string; name: string; tokenHash: string };

/** Who signs in: the admin, or a person's credential by its id. */
export type SignIn = { kind: "admin" } | { kind: "person"; credentialId: string };

export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * What the admin's sessions carry instead of a credential: a slow hash of GATEWAY_TOKEN, so that a new token ends
 * them on every instance, and a leaked database gives no cheap way to test guesses at the token.
 */
export function adminSessionTag(token: string): string {
  return scryptSync(token, "ask-user-bridge admin session v1", 32, { N: 2 ** 14 }).toString("base64url");
}

/** Sessions in this process's memory only (a gateway restart signs every page out); the gateway passes its store's. */
export function createMemorySessionStore(): SessionStore {
  return createMemoryCredentialStore().sessions;
}

export interface SessionCheckOptions {
  store: SessionStore;
  /** adminSessionTag(GATEWAY_TOKEN). */
  adminTag: string;
  idleMs?: number;
  absoluteMs?: number;
  recheckMs?: number;
  touchEveryMs?: number;
  log?: (message: string, error?: unknown) => void;
}

interface Cached {
  found: FoundSession | undefined;
  /** Until when the store's answer is used without asking again. */
  until: number;
  /** The latest use this process saw (the store's may be up to SESSION_TOUCH_EVERY_MS behind). */
  usedAtMs: number;
}

/**
 * The Control UI's sessions over the store: sign-in, the check every `/`, `/rpc` and `/ws` request makes, the open
 * pages' re-check, and sign-out. A check reads the store at most once per SESSION_RECHECK_MS per session (a short
 * verified cache), so requests stay fast and a sign-out or revocation elsewhere takes effect within about that long.
 */
export function createSessionCheck(options: SessionCheckOptions) {
  const { store, adminTag } = options;
  const idleMs = options.idleMs ?? SESSION_IDLE_MS;
  const absoluteMs = options.absoluteMs ?? SESSION_ABSOLUTE_MS;
  const recheckMs = options.recheckMs ?? SESSION_RECHECK_MS;
  const touchEveryMs = options.touchEveryMs ?? SESSION_TOUCH_EVERY_MS;
  const log = options.log ?? (() => {});
  const cache = new Map<string, Cached>();
  /** Sessions signed out here: a read that was under way at the sign-out must not bring one back. */
  const signedOut = new Set<string>();
  let lastPruneMs = Number.NEGATIVE_INFINITY;

  /** Reads the sessions whose cached state is older than recheckMs, in one query. */
  async function refresh(idHashes: readonly string[], nowMs: number): Promise<void> {
    const stale = idHashes.filter((h) => !((cache.get(h)?.until ?? 0) > nowMs));
    if (stale.length === 0) return;
    const found = await store.find(stale);
    if (cache.size + stale.length > MAX_CACHED) cache.clear();
    for (const h of stale) {
      const session = signedOut.has(h) ? undefined : found.get(h);
      const usedAtMs = Math.max(session?.lastUsedAtMs ?? 0, cache.get(h)?.usedAtMs ?? 0);
      cache.set(h, { found: session, until: nowMs + recheckMs, usedAtMs });
    }
  }

  function holderOf(entry: Cached | undefined, nowMs: number): SessionHolder | undefined {
    const session = entry?.found;
    if (!entry || !session) return undefined;
    if (nowMs - entry.usedAtMs >= idleMs || nowMs - session.createdAtMs >= absoluteMs) return undefined;
    if (session.who.kind === "admin") return session.who.tag === adminTag ? { kind: "admin" } : undefined;
    const credential = session.credential;
    if (!credential || credential.revokedAtMs !== undefined || credential.role !== "person") return undefined;
    return { kind: "person", credentialId: credential.id, name: credential.name, tokenHash: credential.tokenHash };
  }

  /** A use: slides the session here at once, and in the store when its "last used" there is a minute old. */
  function slide(idHash: string, entry: Cached, nowMs: number): void {
    entry.usedAtMs = Math.max(entry.usedAtMs, nowMs);
    const session = entry.found!;
    if (nowMs - session.lastUsedAtMs < touchEveryMs) return;
    session.lastUsedAtMs = nowMs;
    store.touch(idHash, nowMs).catch((error: unknown) => log("could not record a Control UI session's use", error));
  }

  async function use(idHash: string, nowMs: number): Promise<SessionHolder | undefined> {
    await refresh([idHash], nowMs);
    const entry = cache.get(idHash);
    const holder = holderOf(entry, nowMs);
    if (holder) slide(idHash, entry!, nowMs);
    return holder;
  }

  return {
    /** Starts a session and returns its new id (the store keeps only its hash). */
    async create(who: SignIn, nowMs: number): Promise<string> {
      if (nowMs - lastPruneMs >= SESSION_PRUNE_EVERY_MS) {
        lastPruneMs = nowMs;
        store.prune(nowMs - idleMs, nowMs - absoluteMs).catch((error: unknown) => log("could not delete expired Control UI sessions", error));
      }
      const id = newSessionId();
      await store.add(sha256(id), {
        who: who.kind === "admin" ? { kind: "admin", tag: adminTag } : { kind: "credential", credentialId: who.credentialId },
        createdAtMs: nowMs,
        lastUsedAtMs: nowMs,
      });
      return id;
    },
    /**
     * Who the session with this id is, while it is live (not idle too long, not too old, not signed out, signed in
     * with today's GATEWAY_TOKEN or a person credential still live); each use slides it. Anything that is not a
     * session id is not live, and asks the store nothing.
     */
    async holder(id: string, nowMs: number): Promise<SessionHolder | undefined> {
      if (!SESSION_ID_PATTERN.test(id)) return undefined;
      return use(sha256(id), nowMs);
    },
    /** Of these sessions (pages with a WebSocket open, which is use), the ids no longer live, from one query. */
    async endedAmong(ids: readonly string[], nowMs: number): Promise<Set<string>> {
      const hashes = new Map(ids.map((id) => [id, sha256(id)]));
      await refresh([...hashes.values()], nowMs);
      const ended = new Set<string>();
      for (const [id, idHash] of hashes) {
        const entry = cache.get(idHash);
        if (holderOf(entry, nowMs)) slide(idHash, entry!, nowMs);
        else ended.add(id);
      }
      return ended;
    },
    /** Ends a session at once (sign-out), here and in the store, so every instance refuses it. */
    async end(id: string): Promise<void> {
      if (!SESSION_ID_PATTERN.test(id)) return;
      const idHash = sha256(id);
      if (signedOut.size >= MAX_CACHED) signedOut.clear();
      signedOut.add(idHash);
      cache.delete(idHash);
      await store.delete(idHash);
    },
  };
}

export type SessionCheck = ReturnType<typeof createSessionCheck>;
