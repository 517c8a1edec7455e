import { platformApiName } from "../platforms/descriptors.ts";

/** How a send that failed for a reason a later try may get past (a 5xx, a network error) is tried again. */
export interface SendRetryPolicy {
  /** The wait after the first failed try (default 1 s); each later wait doubles. */
  firstMs: number;
  /** The longest wait (default 60 s). */
  maxMs: number;
}

export const SEND_RETRY: SendRetryPolicy = { firstMs: 1_000, maxMs: 60_000 };

/** The wait after failed try number `attempt` (1, 2, …): 1 s, 2 s, 4 s … capped at `maxMs`. */
export function sendRetryDelayMs(attempt: number, policy: SendRetryPolicy = SEND_RETRY): number {
  return Math.min(policy.maxMs, policy.firstMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}


/** The network error code (ECONNREFUSED, ENOTFOUND, ETIMEDOUT, …) under a failed call, however the framework wraps it. */
function networkCode(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown; original?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (typeof e.code === "string" && /^E[A-Z0-9_]+$/.test(e.code)) return e.code;
    e = (e.cause ?? e.original) as typeof e;
  }
  return undefined;
}

/**
 * A failure as one line for the record (its `reason`, which the asker's delivery_failed repeats): a call that never
 * reached the platform names that (the descriptor's `apiName`) and the network error ("<surface>: cannot reach the
 * <platform> API: ECONNREFUSED"), any
 * other failure is the error's message. At most 300 characters, URLs cut out (a bot token may be in one).
 */
export function sendFailureReason(error: unknown, surface?: string): string {
  const code = networkCode(error);
  if (code && surface) return `${surface}: cannot reach ${platformApiName(surface) ?? "the platform"}: ${code}`;
  const text = (error instanceof Error ? error.message : String(error)).replace(/\bhttps?:\/\/\S+/giu, "<url>");
  return (text.trim() || "send failed").slice(0, 300);
}
