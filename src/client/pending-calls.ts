/**
 * Requests waiting for their response frame, by id: the one place for request ids, timeouts, and failing every
 * waiting request when the link drops. Free of `ws` and of the DOM, so the Node client (src/client/client.ts) and
 * the Control UI (through src/web/browser-shared.ts) share it.
 */
import { GatewayError, type ErrorBody } from "../kernel/errors.ts";

/** A frame from the gateway as parsed JSON: a response (`res`) or an event (`event`). */
export interface IncomingFrame {
  type?: unknown;
  id?: unknown;
  ok?: unknown;
  payload?: unknown;
  error?: ErrorBody;
  event?: unknown;
}

type Pending = { resolve: (payload: any) => void; reject: (error: GatewayError) => void; timer: ReturnType<typeof setTimeout> };

/** Parses one text frame; undefined when it is not a JSON object. */
export function parseFrame(text: string): IncomingFrame | undefined {
  try {
    const frame: unknown = JSON.parse(text);
    return typeof frame === "object" && frame !== null ? (frame as IncomingFrame) : undefined;
  } catch {
    return undefined;
  }
}

export function createPendingCalls() {
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function take(id: number): Pending | undefined {
    const call = pending.get(id);
    if (!call) return undefined;
    pending.delete(id);
    clearTimeout(call.timer);
    return call;
  }

  return {
    /**
     * Sends `{type:"req", id, method, params}` through `send` and resolves with the response's payload. Rejects with
     * TIMEOUT after `timeoutMs`, with DISCONNECTED when `send` reports a failure or the link drops (`failAll`), and
     * with the gateway's own error for an error response.
     */
    request<T>(method: string, params: unknown, timeoutMs: number, send: (text: string, fail: (error: Error) => void) => void): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new GatewayError("TIMEOUT", `${method} got no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        send(JSON.stringify({ type: "req", id, method, params }), (error) => {
          take(id)?.reject(new GatewayError("DISCONNECTED", `could not send ${method}: ${error.message}`, { cause: error }));
        });
      });
    },

    /** A response frame settles the request it answers (if still waiting); false for a frame that is not a response. */
    settle(frame: IncomingFrame): boolean {
      if (frame.type !== "res") return false;
      const call = typeof frame.id === "number" ? take(frame.id) : undefined;
      if (!call) return true;
      if (frame.ok) call.resolve(frame.payload);
      else call.reject(GatewayError.from(frame.error ?? { code: "INTERNAL", message: "the gateway refused the request" }));
      return true;
    },

    /** Rejects every waiting request with `error` (the link dropped, or the client closed). */
    failAll(error: GatewayError): void {
      for (const call of pending.values()) {
        clearTimeout(call.timer);
        call.reject(error);
      }
      pending.clear();
    },
  };
}

export type PendingCalls = ReturnType<typeof createPendingCalls>;
