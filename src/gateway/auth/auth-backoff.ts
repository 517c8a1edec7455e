import { addressKey, createFailureCounts, type FailureCountOptions } from "../../kernel/failure-counts.ts";

export { addressKey };
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
 * The counting is src/kernel/failure-counts.ts (bounded memory, no timer); other addresses are never affected.
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

export type AuthBackoffOptions = Partial<FailureCountOptions>;

/** A token check's outcome. `retryAfterMs > 0`: a wrong token from an address that is locked out. */
export type TokenVerdict = { ok: true } | { ok: false; retryAfterMs: number };

export type AuthBackoff = ReturnType<typeof createAuthBackoff>;

export function createAuthBackoff(options: AuthBackoffOptions = {}) {
  const counts = createFailureCounts({
    freeFailures: FREE_FAILURES,
    baseDelayMs: BASE_DELAY_MS,
    maxDelayMs: MAX_DELAY_MS,
    forgetAfterMs: FORGET_AFTER_MS,
    maxAddresses: MAX_ADDRESSES,
    ...options,
  });
  return {
    /** 0 when the address may try a token now; else how long until it may. */
    retryAfterMs: (address: string | undefined): number => counts.lockedForMs(address),
    /** A wrong token from this address. */
    failed(address: string | undefined): void {
      counts.failed(address);
    },
    /** How many addresses are remembered. */
    get size(): number {
      return counts.size;
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
