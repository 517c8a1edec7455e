import { randomBytes } from "node:crypto";
import { normalizeAskUserInput } from "../contract/normalize.ts";
import type { AskUserResult } from "../contract/result.ts";
import { GatewayError } from "../errors.ts";
import { recordToResult, type QuestionRecord, type Target } from "../record.ts";
import { formatTarget, isChatTarget } from "../targets.ts";
import { parseReply } from "../parse/index.ts";
import { validateAnswers } from "./answers.ts";
import type { GatewayEventName, ListFilter, MethodParams, ReplyOutcome } from "../protocol/index.ts";
import { createScheduler } from "./scheduler.ts";
import type { QuestionStore } from "./store/types.ts";

export type ServiceListener = (event: GatewayEventName, record: QuestionRecord) => void;

/**
 * What ends a wait early: an AbortSignal (HTTP), or the lighter hook a WebSocket connection gives, which runs its
 * callbacks when the connection closes (an AbortController per request costs more than the rest of a request).
 * `onCancel` returns a function that unregisters the callback.
 */
export type Cancellation = AbortSignal | { onCancel(callback: () => void): () => void };

export type WaitOutcome = ({ id: string } & AskUserResult & { record: QuestionRecord }) | { id: string; status: "pending"; expiresAtMs: number };

export interface QuestionServiceOptions {
  store: QuestionStore;
  now?: () => number;
  /** How long chat targets get to report a delivery before the asker hears `delivery_failed`. */
  deliveryTimeoutMs?: number;
  /** Used when a request names no targets. */
  defaultTargets?: Target[];
  /** Test-only lower clamp for timeoutSeconds; the contract always says 30. */
  minTimeoutSeconds?: number;
  /** The longest a single waitAnswer long-poll may hold. */
  maxWaitMs?: number;
  /**
   * Group commit (default on, where the store offers it): the writes of one event-loop turn share one transaction.
   * Transports must then acknowledge only after `whenDurable` / `afterDurable`, which the dispatcher and the
   * WebSocket connection do, so an acknowledged answer still survives kill -9.
   */
  groupCommit?: boolean;
}

export type QuestionService = ReturnType<typeof createQuestionService>;

/** Question ids: 80 random bits as hex. The random bytes are drawn 256 ids at a time (one syscall, not one per id). */
const ID_BYTES = 10;
let idPool = Buffer.alloc(0);
let idOffset = 0;
function newQuestionId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idOffset = 0;
  }
  const id = `q${idPool.toString("hex", idOffset, idOffset + ID_BYTES)}`;
  idOffset += ID_BYTES;
  return id;
}
const chatKey = (surface: string, chat: string) => `${surface}:${chat}`;

