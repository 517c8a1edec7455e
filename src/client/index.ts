import type { AskUserResult } from "../contract/result.ts";
import type { MethodParams } from "../protocol/methods.ts";
import type { ClaimOutcome, ReplyOutcome } from "../protocol/index.ts";
import type { ListPage, ListQuery } from "../protocol/list-filter.ts";
import type { AnswerLink, QuestionRecord, ResolveVia } from "../record/record.ts";
import { GatewayConnection, type ClientEvents, type ConnectOptions } from "./client.ts";
import { listAll, listPages, type CallMethod } from "./list-pages.ts";

export type WaitAnswerPayload = ({ id: string; record: QuestionRecord } & AskUserResult) | { id: string; status: "pending"; expiresAtMs: number };
type In<M extends keyof MethodInputs> = MethodInputs[M];
type ByInput = { surface: string; user?: string; userName?: string; chat?: string; via?: ResolveVia };

/** Params as callers write them (defaults may be omitted). */
interface MethodInputs {
  "question.request": Omit<MethodParams<"question.request">, "questions"> & { questions: unknown };
  "question.resolve":
    | { id: string; answers: Record<string, string | string[]>; by?: ByInput; messageRef?: string }
    | { id: string; cancel: true; reason?: "skipped" | "cancelled" | "aborted"; by?: ByInput };
  "question.delivered": MethodParams<"question.delivered">;
  "question.deliveryFailed": MethodParams<"question.deliveryFailed">;
  "question.copyRendered": MethodParams<"question.copyRendered">;
  "question.claimDelivery": Omit<MethodParams<"question.claimDelivery">, "leaseMs"> & { leaseMs?: number };
  "question.reminderSent": MethodParams<"question.reminderSent">;
}

/** Whose late answers: one session's, or one run's. */
export type LateAnswersFilter = { sessionKey: string; runId?: never } | { runId: string; sessionKey?: never };

/** A record that holds a late answer. */
export type LateAnsweredRecord = QuestionRecord & { lateAnswer: NonNullable<QuestionRecord["lateAnswer"]> };

/** The typed gateway client used by the bots, the CLI, the SDK and MCP. */
export interface GatewayClient {
  readonly connected: boolean;
  on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): () => void;
  call<T = unknown>(method: string, params?: unknown, options?: { timeoutMs?: number }): Promise<T>;
  /** With `links: true`, the payload lists each target's answer link (`links`). */
  request(params: In<"question.request">): Promise<{ id: string; expiresAtMs: number; links?: AnswerLink[] }>;
  waitAnswer(params: { id: string; timeoutMs?: number }): Promise<WaitAnswerPayload>;
  resolve(params: In<"question.resolve">): Promise<QuestionRecord>;
  /** A typed reply, parsed by the gateway's shared parser (partial answers are held with the record). */
  /** `messageRef` (the platform's message id, with `by.chat`): a re-delivered message is refused with DUPLICATE_REPLY. */
  reply(params: { id: string; text: string; by?: ByInput; messageRef?: string }): Promise<ReplyOutcome>;
  get(id: string): Promise<QuestionRecord>;
  /** One page of question.list (`limit` records, default 100, newest first); `listPage` also gives its `nextCursor`. */
  list(query?: ListQuery): Promise<QuestionRecord[]>;
  listPage(query?: ListQuery): Promise<ListPage>;
  /** Every page for `query`, in turn (`limit` is then the page size). */
  pages(query?: ListQuery): AsyncIterable<QuestionRecord[]>;
  /** Every record `query` matches, paged through. */
  listAll(query?: ListQuery): Promise<QuestionRecord[]>;
  delivered(params: In<"question.delivered">): Promise<QuestionRecord>;
  /**
   * `permanent: false` (with `retryAtMs`): the bot will retry; the target shows as retrying with the reason.
   * `sent: true` (with the copy's `messageRef`): the platform took the copy and refused it later, for good; its
   * delivery is withdrawn and the target fails (the asker hears delivery_failed once every chat target has failed).
   */
  deliveryFailed(params: In<"question.deliveryFailed">): Promise<QuestionRecord>;
  /** Records what one delivered copy shows now (an opaque fingerprint, 1..128 characters). */
  copyRendered(params: In<"question.copyRendered">): Promise<QuestionRecord>;
  /** Before sending a copy: whether this claimant may send it (exactly one bot per copy, across processes). */
  claimDelivery(params: In<"question.claimDelivery">): Promise<ClaimOutcome>;
  /** A bot reports the reminder it sent for one copy (idempotent per surface, chat and offset). */
  reminderSent(params: In<"question.reminderSent">): Promise<QuestionRecord>;
  /**
   * Runs `handler` for every late answer this connection hears of: its question.lateAnswered events (part of the
   * default subscription; a connection made with `events: [...]` must list "question.lateAnswered").
   */
  onLateAnswer(handler: (record: LateAnsweredRecord) => void): () => void;
  /** Every record of this session (or run) that holds a late answer, newest late answer first. */
  lateAnswers(filter: LateAnswersFilter): Promise<LateAnsweredRecord[]>;
  abortRun(runId: string): Promise<{ cancelled: string[] }>;
  close(): void;
}

