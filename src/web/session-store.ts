import { randomBytes } from "node:crypto";

/**
 * How long a Control UI session lasts. It slides: every use (a page load, an `/rpc` call, a WebSocket, and every
 * minute a page keeps its WebSocket open) moves the idle deadline. 12 hours idle lets a working day's comings and
 * goings keep one sign-in while a browser left alone overnight signs out; 7 days in all bounds how long a copied
 * cookie or a forgotten browser stays good, whatever its use. Signing in again only takes the token.
 */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/** Sign-ins need the token, so this only bounds memory; past it the least recently used session ends. */
export const SESSION_MAX_COUNT = 1000;

/** A session id: 32 random bytes, base64url (43 characters). The cookie carries it and nothing else. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Where Control UI sessions live, so that a session can be ended (sign-out) and expires on the server, not only in
 * the browser. Synchronous, because the gateway asks on every `/rpc` request and WebSocket upgrade.
 *
 * The one implementation today keeps them in this process's memory: a gateway restart signs every page out, and
 * several gateway instances behind a load balancer would each know only their own sign-ins (a page would have to
 * stick to one instance). Moving sessions to the shared database means another implementation of this interface,
 * kept in the database and read through a short local cache (or an asynchronous authenticator); it should store
 * only a hash of each id.
 */
export interface SessionStore {
  /** Starts a session and returns its new id. */
  create(nowMs: number): string;
  /** True while the session is live; each use slides its idle deadline, never past its absolute one. */
  touch(id: string, nowMs: number): boolean;
  /** Ends a session at once (sign-out). Unknown ids are ignored. */
  revoke(id: string): void;
}

export interface MemorySessionStoreOptions {
  idleMs?: number;
  absoluteMs?: number;
  maxCount?: number;
}

interface Session {
  createdAtMs: number;
  lastUsedAtMs: number;
}

export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

/** Sessions in a Map (kept in order of last use), dropped lazily when they expire. */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const idleMs = options.idleMs ?? SESSION_IDLE_MS;
  const absoluteMs = options.absoluteMs ?? SESSION_ABSOLUTE_MS;
  const maxCount = options.maxCount ?? SESSION_MAX_COUNT;
  const sessions = new Map<string, Session>();

  const isLive = (s: Session, nowMs: number) => nowMs - s.lastUsedAtMs < idleMs && nowMs - s.createdAtMs < absoluteMs;

  function sweep(nowMs: number): void {
    for (const [id, s] of sessions) if (!isLive(s, nowMs)) sessions.delete(id);
    // Map order is the order of last use: the first keys are the least recently used.
    for (const id of sessions.keys()) {
      if (sessions.size < maxCount) break;
      sessions.delete(id);
    }
  }

  return {
    create(nowMs) {
      sweep(nowMs);
      const id = newSessionId();
      sessions.set(id, { createdAtMs: nowMs, lastUsedAtMs: nowMs });
      return id;
    },
    touch(id, nowMs) {
      const s = sessions.get(id);
      if (!s) return false;
      sessions.delete(id);
      if (!isLive(s, nowMs)) return false;
      s.lastUsedAtMs = Math.max(s.lastUsedAtMs, nowMs);
      sessions.set(id, s);
      return true;
    },
    revoke(id) {
      sessions.delete(id);
    },
  };
}
