import { GatewayError } from "../../kernel/errors.ts";
import { LIST_MAX_PAGE, listPage, type ListFilter } from "../../protocol/list-filter.ts";
import type { QuestionRecord } from "../../record/record.ts";
import { isMethodName, parseParams, type MethodName, type MethodParams } from "../../protocol/methods.ts";
import { authorizeCall } from "../auth/policy.ts";
import { ADMIN, type Principal } from "../auth/principal.ts";
import { canSee, checkBotMayAct, payloadShownTo, shownTo, visibleTo } from "../auth/scope.ts";
import type { Cancellation, QuestionService } from "../service/service.ts";

/** Who is calling, and what ends its waits. */
export interface CallContext {
  principal: Principal;
  signal?: Cancellation;
}

type Handlers = { [M in MethodName]: (params: MethodParams<M>, context: CallContext) => unknown };

/** Runs one protocol method against the service. Shared by the WebSocket and the HTTP mirror. */
export function createDispatcher(service: QuestionService) {
  /**
   * The record a scoped caller acts on, once it is allowed to: an agent's own questions only (others' are not found),
   * a bot's only with a target on its surface, for the people that target names, a person's only with a `web` or
   * `web:<its name>` target. The admin token and the Control UI's admin session skip the read.
   */
  async function guard(principal: Principal, id: string, act?: { what: "answer" | "cancel"; by: MethodParams<"question.resolve">["by"] }): Promise<void> {
    if (!(principal.kind === "agent" || principal.kind === "person" || (principal.kind === "bot" && act))) return;
    const record = visibleTo(principal, await service.get(id));
    if (act) checkBotMayAct(principal, record, act.by, act.what);
  }
  /**
   * A person's list: the records with a web target (the store's surface filter), of which those it may see, read
   * page by page until `filter.limit` are found or the store has no more, so a page is never short for the records
   * of other people skipped.
   */
  async function listVisible(principal: Principal, filter: ListFilter): Promise<QuestionRecord[]> {
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const found: QuestionRecord[] = [];
    let before = filter.before;
    for (;;) {
      const batch = Math.min(Math.max(limit - found.length, 1), LIST_MAX_PAGE + 1);
      const page = await service.list({ ...filter, surface: filter.surface ?? "web", ...(before ? { before } : {}), limit: batch });
      for (const record of page) if (canSee(principal, record) && found.length < limit) found.push(record);
      const last = page[page.length - 1];
      if (!last || page.length < batch || found.length >= limit) return found;
      before = { createdAtMs: last.createdAtMs, id: last.id };
    }
  }
  /** An agent's runs and lists are its own (runId and sessionKey are per credential). */
  const ownedBy = (principal: Principal) => (principal.kind === "agent" ? principal.credentialId : undefined);

  const handlers: Handlers = {
    "question.request": async (params, { signal, principal }) => {
      const { id, expiresAtMs, record } = await service.request(params, principal);
      // With waitMs the asker gets question.waitAnswer's payload (which carries the id) instead.
      if (params.waitMs !== undefined) return service.waitFor(record, params.waitMs, signal);
      // The answer links, for callers that deliver them themselves (`ask --links`); an agent's only with `links: true`,
      // never an approval's (scope.ts).
      const { links } = shownTo(principal, record);
      return links ? { id, expiresAtMs, links } : { id, expiresAtMs };
    },
    "question.waitAnswer": async ({ id, timeoutMs }, { signal, principal }) => {
      await guard(principal, id);
      return service.waitAnswer(id, timeoutMs, signal);
    },
    "question.resolve": async (params, { principal }) => {
      await guard(principal, params.id, { what: "cancel" in params ? "cancel" : "answer", by: params.by });
      return service.resolve(params);
    },
    "question.reply": async (params, { principal }) => {
      await guard(principal, params.id, { what: "answer", by: params.by });
      return service.reply(params);
    },
    "question.get": async ({ id }, { principal }) => visibleTo(principal, await service.get(id)),
    "question.list": (params, { principal }) => {
      const askedBy = ownedBy(principal);
      if (principal.kind === "person") return listPage(params, (filter) => listVisible(principal, filter));
      return listPage(params, (filter) => service.list(askedBy === undefined ? filter : { ...filter, askedBy }));
    },
    "question.delivered": (params) => service.delivered(params),
    "question.deliveryFailed": (params) => service.deliveryFailed(params),
    "question.claimDelivery": (params) => service.claimDelivery(params),
    "question.copyRendered": (params) => service.copyRendered(params),
    "question.reminderSent": (params) => service.reminderSent(params),
    "run.abort": ({ runId }, { principal }) => service.abortRun(runId, ownedBy(principal)),
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

  async function run<M extends MethodName>(method: M, params: unknown, context: CallContext): Promise<unknown> {
    const checked = authorizeCall(context.principal, method, parseParams(method, params));
    // Each scoped caller is shown only the answer links (and a person only the targets) it may use (scope.ts).
    return payloadShownTo(context.principal, await (handlers[method] as (params: MethodParams<M>, context: CallContext) => unknown)(checked, context));
  }
}

export type Dispatch = ReturnType<typeof createDispatcher>;

/** Maps any thrown value to a protocol error body; unexpected errors become INTERNAL without internals. */
export function toErrorBody(error: unknown, log?: (message: string, error: unknown) => void) {
  if (error instanceof GatewayError) return error.toBody();
  log?.("internal error", error);
  return { code: "INTERNAL" as const, message: "internal error" };
}
