import { GatewayError } from "../errors.ts";
import { isMethodName, parseParams, type MethodName } from "../protocol/methods.ts";
import type { Cancellation, QuestionService } from "./service.ts";

/** Runs one protocol method against the service. Shared by the WebSocket and the HTTP mirror. */
export function createDispatcher(service: QuestionService) {
  const handlers: { [M in MethodName]: (params: unknown, signal: Cancellation | undefined) => unknown } = {
    "question.request": async (p, signal) => {
      const params = parseParams("question.request", p);
      const { id, expiresAtMs, record } = await service.request(params);
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
    "question.list": async (p) => ({ questions: await service.list(parseParams("question.list", p)) }),
    "question.delivered": (p) => service.delivered(parseParams("question.delivered", p)),
    "question.deliveryFailed": (p) => service.deliveryFailed(parseParams("question.deliveryFailed", p)),
    "question.claimDelivery": (p) => service.claimDelivery(parseParams("question.claimDelivery", p)),
    "run.abort": (p) => service.abortRun(parseParams("run.abort", p).runId),
  };

  /** Runs a method. The service settles a write only once the store has made it durable, so a response never gets ahead of it. */
  return async function dispatch(method: unknown, params: unknown, signal?: Cancellation): Promise<unknown> {
    if (!isMethodName(method)) {
      throw new GatewayError("UNKNOWN_METHOD", `unknown method ${JSON.stringify(String(method)).slice(0, 140)}`);
    }
    return handlers[method](params, signal);
  };
}

export type Dispatch = ReturnType<typeof createDispatcher>;

/** Maps any thrown value to a protocol error body; unexpected errors become INTERNAL without internals. */
export function toErrorBody(error: unknown, log?: (message: string, error: unknown) => void) {
  if (error instanceof GatewayError) return error.toBody();
  log?.("internal error", error);
  return { code: "INTERNAL" as const, message: "internal error" };
}
