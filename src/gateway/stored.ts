import { GatewayError } from "../errors.ts";
import { SessionBusyError, StoreUnavailableError } from "./store/errors.ts";

/** Store failures reach the client as a clear, retryable protocol error, never as INTERNAL. */
export async function stored<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof SessionBusyError) throw new GatewayError("SESSION_HAS_PENDING_QUESTION", error.message, { cause: error });
    if (error instanceof StoreUnavailableError) throw new GatewayError("STORE_UNAVAILABLE", error.message, { cause: error });
    throw error;
  }
}
