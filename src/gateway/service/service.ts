import { formatIssues } from "../../kernel/issues.ts";
import { randomBytes } from "node:crypto";
import { normalizeAskUserInput } from "../../contract/normalize.ts";
import { GatewayError } from "../../kernel/errors.ts";
import type { QuestionRecord, Target, TargetState } from "../../record/record.ts";
import { formatTarget, isChatTarget } from "../../record/targets.ts";
import { createKnownSecretMatcher, INVALID_MESSAGES, parseReply } from "../../parse/index.ts";
import type { GatewayEventName, ListFilter, MethodParams, ReplyOutcome } from "../../protocol/index.ts";
import { validateAnswers } from "./validate-answers.ts";
import { ADMIN, type Principal } from "../credentials/principal.ts";
import { createDeadlines } from "./deadlines.ts";
import { describeTargets, everyChatTargetFailed, queuedUntil } from "./delivery-states.ts";
import { createFollowUpFiring, followUpPolicy, type FollowUpDefaults } from "./follow-ups.ts";
import { nextFollowUpMs } from "../store/kit/follow-ups.ts";
import { createReplyKeys } from "./reply-keys.ts";
import { createLateAnswers } from "./late-answers.ts";
import { stored } from "./stored.ts";
import type { ClaimOutcome, QuestionStore, StoreChange } from "../store/kit/types.ts";
import { createWaiters, type Cancellation, type WaitOutcome } from "./waiters.ts";

export type { Cancellation, WaitOutcome } from "./waiters.ts";

/** `remote`: another instance committed the change (a shared store), or a resync announces it again. */
export type ServiceListener = (event: GatewayEventName, record: QuestionRecord, remote?: boolean) => void;

/** Where the service's events leave: the transports (WebSocket connections) subscribe to it. */
export interface EventPort {
  emit(event: GatewayEventName, record: QuestionRecord, remote?: boolean): void;
}