/** Connects to the gateway. Resolves once the first connection is up; reconnects with backoff after that. */
export async function connectGateway(options: ConnectOptions): Promise<GatewayClient> {
  const link = new GatewayConnection(options);
  await link.open();
  const call: CallMethod = (method, params) => link.call(method, params);
  return {
    get connected() {
      return link.connected;
    },
    on: (event, listener) => link.on(event, listener),
    call: (method, params, opts) => link.call(method, params, opts),
    request: (params) => link.call("question.request", params),
    waitAnswer: (params) => link.call("question.waitAnswer", params, { timeoutMs: (params.timeoutMs ?? 60_000) + 15_000 }),
    resolve: (params) => link.call("question.resolve", params),
    reply: (params) => link.call("question.reply", params),
    get: (id) => link.call("question.get", { id }),
    list: async (query = {}) => (await link.call<ListPage>("question.list", query)).questions,
    listPage: (query = {}) => link.call("question.list", query),
    pages: (query) => listPages(call, query),
    listAll: (query) => listAll(call, query),
    delivered: (params) => link.call("question.delivered", params),
    deliveryFailed: (params) => link.call("question.deliveryFailed", params),
    copyRendered: (params) => link.call("question.copyRendered", params),
    claimDelivery: (params) => link.call("question.claimDelivery", params),
    reminderSent: (params) => link.call("question.reminderSent", params),
    onLateAnswer: (handler) =>
      link.on("question.lateAnswered", (record) => {
        if (record.lateAnswer) handler(record as LateAnsweredRecord);
      }),
    lateAnswers: (filter) => lateAnswers({ listAll: (query) => listAll(call, query) }, filter),
    abortRun: (runId) => link.call("run.abort", { runId }),
    close: () => link.close(),
  };
}

/**
 * Every record of one session (or run) that holds a late answer, newest late answer first: `question.list
 * {late: true}`, paged through.
 */
export async function lateAnswers(
  client: { listAll(query?: ListQuery): Promise<QuestionRecord[]> },
  filter: LateAnswersFilter,
): Promise<LateAnsweredRecord[]> {
  const query: ListQuery = { late: true, ...(filter.sessionKey !== undefined ? { sessionKey: filter.sessionKey } : { runId: filter.runId }) };
  return newestLateFirst((await client.listAll(query)).filter((r): r is LateAnsweredRecord => r.lateAnswer !== undefined));
}

/** Records by their late answer, the newest first (question.list {late: true} pages are newest question first). */
export function newestLateFirst<R extends QuestionRecord>(records: readonly R[]): R[] {
  return [...records].sort((a, b) => (b.lateAnswer?.atMs ?? 0) - (a.lateAnswer?.atMs ?? 0));
}

export type { ConnectOptions, ClientEvents };
