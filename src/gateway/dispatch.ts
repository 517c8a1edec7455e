import { GatewayError } from "../errors.ts";
import { isMethodName, parseParams, type MethodName } from "../protocol/methods.ts";
import type { Cancellation, QuestionService } from "./service.ts";

/** Runs one protocol method against the service. Shared by the WebSocket and the HTTP mirror. */
export function createDispatcher(service: QuestionService) {
  const handlers: { [M in MethodName]: (params: unknown, signal: Cancellation | undefined) => unknown } = {
    "question.request": (p, signal) => {
      const params = parseParams("question.request", p);
      const { id, expiresAtMs, record } = service.request(params);
      // With waitMs the asker gets question.waitAnswer's payload (which carries the id) instead.
      return params.waitMs === undefined ? { id, expiresAtMs } : service.waitFor(record, params.waitMs, signal);
    },
    "question.waitAnswer": (p, signal) => {
      const { id, timeoutMs } = parseParams("question.waitAnswer", p);
      return service.waitAnswer(id, timeoutMs, signal);
    },
    "question.resolve": (p) => service.resolve(parseParams("question.resolve", p)),
    "question.reply": (p) => service.reply(parseParams("question.reply", p)),
    "question.get": (p) => service.get(parseParams("question.get", p).id),
    "question.list": (p) => ({ questions: service.list(parseParams("question.list", p)) }),
    "question.delivered": (p) => service.delivered(parseParams("question.delivered", p)),
    "question.deliveryFailed": (p) => service.deliveryFailed(parseParams("question.deliveryFailed", p)),
    "run.abort": (p) => service.abortRun(parseParams("run.abort", p).runId),
  };

  /**
   * Runs a method and settles only once everything it wrote (or read) is durable: with the store's group commit,
   * a write commits at the end of the event-loop turn, and no response, error or not, may get ahead of it.
   */
  async function dispatch(method: unknown, params: unknown, signal?: Cancellation): Promise<unknown> {
    if (!isMethodName(method)) {
      throw new GatewayError("UNKNOWN_METHOD", `unknown method ${JSON.stringify(String(method)).slice(0, 140)}`);
    }
    try {
      return await handlers[method](params, signal);
    } finally {
      const durable = service.whenDurable();
      if (durable) await durable;
    }
  }

  return Object.assign(dispatch, {
    /** For events: runs `send` once every write so far is durable (false, and not called, when nothing waits). */
    afterDurable: (send: (error?: unknown) => void): boolean => service.afterDurable(send),
  });
}

export type Dispatch = ReturnType<typeof createDispatcher>;

/** Maps any thrown value to a protocol error body; unexpected errors become INTERNAL without internals. */
export function toErrorBody(error: unknown, log?: (message: string, error: unknown) => void) {
  if (error instanceof GatewayError) return error.toBody();
  log?.("internal error", error);
  return { code: "INTERNAL" as const, message: "internal error" };
}
