/**
 * Wrong guesses counted per client address, with the lockout they earn: after `freeFailures` from one address, its
 * next try is due no sooner than `baseDelayMs` after the last wrong one, each further wrong one doubling that, up to
 * `maxDelayMs`. What a lockout does (refuse at once, or make the next try wait its turn) is the caller's: the gateway's
 * tokens (src/gateway/auth/auth-backoff.ts), and a bot's listener that takes logins.
 *
 * Memory is bounded: at most `maxAddresses` counts, kept in least-recently-failed order in one Map, so forgetting
 * and evicting both take from its front; an address with no wrong guess for `forgetAfterMs` is forgotten. No timer
 * runs. An address is keyed by `addressKey`: IPv4 as is, IPv6 by its /64.
 */
export interface FailureCountOptions {
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
  maxAddresses: number;
  now?: () => number;
}

interface Count {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

export type FailureCounts = ReturnType<typeof createFailureCounts>;

export function createFailureCounts(options: FailureCountOptions) {
  const { freeFailures, baseDelayMs, maxDelayMs, forgetAfterMs, maxAddresses } = options;
  const now = options.now ?? Date.now;
  const counts = new Map<string, Count>();

  const stale = (count: Count, at: number) => count.lockedUntil <= at && at - count.lastFailureAt >= forgetAfterMs;

  function current(key: string, at: number): Count | undefined {
    const count = counts.get(key);
    if (count && stale(count, at)) {
      counts.delete(key);
      return undefined;
    }
    return count;
  }

  return {
    /** 0 when the address may try now; else how long until it may. */
    lockedForMs(address: string | undefined): number {
      const at = now();
      const count = current(addressKey(address), at);
      return count ? Math.max(0, count.lockedUntil - at) : 0;
    },
    /** A wrong guess from this address; answers how long it is locked out now (0: not). */
    failed(address: string | undefined): number {
      const at = now();
      const key = addressKey(address);
      const count = current(key, at) ?? { failures: 0, lastFailureAt: at, lockedUntil: 0 };
      count.failures += 1;
      count.lastFailureAt = at;
      if (count.failures >= freeFailures) count.lockedUntil = at + Math.min(maxDelayMs, baseDelayMs * 2 ** (count.failures - freeFailures));
      // Re-inserted at the back: the Map's front is always the least recently failed address.
      counts.delete(key);
      counts.set(key, count);
      for (const [oldest, first] of counts) {
        if (counts.size <= maxAddresses && !stale(first, at)) break;
        counts.delete(oldest);
      }
      return Math.max(0, count.lockedUntil - at);
    },
    /** How many addresses are remembered. */
    get size(): number {
      return counts.size;
    },
  };
}

/** The key an address is counted under: IPv4 as is (also when IPv4-mapped), IPv6 by its /64 prefix. */
export function addressKey(address: string | undefined): string {
  if (!address) return "unknown";
  const plain = address.replace(/%.*$/u, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/u.exec(plain);
  if (mapped) return mapped[1]!;
  if (!plain.includes(":")) return plain;
  const [head = "", tail] = plain.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/u, "") || "0").join(":")}::/64`;
}
