import { GatewayError } from "../../kernel/errors.ts";
import { INVALID_MESSAGES, parseReply } from "../../parse/index.ts";
import type { MethodParams, ReplyOutcome } from "../../protocol/index.ts";
import type { QuestionRecord, ResolvedBy } from "../../record/record.ts";
import { checkApprovalAnswer } from "./approvals.ts";
import type { ServiceContext } from "./context.ts";
import { createLateAnswers } from "./late-answers.ts";
import { createReplyKeys } from "./reply-keys.ts";
import { stored } from "./stored.ts";
import { validateAnswers } from "./validate-answers.ts";
import type { Cancellation, WaitOutcome } from "./waiters.ts";

/** Answering: answers and cancels (question.resolve), typed replies, late answers, and the long-polls that wait for them. */
export function createAnswers({ store, now, log, events, holdsKnownSecret, waiters, read, mustGet, finished, known }: ServiceContext) {
  const replyOnce = createReplyKeys({ store, now, log });
  const late = createLateAnswers({ store, now, holdsKnownSecret, finished, announce: (record) => events.emit("question.lateAnswered", record) });

  function notPending(record: QuestionRecord): GatewayError {
    return new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} is already ${record.status}`);
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

  /**
   * The shortcut for a question known here to be pending and not yet due to expire: the answer is checked against
   * its questions and the compare-and-set runs without a read first. Undefined whenever anything is off (unknown, due,
   * an answer that does not validate, a compare-and-set that changed nothing): the full path then decides, and
   * words the refusal, exactly as without the shortcut.
   */
  async function resolveKnown(params: MethodParams<"question.resolve">): Promise<QuestionRecord | undefined> {
    const question = known.get(params.id);
    // An approval's answer is checked against its subject, which only the record has.
    if (!question || question.approval || ("edit" in params && params.edit) || now() >= question.expiresAtMs) return undefined;
    const by = params.by ?? { surface: "api", via: "api" as const };
    let answers: Record<string, string[]> | undefined;
    if ("answers" in params) {
      try {
        answers = validateAnswers(question.questions, params.answers, holdsKnownSecret);
      } catch {
        return undefined;
      }
    }
    const outcome = await stored(
      "cancel" in params
        ? store.resolve(params.id, { status: "cancelled", reason: params.reason, by, resolvedAtMs: now() })
        : store.resolve(params.id, { status: "answered", answers: answers!, by, resolvedAtMs: now() }),
    );
    if (!outcome.ok) return undefined;
    finished(outcome.record);
    return outcome.record;
  }

  /** The compare-and-set of an answer, checked first (and, for an approval, against its subject and the edit). */
  function answer(record: QuestionRecord, params: Extract<MethodParams<"question.resolve">, { answers: unknown }>, by: ResolvedBy) {
    const answers = validateAnswers(record.questions, params.answers, holdsKnownSecret);
    const approvalEdit = checkApprovalAnswer(record, answers, by, params.edit);
    return store.resolve(record.id, { status: "answered", answers, by, resolvedAtMs: now(), ...(approvalEdit ? { approvalEdit } : {}) });
  }

  async function resolveQuestion(params: MethodParams<"question.resolve">): Promise<QuestionRecord> {
    const resolved = await resolveKnown(params);
    if (resolved) return resolved;
    let record = await mustGet(params.id);
    const by = params.by ?? { surface: "api", via: "api" as const };
    if ("answers" in params) {
      record = await late.expiredIfDue(record);
      if (late.windowed(record)) return late.take(record, params.answers, by);
    }
    if (record.status !== "pending") throw refusal(record);
    await refuseIfExpired(record);
    const outcome = await stored("cancel" in params ? store.resolve(record.id, { status: "cancelled", reason: params.reason, by, resolvedAtMs: now() }) : answer(record, params, by));
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
    /** An answer or a cancel; an answer's `messageRef` is taken once (DUPLICATE_REPLY for a re-delivered message). */
    resolve: (params: MethodParams<"question.resolve">): Promise<QuestionRecord> =>
      "answers" in params ? replyOnce(params, () => resolveQuestion(params)) : resolveQuestion(params),

    /** A typed reply (see `reply` above); its `messageRef` is taken once (DUPLICATE_REPLY for a re-delivered message). */
    reply: (params: MethodParams<"question.reply">): Promise<ReplyOutcome> => replyOnce(params, () => reply(params)),

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
