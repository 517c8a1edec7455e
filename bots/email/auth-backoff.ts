import { addressKey, createFailureCounts } from "../../src/kernel/failure-counts.ts";

export { addressKey };
/**
 * Backing off SMTP AUTH guessing per client address (issue 37 §6), the gateway's rule for tokens
 * (src/gateway/auth/auth-backoff.ts) as a listener needs it. After SMTP_AUTH_FREE_FAILURES wrong logins from
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
 * The counting is the gateway's (src/kernel/failure-counts.ts: bounded memory, no timer); beside it, one queue per
 * address with a login waiting (the listener's maxClients bounds those). No timer runs but a waiting one.
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

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

export type SmtpAuthBackoff = ReturnType<typeof createSmtpAuthBackoff>;

export function createSmtpAuthBackoff(options: SmtpAuthBackoffOptions = {}) {
  const counts = createFailureCounts({
    freeFailures: SMTP_AUTH_FREE_FAILURES,
    baseDelayMs: SMTP_AUTH_BASE_DELAY_MS,
    maxDelayMs: SMTP_AUTH_MAX_DELAY_MS,
    forgetAfterMs: SMTP_AUTH_FORGET_AFTER_MS,
    maxAddresses: SMTP_AUTH_MAX_ADDRESSES,
    ...options,
  });
  const sleep = options.sleep ?? realSleep;
  /** Per address, the promise the next login waits for (the one before it done), while any waits. */
  const queues = new Map<string, { tail: Promise<void>; waiting: number }>();

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
        const wait = counts.lockedForMs(address);
        if (wait > 0) await sleep(wait);
        if (!open()) return { ok: false, gone: true, lockedForMs: 0 };
        if (check()) return { ok: true };
        return { ok: false, gone: false, lockedForMs: counts.failed(address) };
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
