import { GatewayError } from "../../kernel/errors.ts";
import { QuotaExceededError, SessionBusyError, StoreUnavailableError } from "../store/kit/errors.ts";

/** The protocol message for a full quota, naming the setting that sets it. */
function quotaMessage(error: QuotaExceededError): string {
  if (error.quota === "run") return `run ${error.runId} already has ${error.pending} pending questions (ASK_MAX_PENDING_PER_RUN is ${error.max})`;
  return `credential ${error.askedBy} already has ${error.pending} pending questions (ASK_MAX_PENDING_PER_CREDENTIAL is ${error.max})`;
}

/** Store failures reach the client as a clear protocol error (retryable where that helps), never as INTERNAL. */
export async function stored<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof SessionBusyError) throw new GatewayError("SESSION_HAS_PENDING_QUESTION", error.message, { cause: error });
    if (error instanceof QuotaExceededError) throw new GatewayError("QUOTA_EXCEEDED", quotaMessage(error), { cause: error });
    if (error instanceof StoreUnavailableError) throw new GatewayError("STORE_UNAVAILABLE", error.message, { cause: error });
    throw error;
  }
}
