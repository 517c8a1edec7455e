import { createKeyedPacer } from "../kit/pacer.ts";
import { isRateLimited, retryAfterMs } from "./rate-limit.ts";

/**
 * How long one call may keep being refused before the error goes back to the caller. Long: a burst drains in single
 * file, and a call given back would lose its place (and the bridge would record its target as retrying, and stop
 * holding its delivery claim).
 */
const REFUSED_FOR_MAX_MS = 5 * 60_000;
/** Waits longer than this go back to the caller (the bridge's send retry), rather than holding the call. */
const WAIT_MAX_MS = 30_000;
/** Calls in a row that went through in single file before calls go side by side again. */
const CALM_AFTER = 20;
/** Calls in flight at once, side by side (matrix-js-sdk ties each to one client-wide abort signal: Node warns past 10). */
const SIDE_BY_SIDE_MAX = 8;

export interface RateGateOptions {
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  log?: (message: string) => void;
}

/**
 * The bot's answer to M_LIMIT_EXCEEDED (a homeserver limits each account's sends, e.g. Synapse's `rc_message`), as
 * a use of the kit's keyed pacer with one key (the account): calls go side by side (at most 8 at once) until one is
 * refused; then every call waits the `retry_after_ms` the homeserver asked for, and they go in single file (each
 * waiting for the one before), so a burst of prompts drains at the rate the homeserver allows instead of all retrying
 * at once. Each wait is counted from when the homeserver answered, half a round trip before the answer arrived.
 * After 20 calls in a row go through, side by side again. A call refused for over 5 minutes, or asked to wait over
 * 30 s, fails with the rate limit's error (the bridge then retries the send later, and records the target as retrying).
 */
export function createRateGate({ sleep, now = Date.now, log = () => {} }: RateGateOptions = {}) {
  const pacer = createKeyedPacer({
    inFlight: SIDE_BY_SIDE_MAX,
    backOff: {
      retryAfterMs: (error) => (isRateLimited(error) ? retryAfterMs(error) : undefined),
      waitMaxMs: WAIT_MAX_MS,
      refusedForMaxMs: REFUSED_FOR_MAX_MS,
      calmAfter: CALM_AFTER,
      onSingleFile: (what, wait) => log(`${what}: rate limited (M_LIMIT_EXCEEDED); waiting ${wait} ms, then sending in single file`),
    },
    now,
    ...(sleep ? { sleep } : {}),
  });
  return {
    run: <T>(what: string, call: () => Promise<T>): Promise<T> => pacer.run("account", call, what),
  };
}

export type RateGate = ReturnType<typeof createRateGate>;
