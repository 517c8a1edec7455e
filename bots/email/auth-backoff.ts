/**
 * Backing off SMTP AUTH guessing per client address (issue 37 §6), the gateway's rule for tokens
 * (src/gateway/credentials/auth-backoff.ts) as a listener needs it. After SMTP_AUTH_FREE_FAILURES wrong logins from
 * one address, its next login is checked no sooner than SMTP_AUTH_BASE_DELAY_MS after the last wrong one, and each
 * further wrong one doubles that, up to SMTP_AUTH_MAX_DELAY_MS. The logins of one address are checked one at a time,
 * in order, across all its connections, so opening more connections guesses no faster.
 *
 * A right login is never refused: during a lockout it waits its turn like any other and is then let in. It is not
 * answered at once either, since a right one answered at once while wrong ones wait would tell a guesser by the time
 * alone; the relay's own address has no wrong logins, so it never waits. A right login does not clear the count
 * (the gateway's rule: a client sharing the address could reset it between guesses); an address with no wrong login
 * for SMTP_AUTH_FORGET_AFTER_MS is forgotten. A login whose connection closed while it waited is dropped unchecked.
 *
 * Memory is bounded: at most SMTP_AUTH_MAX_ADDRESSES counts, in least-recently-failed order in one Map, and one
 * queue per address with a login waiting (the listener's maxClients bounds those). No timer runs but a waiting one.
 */
export const SMTP_AUTH_FREE_FAILURES = 5;
export const SMTP_AUTH_BASE_DELAY_MS = 1_000;
/** Below smtp-server's 60 s socket timeout, so a waiting login's connection stays open. */
export const SMTP_AUTH_MAX_DELAY_MS = 30_000;
export const SMTP_AUTH_FORGET_AFTER_MS = 15 * 60_000;
export const SMTP_AUTH_MAX_ADDRESSES = 10_000;

export interface SmtpAuthBackoffOptions {
  freeFailures?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  forgetAfterMs?: number;
  maxAddresses?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** A login's outcome. `locked`: the address's next login waits this long (0: it does not). */
export type SmtpLoginVerdict = { ok: true } | { ok: false; gone: boolean; lockedForMs: number };

interface Count {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

export type SmtpAuthBackoff = ReturnType<typeof createSmtpAuthBackoff>;

export function createSmtpAuthBackoff(options: SmtpAuthBackoffOptions = {}) {
  const freeFailures = options.freeFailures ?? SMTP_AUTH_FREE_FAILURES;
  const baseDelayMs = options.baseDelayMs ?? SMTP_AUTH_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? SMTP_AUTH_MAX_DELAY_MS;
  const forgetAfterMs = options.forgetAfterMs ?? SMTP_AUTH_FORGET_AFTER_MS;
  const maxAddresses = options.maxAddresses ?? SMTP_AUTH_MAX_ADDRESSES;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const counts = new Map<string, Count>();
  /** Per address, the promise the next login waits for (the one before it done), while any waits. */
  const queues = new Map<string, { tail: Promise<void>; waiting: number }>();

  const stale = (count: Count, at: number) => count.lockedUntil <= at && at - count.lastFailureAt >= forgetAfterMs;

  function current(key: string, at: number): Count | undefined {
    const count = counts.get(key);
    if (count && stale(count, at)) {
      counts.delete(key);
      return undefined;
    }
    return count;
  }

  function failed(key: string, at: number): number {
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
  }

  return {
    /**
     * Checks a login from `address` in its turn. `check` says whether the credentials are right (in constant time);
     * `open` whether its connection still waits for the answer.
     */
    async login(address: string | undefined, check: () => boolean, open: () => boolean = () => true): Promise<SmtpLoginVerdict> {
      const key = addressKey(address);
      const queue = queues.get(key) ?? { tail: Promise.resolve(), waiting: 0 };
      queues.set(key, queue);
      const before = queue.tail;
      let done!: () => void;
      queue.tail = new Promise<void>((resolve) => (done = resolve));
      queue.waiting += 1;
      try {
        await before;
        if (!open()) return { ok: false, gone: true, lockedForMs: 0 };
        const wait = (current(key, now())?.lockedUntil ?? 0) - now();
        if (wait > 0) await sleep(wait);
        if (!open()) return { ok: false, gone: true, lockedForMs: 0 };
        if (check()) return { ok: true };
        return { ok: false, gone: false, lockedForMs: failed(key, now()) };
      } finally {
        done();
        queue.waiting -= 1;
        if (queue.waiting === 0 && queues.get(key) === queue) queues.delete(key);
      }
    },
    /** How many addresses are remembered (counts) and how many have logins waiting. */
    get size() {
      return { counts: counts.size, queues: queues.size };
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
