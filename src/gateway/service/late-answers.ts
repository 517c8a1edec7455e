import { GatewayError } from "../../kernel/errors.ts";
import type { QuestionRecord, ResolvedBy } from "../../record/record.ts";
import { validateAnswers } from "./validate-answers.ts";
import { acceptsLateAnswer, lateRefusal } from "../../record/late-window.ts";
import type { QuestionStore } from "../store/kit/types.ts";
import { stored } from "./stored.ts";

export interface LateAnswersOptions {
  store: QuestionStore;
  now: () => number;
  /** True for text holding one of this deployment's own secrets (the credential filter's known-secret part). */
  holdsKnownSecret: (text: string) => boolean;
  /** A question this module expired: wake its waiters and announce it, as any expiry. */
  finished: (record: QuestionRecord) => void;
  /** Announces a late answer taken. */
  announce: (record: QuestionRecord) => void;
}

/**
 * Late answers (issue 20 §3): an expired question with a late window (`lateUntilMs`) still takes one answer, stored
 * as `lateAnswer` with the status left `expired` (the agent already heard no_answer). Skip and cancel stay refused.
 */
export function createLateAnswers({ store, now, holdsKnownSecret, finished, announce }: LateAnswersOptions) {
  /** A pending question past its expiry, met by an answer before the schedule expired it: it expires now. */
  async function expireNow(record: QuestionRecord): Promise<QuestionRecord> {
    const outcome = await stored(store.resolve(record.id, { status: "expired", reason: "expired", resolvedAtMs: now() }));
    if (!outcome.ok) return outcome.code === "QUESTION_NOT_FOUND" ? record : outcome.record;
    finished(outcome.record);
    return outcome.record;
  }

  /** Why an answer to an expired record is refused, when its late window is the reason; undefined otherwise. */
  function refusal(record: QuestionRecord): GatewayError | undefined {
    const why = record.status === "expired" && record.lateUntilMs !== undefined ? lateRefusal(record, now()) : undefined;
    if (why === "late_answered") return new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} expired and already has a late answer`);
    if (why === "window_closed") {
      const closed = new Date(record.lateUntilMs ?? 0).toISOString();
      return new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} is already expired; its late-answer window closed at ${closed}`);
    }
    return undefined;
  }

  return {
    expireNow,

    /** With a late window, a pending record past expiry is expired first (announced), so an answer is taken late. */
    expiredIfDue(record: QuestionRecord): Promise<QuestionRecord> {
      return record.status === "pending" && now() >= record.expiresAtMs && record.lateAnswerSeconds ? expireNow(record) : Promise.resolve(record);
    },

    /** True when this record takes a late answer now. */
    open: (record: QuestionRecord): boolean => acceptsLateAnswer(record, now()),

    /** True when the record has (or had) a late window, so an answer to it goes through `take`. */
    windowed: (record: QuestionRecord): boolean => record.status === "expired" && record.lateUntilMs !== undefined,

    refusal,

    /**
     * Takes a late answer: validated like any answer (labels, counts, the credential filter), stored once (the first
     * wins), and announced as question.lateAnswered. Returns the record.
     */
    async take(record: QuestionRecord, given: Record<string, string | string[]>, by: ResolvedBy): Promise<QuestionRecord> {
      const answers = validateAnswers(record.questions, given, holdsKnownSecret);
      const outcome = await stored(store.setLateAnswer(record.id, { answers, by, atMs: now() }));
      if (outcome.ok) {
        announce(outcome.record);
        return outcome.record;
      }
      if (outcome.code === "QUESTION_NOT_FOUND") throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${record.id}`);
      throw refusal(outcome.record) ?? new GatewayError("QUESTION_ALREADY_TERMINAL", `question ${record.id} is already ${outcome.record.status}`);
    },
  };
}