/** The question lifecycle: request, deliver, resolve, expire, abort. Transport-free. */
export function createQuestionService(options: QuestionServiceOptions) {
  const { store } = options;
  const now = options.now ?? Date.now;
  const deliveryTimeoutMs = options.deliveryTimeoutMs ?? 30_000;
  const defaultTargets = options.defaultTargets?.length ? options.defaultTargets : [{ surface: "web" as const }];
  const maxWaitMs = options.maxWaitMs ?? 5 * 60_000;
  const listeners = new Set<ServiceListener>();
  const waiters = new Map<string, Set<(record: QuestionRecord) => void>>();
  /** Questions still waiting for a first chat delivery, in deadline order (the timeout is constant). */
  const deliveryDeadlines = new Map<string, number>();
  const failedChats = new Map<string, Map<string, string>>();
  if (options.groupCommit !== false) store.useGroupCommit?.();

  const scheduler = createScheduler({
    now,
    tick,
    next: () => {
      const expiry = store.nextExpiryMs();
      const delivery = deliveryDeadlines.values().next().value;
      if (expiry === undefined) return delivery;
      return delivery === undefined ? expiry : Math.min(expiry, delivery);
    },
  });

  function emit(event: GatewayEventName, record: QuestionRecord): void {
    for (const listener of listeners) listener(event, record);
  }

  function finished(record: QuestionRecord): void {
    deliveryDeadlines.delete(record.id);
    failedChats.delete(record.id);
    const set = waiters.get(record.id);
    waiters.delete(record.id);
    set?.forEach((wake) => wake(record));
    emit("question.resolved", record);
  }

  function tick(nowMs: number): void {
    for (const record of store.findExpired(nowMs)) {
      const outcome = store.resolve(record.id, { status: "expired", reason: "expired", resolvedAtMs: nowMs });
      if (outcome.ok) finished(outcome.record);
    }
    for (const [id, deadline] of deliveryDeadlines) {
      if (deadline > nowMs) break;
      deliveryDeadlines.delete(id);
      const record = store.get(id);
      if (record?.status === "pending" && !record.deliveries.some((d) => d.surface !== "web")) {
        failDelivery(record, `no connected bot delivered the question within ${Math.round(deliveryTimeoutMs / 1000)} s`);
      }
    }
  }

  function failDelivery(record: QuestionRecord, why: string): void {
    const targets = record.targets.filter(isChatTarget).map(formatTarget).join(", ");
    const failures = [...(failedChats.get(record.id)?.entries() ?? [])].map(([chat, reason]) => `${chat}: ${reason}`);
    const detail = `${why} (targets: ${targets})${failures.length ? `; ${failures.join("; ")}` : ""}`;
    const outcome = store.resolve(record.id, { status: "cancelled", reason: "delivery_failed", detail, resolvedAtMs: now() });
    if (outcome.ok) finished(outcome.record);
  }

  /** Delivery can fail only when every target is a chat (the web UI always shows pending questions). */
  function watchDelivery(record: QuestionRecord): void {
    if (record.status !== "pending" || !record.targets.every(isChatTarget) || record.deliveries.length > 0) return;
    const deadline = now() + deliveryTimeoutMs;
    deliveryDeadlines.set(record.id, deadline);
    scheduler.poke(deadline);
  }

  function mustGet(id: string): QuestionRecord {
    const record = store.get(id);
    if (!record) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${id}`);
    return record;
  }

  function checkTarget(record: QuestionRecord, surface: string, chat: string): void {
    if (!record.targets.some((t) => t.surface === surface && t.chat === chat)) {
      throw new GatewayError("INVALID_PARAMS", `question ${record.id} has no target ${surface}:${chat}`, {
        issues: [{ path: "chat", message: "is not one of the question's targets" }],
      });
    }
  }

  function resolveQuestion(params: MethodParams<"question.resolve">): QuestionRecord {
    const record = mustGet(params.id);
    if (record.status !== "pending") {
      throw new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} is already ${record.status}`);
    }
    const by = params.by ?? { surface: "api", via: "api" as const };
    const outcome =
      "cancel" in params
        ? store.resolve(record.id, { status: "cancelled", reason: params.reason, by, resolvedAtMs: now() })
        : store.resolve(record.id, { status: "answered", answers: validateAnswers(record.questions, params.answers), by, resolvedAtMs: now() });
    if (!outcome.ok) {
      throw new GatewayError(outcome.code, outcome.code === "QUESTION_NOT_FOUND" ? `no question with id ${params.id}` : `question ${params.id} is already terminal`);
    }
    finished(outcome.record);
    return outcome.record;
  }

  return {
    /** Expires what passed its expiry while the gateway was down, and arms the scheduler. */
    start(): void {
      tick(now());
      // Only the questions still waiting for a first chat delivery, not every pending record (100,000 at rest).
      const awaiting = store.pendingAwaitingDelivery?.() ?? store.list({ status: "pending" }).reverse();
      for (const record of awaiting) watchDelivery(record);
      scheduler.arm();
    },

    stop(): void {
      scheduler.stop();
      // Settle every long-poll now (clearing its timer and abort listener): otherwise a connection closing after
      // store.close() reads a closed database (an uncaught TypeError on shutdown), and a waitAnswer timer keeps
      // the stopped process alive for up to maxWaitMs.
      for (const [id, set] of [...waiters]) {
        const record = store.get(id);
        if (record) for (const wake of [...set]) wake(record);
        set.clear();
      }
      waiters.clear();
    },

    /**
     * Runs `callback` once every write made so far is durable (with an error if the commit failed) and returns
     * true; returns false, without calling it, when nothing is waiting to commit (then everything is durable).
     */
    afterDurable(callback: (error?: unknown) => void): boolean {
      return store.afterCommit?.(callback) ?? false;
    },

    /** A promise for `afterDurable`, or undefined when everything written is already durable. */
    whenDurable(): Promise<void> | undefined {
      let settle: ((error?: unknown) => void) | undefined;
      let settled: { error?: unknown } | undefined;
      const waiting = store.afterCommit?.((error) => (settle ? settle(error) : (settled = { error })));
      if (!waiting) return undefined; // the common case for reads: no promise made
      return new Promise<void>((resolve, reject) => {
        settle = (error) => (error === undefined ? resolve() : reject(error));
        if (settled) settle(settled.error);
      });
    },

    subscribe(listener: ServiceListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    request(params: MethodParams<"question.request">): { id: string; expiresAtMs: number; record: QuestionRecord } {
      const { runId, sessionKey, targets, waitMs: _waitMs, ...input } = params;
      const normalized = normalizeAskUserInput(
        input,
        options.minTimeoutSeconds === undefined ? {} : { minTimeoutSeconds: options.minTimeoutSeconds },
      );
      if (!normalized.ok) {
        const lines = normalized.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
        throw new GatewayError("INVALID_PARAMS", `invalid ask_user input: ${lines}`, { issues: normalized.issues });
      }
      if (sessionKey && store.list({ status: "pending", sessionKey, limit: 1 }).length > 0) {
        throw new GatewayError("SESSION_HAS_PENDING_QUESTION", `session ${sessionKey} already has a pending question`);
      }
      const createdAtMs = now();
      const record: QuestionRecord = {
        id: newQuestionId(),
        questions: normalized.value.questions,
        timeoutSeconds: normalized.value.timeoutSeconds,
        status: "pending",
        createdAtMs,
        expiresAtMs: createdAtMs + normalized.value.timeoutSeconds * 1000,
        targets: targets ?? defaultTargets,
        deliveries: [],
        ...(runId ? { runId } : {}),
        ...(sessionKey ? { sessionKey } : {}),
      };
      store.create(record);
      scheduler.poke(record.expiresAtMs);
      watchDelivery(record);
      emit("question.requested", record);
      return { id: record.id, expiresAtMs: record.expiresAtMs, record };
    },

    resolve: resolveQuestion,

    /**
     * A typed reply, parsed by the shared parser against the questions still unanswered. Partial answers are
     * held with the record until the rest arrive; an invalid reply (e.g. a credential) records nothing.
     */
    reply(params: MethodParams<"question.reply">): ReplyOutcome {
      const record = mustGet(params.id);
      if (record.status !== "pending") throw new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} is already ${record.status}`);
      const held = record.partialAnswers ?? {};
      const remaining = record.questions.filter((q) => !Object.hasOwn(held, q.id));
      const outcome = parseReply(remaining, params.text);
      const by = params.by ?? { surface: "api", via: "text" as const };
      if (outcome.kind === "invalid") return outcome;
      if (outcome.kind === "skip") return { kind: "skip", record: resolveQuestion({ id: record.id, cancel: true, reason: "skipped", by }) };
      const answers = { ...held, ...outcome.answers };
      if (outcome.kind === "answered") return { ...outcome, answers, record: resolveQuestion({ id: record.id, answers, by }) };
      const updated = store.savePartial(record.id, answers);
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      emit("question.updated", updated);
      return { ...outcome, answers, record: updated };
    },

    get: mustGet,

    list(filter: ListFilter): QuestionRecord[] {
      return store.list(filter);
    },

    delivered(params: MethodParams<"question.delivered">): QuestionRecord {
      const record = mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      const updated = store.addDelivery(record.id, { surface: params.surface, chat: params.chat, messageRef: params.messageRef, deliveredAtMs: now() });
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      deliveryDeadlines.delete(record.id);
      emit("question.updated", updated);
      return updated;
    },

    /** A bot reports a failed send; when every chat target has failed, the asker hears it at once. */
    deliveryFailed(params: MethodParams<"question.deliveryFailed">): QuestionRecord {
      const record = mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      if (record.status !== "pending" || record.deliveries.length > 0 || !record.targets.every(isChatTarget)) return record;
      const failures = failedChats.get(record.id) ?? new Map<string, string>();
      failures.set(chatKey(params.surface, params.chat), params.reason.slice(0, 300));
      failedChats.set(record.id, failures);
      const everyTargetFailed = record.targets.every((t) => failures.has(chatKey(t.surface, t.chat ?? "")));
      if (everyTargetFailed) failDelivery(record, "every send failed");
      return mustGet(record.id);
    },

    abortRun(runId: string): { cancelled: string[] } {
      const cancelled: string[] = [];
      for (const record of store.list({ status: "pending", runId })) {
        const outcome = store.resolve(record.id, { status: "cancelled", reason: "aborted", by: { surface: "api", via: "api" }, resolvedAtMs: now() });
        if (outcome.ok) {
          cancelled.push(record.id);
          finished(outcome.record);
        }
      }
      return { cancelled };
    },

    /** A long-poll: resolves with the result once terminal, or `pending` after timeoutMs. */
    waitAnswer(id: string, timeoutMs = 60_000, signal?: Cancellation): Promise<WaitOutcome> {
      return waitFor(mustGet(id), timeoutMs, signal);
    },

    /** waitAnswer for a record already in hand (question.request with waitMs). */
    waitFor,
  };

  /** A long-poll on a record in hand: resolves with the result once terminal, or `pending` after timeoutMs. */
  function waitFor(record: QuestionRecord, timeoutMs = 60_000, signal?: Cancellation): Promise<WaitOutcome> {
    const id = record.id;
    const toOutcome = (r: QuestionRecord): WaitOutcome => {
      const result = recordToResult(r);
      return result ? { id: r.id, ...result, record: r } : { id: r.id, status: "pending", expiresAtMs: r.expiresAtMs };
    };
    if (record.status !== "pending" || timeoutMs <= 0) return Promise.resolve(toOutcome(record));
    return new Promise((resolve) => {
      const set = waiters.get(id) ?? new Set();
      waiters.set(id, set);
      let unregister: (() => void) | undefined;
      const done = (r: QuestionRecord) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && waiters.get(id) === set) waiters.delete(id);
        unregister?.();
        resolve(toOutcome(r));
      };
      const onAbort = () => done(store.get(id) ?? record);
      const timer = setTimeout(() => done(store.get(id) ?? record), Math.min(timeoutMs, maxWaitMs));
      set.add(done);
      if (signal instanceof AbortSignal) {
        signal.addEventListener("abort", onAbort, { once: true });
        unregister = () => signal.removeEventListener("abort", onAbort);
      } else if (signal) {
        unregister = signal.onCancel(onAbort);
      }
    });
  }
}