/** A simple in-process event port: every subscriber gets every event, in order. */
export function createEventHub() {
  const listeners = new Set<ServiceListener>();
  return {
    emit(event: GatewayEventName, record: QuestionRecord, remote = false): void {
      for (const listener of listeners) listener(event, record, remote);
    },
    subscribe(listener: ServiceListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export interface QuestionServiceOptions {
  store: QuestionStore;
  /** Where events go; default: a fresh hub (see `subscribe`). */
  events?: ReturnType<typeof createEventHub>;
  now?: () => number;
  /** How long chat targets get to report a delivery before the asker hears `delivery_failed`. */
  deliveryTimeoutMs?: number;
  /** Used when a request names no targets. */
  defaultTargets?: Target[];
  /** When set, every target a request names (or the defaults) must be one of these (ASK_ALLOWED_TARGETS). */
  allowedTargets?: Target[];
  /** Pending questions one run may hold, for callers other than the admin credential (ASK_MAX_PENDING_PER_RUN). */
  maxPendingPerRun?: number;
  /** Pending questions one scoped agent credential may hold (ASK_MAX_PENDING_PER_CREDENTIAL). */
  maxPendingPerCredential?: number;
  /** Default reminders (REMIND_BEFORE_SECONDS) and late-answer window (LATE_ANSWER_SECONDS). */
  followUpDefaults?: FollowUpDefaults;
  /** Test-only lower clamp for timeoutSeconds; the contract always says 30. */
  minTimeoutSeconds?: number;
  /** The longest a single waitAnswer long-poll may hold. */
  maxWaitMs?: number;
  /** This deployment's own secrets (gateway token, bot tokens, signing secrets): no answer or reply may contain one. */
  knownSecrets?: readonly (string | undefined)[];
  log?: (message: string, error?: unknown) => void;
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
/** After the change feed comes back, questions resolved this recently are announced again. */
const RESYNC_LOOKBACK_MS = 10 * 60_000;

/**
 * The question lifecycle: request, deliver, resolve, reply, expire, abort. Transport-free. Built from three parts:
 * the store (durable, shared by every instance), the deadlines (expiry, reminders, escalation steps, late windows and
 * the delivery watch on one schedule) and the waiters (long-polls); follow-ups.ts and late-answers.ts hold the
 * policies for when nobody answers. Events leave through the event port, only after the write they announce is durable.
 */
export function createQuestionService(options: QuestionServiceOptions) {
  const { store } = options;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const deliveryTimeoutMs = options.deliveryTimeoutMs ?? 30_000;
  const defaultTargets = options.defaultTargets?.length ? options.defaultTargets : [{ surface: "web" as const }];
  const events = options.events ?? createEventHub();
  const holdsKnownSecret = createKnownSecretMatcher(options.knownSecrets ?? []);
  const unsubscribe: Array<() => void> = [];

  const read = (id: string) => stored(store.get(id));
  const waiters = createWaiters({ maxWaitMs: options.maxWaitMs ?? 5 * 60_000, read });
  const fireFollowUps = createFollowUpFiring({
    store,
    emit(event, record) {
      // An escalation step's new chat targets are watched like the first ones (while nothing is delivered).
      if (event === "question.escalated") deadlines.watchDelivery(record);
      events.emit(event, record);
    },
  });
  const deadlines = createDeadlines({
    store,
    now,
    deliveryTimeoutMs,
    onExpired: finished,
    onDeliveryOverdue,
    onFollowUpDue: fireFollowUps,
    // Bots re-render the copies to the final "expired" summary; nothing is stored for it.
    onLateWindowEnded: (record) => events.emit("question.updated", record),
    onError: (error) => log("deadline check failed", error),
  });

  /** A question resolved (here, or on another instance): wake its waiters and announce it. */
  function finished(record: QuestionRecord, remote = false): void {
    deadlines.forget(record.id);
    deadlines.followUpAt(record.lateUntilMs);
    waiters.wake(record);
    events.emit("question.resolved", record, remote);
  }

  /** Another instance committed a change: follow it as if it happened here. */
  async function onRemoteChange(change: StoreChange): Promise<void> {
    const record = await store.get(change.id);
    if (!record) return;
    if (change.event === "question.lateAnswered") return events.emit("question.lateAnswered", record, true);
    // Each change is announced once: a question resolved before this instance read its "requested" (or "updated")
    // change is announced by the "resolved" change that follows it, never twice.
    if (record.status !== "pending") {
      if (change.event === "question.resolved") return finished(record, true);
      // In a late window an expired question still changes (a late partial reply, a reminder reply reported).
      if (change.event === "question.updated" && record.lateUntilMs !== undefined) events.emit("question.updated", record, true);
      return;
    }
    if (change.event === "question.requested") {
      deadlines.expiresAt(record.expiresAtMs);
      deadlines.followUpAt(nextFollowUpMs(record));
      deadlines.watchDelivery(record);
    } else if (record.deliveries.length > 0) {
      deadlines.forget(record.id);
    }
    const event = change.event === "question.resolved" ? "question.updated" : change.event;
    events.emit(event, record, true);
  }

  /**
   * The change feed was down: what other instances did meanwhile was never announced, so read it again and announce
   * it here. Every pending question goes out again as `question.requested` (bots and pages treat a repeat as a
   * no-op), and every question resolved recently as `question.resolved`; waiters end, and the schedule re-arms.
   */
  async function resync(): Promise<void> {
    for (const id of waiters.ids()) {
      const record = await store.get(id);
      if (record && record.status !== "pending") finished(record, true);
    }
    const since = now() - RESYNC_LOOKBACK_MS;
    for (let before: { createdAtMs: number; id: string } | undefined, pages = 0; pages < 100; pages++) {
      const page = await store.list({ limit: 500, ...(before ? { before } : {}) });
      for (const record of page) {
        if (record.status === "pending") {
          deadlines.watchDelivery(record);
          events.emit("question.requested", record, true);
        } else if ((record.resolvedAtMs ?? 0) >= since) {
          finished(record, true);
        }
      }
      const last = page[page.length - 1];
      // Records are newest first: once a page is older than the lookback and holds nothing pending, stop.
      if (!last || page.length < 500 || (last.createdAtMs < since - 60 * 60_000 && !page.some((r) => r.status === "pending"))) break;
      before = { createdAtMs: last.createdAtMs, id: last.id };
    }
    await deadlines.start();
  }

  /** Ends a question `delivery_failed`, its detail naming each undelivered target's state and reason. */
  async function failDelivery(record: QuestionRecord, why: string): Promise<void> {
    const targets = record.targets.filter(isChatTarget).map(formatTarget).join(", ");
    const detail = [`${why} (targets: ${targets})`, ...describeTargets(record)].join("; ").slice(0, 4_000);
    const outcome = await stored(store.resolve(record.id, { status: "cancelled", reason: "delivery_failed", detail, resolvedAtMs: now() }));
    if (outcome.ok) finished(outcome.record);
  }

  /**
   * The delivery deadline passed with no chat copy delivered. "Queued" is not "cannot send": when a bot holds a live
   * claim on a copy (it is sending, or waiting its turn behind the platform's rate limit, renewing the claim), look
   * again when that lease ends. Otherwise the question ends `delivery_failed`, naming each target's state.
   */
  async function onDeliveryOverdue(id: string): Promise<void> {
    const record = await store.get(id);
    if (record?.status !== "pending" || record.deliveries.some((d) => d.surface !== "web")) return;
    const until = queuedUntil(record, await store.liveClaims(id, now()));
    if (until !== undefined) return deadlines.recheckDelivery(id, until);
    // The targets' states follow (each bot's reason, or "no bot reported on it"), so the cause is named, not guessed.
    await failDelivery(record, `not delivered within ${Math.round(deliveryTimeoutMs / 1000)} s`);
  }

  /** Why an answer to a record that is not pending is refused (its late window, when it had one). */
  function refusal(record: QuestionRecord): GatewayError {
    return late.refusal(record) ?? notPending(record);
  }

  /**
   * An answer at or past the question's expiry is late: the question expires now (the store's compare-and-set, then
   * the usual announcement) and the answer is refused.
   */
  async function refuseIfExpired(record: QuestionRecord): Promise<void> {
    const nowMs = now();
    if (record.status !== "pending" || nowMs < record.expiresAtMs) return;
    await late.expireNow(record);
    const over = nowMs - record.expiresAtMs;
    throw new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} expired ${over} ms before this answer (at ${new Date(record.expiresAtMs).toISOString()})`);
  }

  async function mustGet(id: string): Promise<QuestionRecord> {
    const record = await read(id);
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

  /** With ASK_ALLOWED_TARGETS, the targets (at `path`) that are not listed there. */
  function allowedTargetIssues(targets: readonly Target[], path: string): Array<{ path: string; message: string }> {
    const allowed = options.allowedTargets;
    if (!allowed?.length) return [];
    return targets.flatMap((target, index) =>
      allowed.some((a) => a.surface === target.surface && (a.chat === undefined || a.chat === target.chat))
        ? []
        : [{ path: `${path}.${index}`, message: `${formatTarget(target)} is not in ASK_ALLOWED_TARGETS` }],
    );
  }

  /** With ASK_ALLOWED_TARGETS, a request may only reach the chats listed there (any users within them). */
  function checkAllowedTargets(targets: readonly Target[]): void {
    const issues = allowedTargetIssues(targets, "targets");
    if (issues.length > 0) throw new GatewayError("INVALID_PARAMS", formatIssues(issues, "; "), { issues });
  }

  function notPending(record: QuestionRecord): GatewayError {
    return new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} is already ${record.status}`);
  }

  /** A scoped agent's pending quotas (its records carry `askedBy`; the admin's have none and are not limited). */
  const pendingLimits = {
    ...(options.maxPendingPerRun !== undefined ? { perRun: options.maxPendingPerRun } : {}),
    ...(options.maxPendingPerCredential !== undefined ? { perCredential: options.maxPendingPerCredential } : {}),
  };

  const replyOnce = createReplyKeys({ store, now, log });
  const late = createLateAnswers({ store, now, holdsKnownSecret, finished, announce: (record) => events.emit("question.lateAnswered", record) });

  async function resolveQuestion(params: MethodParams<"question.resolve">): Promise<QuestionRecord> {
    let record = await mustGet(params.id);
    const by = params.by ?? { surface: "api", via: "api" as const };
    if ("answers" in params) {
      record = await late.expiredIfDue(record);
      if (late.windowed(record)) return late.take(record, params.answers, by);
    }
    if (record.status !== "pending") throw refusal(record);
    await refuseIfExpired(record);
    const outcome = await stored(
      "cancel" in params
        ? store.resolve(record.id, { status: "cancelled", reason: params.reason, by, resolvedAtMs: now() })
        : store.resolve(record.id, { status: "answered", answers: validateAnswers(record.questions, params.answers, holdsKnownSecret), by, resolvedAtMs: now() }),
    );
    if (!outcome.ok) {
      throw new GatewayError(outcome.code, outcome.code === "QUESTION_NOT_FOUND" ? `no question with id ${params.id}` : `question ${params.id} is already terminal`);
    }
    finished(outcome.record);
    return outcome.record;
  }

  /**
   * A typed reply, parsed by the shared parser against the questions still unanswered. Partial answers are merged
   * into those held with the record (in the store, so concurrent replies never lose each other's) until the rest
   * arrive; an invalid reply (e.g. a credential) records nothing.
   */
  async function reply(params: MethodParams<"question.reply">): Promise<ReplyOutcome> {
    const record = await late.expiredIfDue(await mustGet(params.id));
    // Within a late window an expired question takes a reply as a late answer (a skip is still refused).
    const lateReply = late.open(record);
    if (record.status !== "pending" && !lateReply) throw refusal(record);
    if (!lateReply) await refuseIfExpired(record);
    // Refused before parsing, so that no part of it is held as a partial answer either.
    if (holdsKnownSecret(params.text)) return { kind: "invalid", reason: "credential", message: INVALID_MESSAGES.credential };
    const held = record.partialAnswers ?? {};
    // Numbers keep their first meaning: `3: GitHub` after `1: Staging` answers question 3, never question 2.
    const outcome = parseReply(record.questions, params.text, { answered: Object.keys(held) });
    const by = params.by ?? { surface: "api", via: "text" as const };
    if (outcome.kind === "invalid") return outcome;
    if (outcome.kind === "skip") {
      if (lateReply) throw new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} is already expired: a late reply may answer it, not skip it`);
      return { kind: "skip", record: await resolveQuestion({ id: record.id, cancel: true, reason: "skipped", by }) };
    }
    if (outcome.kind === "answered") {
      const answers = { ...held, ...outcome.answers };
      return { ...outcome, answers, record: await resolveQuestion({ id: record.id, answers, by }) };
    }
    const updated = await stored(store.mergePartial(record.id, outcome.answers, lateReply ? { lateAtMs: now() } : {}));
    if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
    if (updated.status !== "pending" && !(lateReply && late.open(updated))) throw refusal(updated);
    const answers = updated.partialAnswers ?? {};
    // Another reply, merged at the same moment, may have supplied the rest.
    if (updated.questions.every((q) => Object.hasOwn(answers, q.id))) {
      return { ...outcome, kind: "answered", answers, record: await resolveQuestion({ id: record.id, answers, by }) };
    }
    events.emit("question.updated", updated);
    return { ...outcome, answers, record: updated };
  }

  return {
    /** Expires what passed its expiry while the gateway was down, watches deliveries, and arms the schedule. */
    async start(): Promise<void> {
      for (;;) {
        const expired = await store.expireDue(now(), 500);
        for (const record of expired) finished(record);
        if (expired.length < 500) break;
      }
      // Only the questions still waiting for a first chat delivery, not every pending record (100,000 at rest).
      for (const record of await store.pendingAwaitingDelivery()) deadlines.watchDelivery(record);
      const follow = store.onRemoteChange?.((change) => {
        onRemoteChange(change).catch((error) => log(`could not follow ${change.event} ${change.id}`, error));
      });
      const resynced = store.onResync?.(() => void resync().catch((error) => log("could not catch up with the store", error)));
      for (const off of [follow, resynced]) if (off) unsubscribe.push(off);
      await deadlines.start();
    },

    stop(): void {
      for (const off of unsubscribe.splice(0)) off();
      deadlines.stop();
      // Settle every long-poll now: a waitAnswer timer must not keep a stopped process alive for up to maxWaitMs.
      waiters.endAll();
    },

    /** Subscribes to the default event hub (when no `events` port was injected, or it is a hub). */
    subscribe: (listener: ServiceListener): (() => void) => events.subscribe(listener),

    async request(params: MethodParams<"question.request">, asker: Principal = ADMIN): Promise<{ id: string; expiresAtMs: number; record: QuestionRecord }> {
      const { runId, sessionKey, targets, waitMs: _waitMs, reminders: _reminders, escalate: _escalate, lateAnswerSeconds: _late, ...input } = params;
      const normalized = normalizeAskUserInput(
        input,
        options.minTimeoutSeconds === undefined ? {} : { minTimeoutSeconds: options.minTimeoutSeconds },
      );
      if (!normalized.ok) {
        const lines = formatIssues(normalized.issues, "; ");
        throw new GatewayError("INVALID_PARAMS", `invalid ask_user input: ${lines}`, { issues: normalized.issues });
      }
      const chosenTargets = targets ?? defaultTargets;
      checkAllowedTargets(chosenTargets);
      const policy = followUpPolicy(params, normalized.value.timeoutSeconds, options.followUpDefaults ?? {}, allowedTargetIssues);
      const askedBy = asker.kind === "agent" ? asker.credentialId : undefined;
      const createdAtMs = now();
      const record: QuestionRecord = {
        id: newQuestionId(),
        questions: normalized.value.questions,
        timeoutSeconds: normalized.value.timeoutSeconds,
        status: "pending",
        createdAtMs,
        expiresAtMs: createdAtMs + normalized.value.timeoutSeconds * 1000,
        targets: chosenTargets,
        deliveries: [],
        reminders: policy.reminders,
        ...(policy.escalate ? { escalate: policy.escalate } : {}),
        ...(policy.lateAnswerSeconds > 0 ? { lateAnswerSeconds: policy.lateAnswerSeconds } : {}),
        ...(runId ? { runId } : {}),
        ...(sessionKey ? { sessionKey } : {}),
        ...(askedBy ? { askedBy } : {}),
      };
      // The store refuses a second pending question for one session (SessionBusyError), and a scoped agent's
      // question past its quotas (QuotaExceededError, counted and inserted under one lock), across instances too.
      await stored(store.create(record, pendingLimits));
      deadlines.expiresAt(record.expiresAtMs);
      deadlines.followUpAt(nextFollowUpMs(record));
      deadlines.watchDelivery(record);
      events.emit("question.requested", record);
      return { id: record.id, expiresAtMs: record.expiresAtMs, record };
    },

    /** An answer or a cancel; an answer's `messageRef` is taken once (DUPLICATE_REPLY for a re-delivered message). */
    resolve: (params: MethodParams<"question.resolve">): Promise<QuestionRecord> =>
      "answers" in params ? replyOnce(params, () => resolveQuestion(params)) : resolveQuestion(params),

    /** A typed reply (see `reply` above); its `messageRef` is taken once (DUPLICATE_REPLY for a re-delivered message). */
    reply: (params: MethodParams<"question.reply">): Promise<ReplyOutcome> => replyOnce(params, () => reply(params)),

    get: mustGet,

    list(filter: ListFilter): Promise<QuestionRecord[]> {
      return stored(store.list(filter));
    },

    async delivered(params: MethodParams<"question.delivered">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      const delivery = {
        surface: params.surface,
        chat: params.chat,
        messageRef: params.messageRef,
        deliveredAtMs: now(),
        ...(params.rendered !== undefined ? { rendered: params.rendered } : {}),
      };
      const updated = await stored(store.addDelivery(record.id, delivery));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      deadlines.forget(record.id);
      events.emit("question.updated", updated);
      return updated;
    },

    /**
     * A bot reports a failed send. Permanent (the default): the target is `failed`, and when every chat target has
     * failed with nothing delivered the asker hears `delivery_failed` at once. Not permanent: the target is
     * `retrying`, with the reason, and the bot tries again; this never ends the question by itself.
     */
    async deliveryFailed(params: MethodParams<"question.deliveryFailed">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      const delivered = record.deliveries.some((d) => d.surface === params.surface && d.chat === params.chat);
      if (record.status !== "pending" || delivered) return record;
      const state: TargetState = {
        surface: params.surface,
        chat: params.chat,
        state: params.permanent === false ? "retrying" : "failed",
        reason: params.reason.slice(0, 300),
        atMs: now(),
        ...(params.retryAtMs !== undefined && params.permanent === false ? { retryAtMs: params.retryAtMs } : {}),
      };
      const updated = await stored(store.setTargetState(record.id, state));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      if (updated.status !== "pending") return updated;
      if (everyChatTargetFailed(updated)) {
        await failDelivery(updated, "every send failed");
        return mustGet(record.id);
      }
      events.emit("question.updated", updated);
      return updated;
    },

    /** A bot records what one delivered copy shows now: bookkeeping, so no event. */
    async copyRendered(params: MethodParams<"question.copyRendered">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      const updated = await stored(store.setRendered(record.id, params.surface, params.chat, params.rendered));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      return updated;
    },

    /**
     * A bot reports the reminder message it sent for one copy: kept in `reminderCopies` (once per surface, chat and
     * offset), so no bot sends it again and it can be cleaned up after the answer. Announced as question.updated.
     */
    async reminderSent(params: MethodParams<"question.reminderSent">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      if (!(record.reminders ?? []).includes(params.offsetSeconds)) {
        throw new GatewayError("INVALID_PARAMS", `question ${record.id} has no reminder at ${params.offsetSeconds} s before expiry`, {
          issues: [{ path: "offsetSeconds", message: "is not one of the question's reminders" }],
        });
      }
      const copy = { surface: params.surface, chat: params.chat, offsetSeconds: params.offsetSeconds, messageRef: params.messageRef, sentAtMs: now() };
      const before = (record.reminderCopies ?? []).length;
      const updated = await stored(store.addReminderCopy(record.id, copy));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      if ((updated.reminderCopies ?? []).length > before) events.emit("question.updated", updated);
      return updated;
    },

    /** A bot asks to send one copy: exactly one bot gets it, until it reports the delivery or its lease lapses. */
    claimDelivery(params: MethodParams<"question.claimDelivery">): Promise<ClaimOutcome> {
      return stored(store.claimDelivery({ ...params, nowMs: now() }));
    },

    /** Cancels a run's pending questions (`aborted`); with `askedBy`, only that agent credential's run of that id. */
    async abortRun(runId: string, askedBy?: string): Promise<{ cancelled: string[] }> {
      const cancelled: string[] = [];
      for (const record of await stored(store.list({ status: "pending", runId, ...(askedBy === undefined ? {} : { askedBy }) }))) {
        const outcome = await stored(store.resolve(record.id, { status: "cancelled", reason: "aborted", by: { surface: "api", via: "api" }, resolvedAtMs: now() }));
        if (outcome.ok) {
          cancelled.push(record.id);
          finished(outcome.record);
        }
      }
      return { cancelled };
    },

    /** A long-poll: resolves with the result once terminal, or `pending` after timeoutMs. */
    async waitAnswer(id: string, timeoutMs = 60_000, signal?: Cancellation): Promise<WaitOutcome> {
      const record = await mustGet(id);
      const waiting = waiters.wait(record, timeoutMs, signal);
      if (record.status === "pending" && store.onRemoteChange) {
        // On a shared store the question may have resolved on another instance between the read and the wait.
        const latest = await read(id);
        if (latest && latest.status !== "pending") waiters.wake(latest);
      }
      return waiting;
    },

    /** waitAnswer for a record already in hand (question.request with waitMs). */
    waitFor: (record: QuestionRecord, timeoutMs?: number, signal?: Cancellation): Promise<WaitOutcome> => waiters.wait(record, timeoutMs, signal),
  };
}
