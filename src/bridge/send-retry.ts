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

/** A failure as one line for the record (its `reason`): the error's message, at most 300 characters. */
export function sendFailureReason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.trim() || "send failed").slice(0, 300);
}
