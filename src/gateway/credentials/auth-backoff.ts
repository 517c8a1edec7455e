/**
 * Backing off token guessing per client address. After FREE_FAILURES wrong tokens from one address, that address
 * is locked out for BASE_DELAY_MS; each further wrong token (one counts only once the lockout has passed) doubles
 * the lockout, up to MAX_DELAY_MS. The backoff slows wrong tokens only: every token is checked first (in constant
 * time), a right one is let in whatever its address's count (issue 37 §4: behind a proxy, nine wrong tokens from the
 * internet used to lock out the admin, the bots and the CLI, all at 127.0.0.1), and a wrong one during a lockout is
 * refused as locked out (429, Retry-After), the same answer whatever it was, so it tells a guesser nothing more. A
 * right token does not clear the count either: it would let any holder of a valid token (or a client sharing the
 * address) reset the count between guesses. An address with no wrong token for FORGET_AFTER_MS is forgotten.
 *
 * Memory is bounded: at most MAX_ADDRESSES entries, kept in least-recently-failed order in one Map, so forgetting
 * and evicting both take from its front. No timer runs. Other addresses are never affected.
 *
 * An address is the client's IP; an IPv6 client is keyed by its /64 (one host usually holds the whole /64). Behind a
 * proxy it is the client's address from X-Forwarded-For when the proxy is in GATEWAY_TRUSTED_PROXIES
 * (server/client-address.ts), else the proxy's, which all its clients then share.
 */
export const FREE_FAILURES = 5;
export const BASE_DELAY_MS = 1_000;
export const MAX_DELAY_MS = 60_000;
export const FORGET_AFTER_MS = 15 * 60_000;
export const MAX_ADDRESSES = 10_000;

export interface AuthBackoffOptions {
  freeFailures?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  forgetAfterMs?: number;
  maxAddresses?: number;
  now?: () => number;
}

/** A token check's outcome. `retryAfterMs > 0`: a wrong token from an address that is locked out. */
export type TokenVerdict = { ok: true } | { ok: false; retryAfterMs: number };

interface Entry {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

export type AuthBackoff = ReturnType<typeof createAuthBackoff>;

export function createAuthBackoff(options: AuthBackoffOptions = {}) {
  const freeFailures = options.freeFailures ?? FREE_FAILURES;
  const baseDelayMs = options.baseDelayMs ?? BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? MAX_DELAY_MS;
  const forgetAfterMs = options.forgetAfterMs ?? FORGET_AFTER_MS;
  const maxAddresses = options.maxAddresses ?? MAX_ADDRESSES;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const stale = (entry: Entry, at: number) => entry.lockedUntil <= at && at - entry.lastFailureAt >= forgetAfterMs;

  function current(key: string, at: number): Entry | undefined {
    const entry = entries.get(key);
    if (entry && stale(entry, at)) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  return {
    /** 0 when the address may try a token now; else how long until it may. */
    retryAfterMs(address: string | undefined): number {
      const at = now();
      const entry = current(addressKey(address), at);
      return entry ? Math.max(0, entry.lockedUntil - at) : 0;
    },
    /** A wrong token from this address. */
    failed(address: string | undefined): void {
      const at = now();
      const key = addressKey(address);
      const entry = current(key, at) ?? { failures: 0, lastFailureAt: at, lockedUntil: 0 };
      entry.failures += 1;
      entry.lastFailureAt = at;
      if (entry.failures >= freeFailures) entry.lockedUntil = at + Math.min(maxDelayMs, baseDelayMs * 2 ** (entry.failures - freeFailures));
      // Re-inserted at the back: the Map's front is always the least recently failed address.
      entries.delete(key);
      entries.set(key, entry);
      for (const [oldest, first] of entries) {
        if (entries.size <= maxAddresses && !stale(first, at)) break;
        entries.delete(oldest);
      }
    },
    /** How many addresses are remembered. */
    get size(): number {
      return entries.size;
    },
  };
}

/**
 * Wraps a token check with the backoff: a right token is let in; a wrong one from a locked-out address is refused
 * as locked out and not counted; any other wrong one counts against its address (a missing or non-string one is no
 * guess and does not).
 */
export function createGuardedTokenCheck(checkToken: (presented: unknown) => boolean, backoff: AuthBackoff) {
  return (address: string | undefined, presented: unknown): TokenVerdict => {
    if (checkToken(presented)) return { ok: true };
    return wrongToken(backoff, address, presented);
  };
}

/** A wrong token's verdict: locked out (nothing counted) or counted against its address. */
export function wrongToken(backoff: AuthBackoff, address: string | undefined, presented: unknown): { ok: false; retryAfterMs: number } {
  const retryAfterMs = backoff.retryAfterMs(address);
  if (retryAfterMs > 0) return { ok: false, retryAfterMs };
  if (typeof presented === "string" && presented !== "") backoff.failed(address);
  return { ok: false, retryAfterMs: 0 };
}

/** What a refusal during a lockout says. */
export function lockoutMessage(retryAfterMs: number): string {
  return `too many wrong tokens from this address: try again in ${retryAfterSeconds(retryAfterMs)} s`;
}

/** The lockout in whole seconds, rounded up (an HTTP Retry-After value). */
export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The key an address is counted under: IPv4 as is (also when IPv4-mapped), IPv6 by its /64 prefix. */
export function addressKey(address: string | undefined): string {
  if (!address) return "unknown";
  const plain = address.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) return mapped[1]!;
  if (!plain.includes(":")) return plain;
  const [head = "", tail] = plain.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (g.replace(/^0+(?=.)/, "") || "0"))
    .join(":")}::/64`;
}
