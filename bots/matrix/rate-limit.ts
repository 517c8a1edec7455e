import { MatrixError } from "matrix-js-sdk";

/** The wait a rate-limited answer without `retry_after_ms` (or Retry-After) gets. */
const RATE_LIMIT_DEFAULT_MS = 1_000;

/** Whether the homeserver refused the call for now: M_LIMIT_EXCEEDED (HTTP 429). */
export function isRateLimited(error: unknown): error is MatrixError {
  return error instanceof MatrixError && (error.errcode === "M_LIMIT_EXCEEDED" || error.httpStatus === 429);
}

/** The wait a rate-limited answer asks for: `retry_after_ms` (or the Retry-After header), else a second. */
export function retryAfterMs(error: MatrixError): number {
  try {
    return error.getRetryAfterMs() ?? RATE_LIMIT_DEFAULT_MS;
  } catch {
    return RATE_LIMIT_DEFAULT_MS;
  }
}
