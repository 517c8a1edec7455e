import { formatIssues } from "../../kernel/issues.ts";
import { GatewayError } from "../../kernel/errors.ts";
import type { MethodParams } from "../../protocol/methods.ts";
import type { EscalationStep, QuestionRecord, Target } from "../../record/record.ts";
import { escalationDueMs, reminderDueMs, remindersOutstanding, stepsOutstanding } from "../../record/follow-ups.ts";
import type { QuestionStore } from "../store/kit/types.ts";
import { reminderStillUseful } from "../../record/reminder-timing.ts";

/**
 * When nobody answers (issue 20): the follow-up policy a request gets (reminders, escalation steps, the late-answer
 * window), and firing what is due. The store's compare-and-sets make each reminder and each step happen once across
 * instances and restarts; this module decides what is due and announces what it fired.
 */

/** The late-answer window when neither the request nor LATE_ANSWER_SECONDS names one: 24 hours. */
export const DEFAULT_LATE_ANSWER_SECONDS = 24 * 60 * 60;
/** Timeouts shorter than this get no default reminder. */
export const DEFAULT_REMINDER_MIN_TIMEOUT_SECONDS = 120;

/** The gateway's defaults (REMIND_BEFORE_SECONDS, LATE_ANSWER_SECONDS). */
export interface FollowUpDefaults {
  /** Reminder offsets; undefined: one reminder when a third of the timeout is left (none under 2 minutes). */
  reminders?: number[];
  lateAnswerSeconds?: number;
}

/** The default reminders for a timeout: the configured offsets that fit it, else one at a third of the timeout. */
export function defaultReminders(timeoutSeconds: number, configured: number[] | undefined): number[] {
  if (configured) return [...new Set(configured.filter((o) => o >= 1 && o < timeoutSeconds))].sort((a, b) => b - a);
  return timeoutSeconds < DEFAULT_REMINDER_MIN_TIMEOUT_SECONDS ? [] : [Math.round(timeoutSeconds / 3)];
}

type Issue = { path: string; message: string };

/**
 * The follow-up policy of a new question: the request's own (checked against its timeout, and escalation targets
 * against ASK_ALLOWED_TARGETS through `checkTargets`), or the defaults. Throws INVALID_PARAMS naming every problem.
 */
export function followUpPolicy(
  params: Pick<MethodParams<"question.request">, "reminders" | "escalate" | "lateAnswerSeconds">,
  timeoutSeconds: number,
  defaults: FollowUpDefaults,
  checkTargets: (targets: readonly Target[], path: string) => Issue[],
): { reminders: number[]; escalate?: EscalationStep[]; lateAnswerSeconds: number } {
  const issues: Issue[] = [];
  (params.reminders ?? []).forEach((offset, index) => {
    if (offset >= timeoutSeconds) issues.push({ path: `reminders[${index}]`, message: `must be below timeoutSeconds (${timeoutSeconds})` });
  });
  (params.escalate ?? []).forEach((step, index) => {
    if (step.afterSeconds >= timeoutSeconds) {
      issues.push({ path: `escalate[${index}].afterSeconds`, message: `must be below timeoutSeconds (${timeoutSeconds})` });
    }
    issues.push(...checkTargets(step.targets, `escalate[${index}].targets`));
  });
  if (issues.length > 0) throw new GatewayError("INVALID_PARAMS", formatIssues(issues, "; "), { issues });
  const escalate = params.escalate?.length ? params.escalate.map((s) => ({ afterSeconds: s.afterSeconds, targets: s.targets })) : undefined;
  return {
    reminders: params.reminders ?? defaultReminders(timeoutSeconds, defaults.reminders),
    ...(escalate ? { escalate } : {}),
    lateAnswerSeconds: params.lateAnswerSeconds ?? defaults.lateAnswerSeconds ?? DEFAULT_LATE_ANSWER_SECONDS,
  };
}

/** A reminder that no longer helps when it is fired is recorded in `remindersSkipped` and never announced. */
export { LATE_REMINDER_MIN_LEFT_MS, reminderStillUseful } from "../../record/reminder-timing.ts";

export interface FollowUpFiringOptions {
  store: QuestionStore;
  /** Announces a fired reminder or a taken escalation step (the record carries it as the last entry). */
  emit: (event: "question.reminded" | "question.escalated", record: QuestionRecord) => void;
}

/**
 * Fires what is due on one pending record: every escalation step due (each announced as question.escalated), then
 * the reminder due most recently (question.reminded), when it is still useful. Reminders due before it came due
 * while no gateway ran: they are recorded as skipped, so that a person never gets two reminders at once.
 */
export function createFollowUpFiring({ store, emit }: FollowUpFiringOptions) {
  return async function fireDue(record: QuestionRecord, nowMs: number): Promise<void> {
    for (const step of stepsOutstanding(record)) {
      if (escalationDueMs(record, step) > nowMs) continue;
      const taken = await store.markEscalated(record.id, step, nowMs);
      if (taken) emit("question.escalated", taken);
    }
    const due = remindersOutstanding(record).filter((offset) => reminderDueMs(record, offset) <= nowMs);
    for (const [index, offset] of due.entries()) {
      const send = index === due.length - 1 && reminderStillUseful(record, offset, nowMs);
      const marked = await store.markReminder(record.id, offset, nowMs, !send);
      if (marked && send) emit("question.reminded", marked);
    }
  };
}
