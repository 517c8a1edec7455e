import { GatewayError } from "../errors.ts";
import { listPage } from "../protocol/list-filter.ts";
import { isMethodName, parseParams, type MethodName, type MethodParams } from "../protocol/methods.ts";
import { authorizeCall } from "./credentials/policy.ts";
import { ADMIN, type Principal } from "./credentials/principal.ts";
import type { Cancellation, QuestionService } from "./service.ts";

/** Who is calling, and what ends its waits. */
export interface CallContext {
  principal: Principal;
  signal?: Cancellation;
}

type Handlers = { [M in MethodName]: (params: MethodParams<M>, context: CallContext) => unknown };

/** Runs one protocol method against the service. Shared by the WebSocket and the HTTP mirror. */
export function createDispatcher(service: QuestionService) {
  const handlers: Handlers = {
    "question.request": async (params, { signal, principal }) => {
      const { id, expiresAtMs, record } = await service.request(params, principal);
      // With waitMs the asker gets question.waitAnswer's payload (which carries the id) instead.
      return params.waitMs === undefined ? { id, expiresAtMs } : service.waitFor(record, params.waitMs, signal);
    },
    "question.waitAnswer": ({ id, timeoutMs }, { signal }) => service.waitAnswer(id, timeoutMs, signal),
    "question.resolve": (params) => service.resolve(params),
    "question.reply": (params) => service.reply(params),
    "question.get": ({ id }) => service.get(id),
    "question.list": (params) => listPage(params, (filter) => service.list(filter)),
    "question.delivered": (params) => service.delivered(params),
    "question.deliveryFailed": (params) => service.deliveryFailed(params),
    "question.claimDelivery": (params) => service.claimDelivery(params),
    "question.copyRendered": (params) => service.copyRendered(params),
    "question.reminderSent": (params) => service.reminderSent(params),
    "run.abort": ({ runId }) => service.abortRun(runId),
  };

  /**
   * Runs a method: validates its params, checks the caller may make this call (filling in `by` from the credential),
   * and runs it. The service settles a write only once the store has made it durable, so a response never gets
   * ahead of it.
   */
  return async function dispatch(method: unknown, params: unknown, signal?: Cancellation, principal: Principal = ADMIN): Promise<unknown> {
    if (!isMethodName(method)) {
      throw new GatewayError("UNKNOWN_METHOD", `unknown method ${JSON.stringify(String(method)).slice(0, 140)}`);
    }
    return run(method, params, signal ? { principal, signal } : { principal });
  };

  function run<M extends MethodName>(method: M, params: unknown, context: CallContext): unknown {
    const checked = authorizeCall(context.principal, method, parseParams(method, params));
    return (handlers[method] as (params: MethodParams<M>, context: CallContext) => unknown)(checked, context);
  }
}

export type Dispatch = ReturnType<typeof createDispatcher>;

/** Maps any thrown value to a protocol error body; unexpected errors become INTERNAL without internals. */
export function toErrorBody(error: unknown, log?: (message: string, error: unknown) => void) {
  if (error instanceof GatewayError) return error.toBody();
  log?.("internal error", error);
  return { code: "INTERNAL" as const, message: "internal error" };
}
