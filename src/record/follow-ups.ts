import type { LateAnswer, QuestionRecord, ReminderCopy, Target } from "./record.ts";
import { lateRefusal } from "./late-window.ts";

/**
 * What happens to a question after it was asked and before (or just after) it ends, as pure functions every store
 * applies the same way: reminders, escalation steps, reminder copies and the late answer. Each `apply…` returns the
 * changed record, or undefined when the change does not apply (already done, not pending, out of its window): the
 * stores run them as compare-and-sets.
 */

/** When the reminder at `offsetSeconds` comes due. */
export const reminderDueMs = (record: QuestionRecord, offsetSeconds: number): number => record.expiresAtMs - offsetSeconds * 1000;

/** When escalation step `step` comes due. */
export const escalationDueMs = (record: QuestionRecord, step: number): number =>
  record.createdAtMs + (record.escalate?.[step]?.afterSeconds ?? Number.POSITIVE_INFINITY) * 1000;

const reminderDone = (record: QuestionRecord, offsetSeconds: number): boolean =>
  (record.remindersSent ?? []).some((r) => r.offsetSeconds === offsetSeconds) ||
  (record.remindersSkipped ?? []).some((r) => r.offsetSeconds === offsetSeconds);

const stepTaken = (record: QuestionRecord, step: number): boolean => (record.escalated ?? []).some((e) => e.step === step);

/** The reminders (offsets) not fired or skipped yet, soonest due first. */
export function remindersOutstanding(record: QuestionRecord): number[] {
  return (record.reminders ?? []).filter((offset) => !reminderDone(record, offset)).sort((a, b) => b - a);
}

/** The escalation steps (indexes) not taken yet. */
export function stepsOutstanding(record: QuestionRecord): number[] {
  return (record.escalate ?? []).flatMap((_, step) => (stepTaken(record, step) ? [] : [step]));
}

/** The next moment a pending record has a reminder or an escalation step due, or undefined when it has none left. */
export function nextFollowUpMs(record: QuestionRecord): number | undefined {
  if (record.status !== "pending") return undefined;
  const times = [
    ...remindersOutstanding(record).map((offset) => reminderDueMs(record, offset)),
    ...stepsOutstanding(record).map((step) => escalationDueMs(record, step)),
  ];
  return times.length > 0 ? Math.min(...times) : undefined;
}

/**
 * Marks the reminder at `offsetSeconds` fired (or, with `skipped`, passed over: it came due while no gateway ran,
 * and was no longer useful). Only on a pending record, for an offset of its policy, once.
 */
export function applyReminder(record: QuestionRecord, offsetSeconds: number, atMs: number, skipped = false): QuestionRecord | undefined {
  if (record.status !== "pending" || !(record.reminders ?? []).includes(offsetSeconds) || reminderDone(record, offsetSeconds)) return undefined;
  const entry = { offsetSeconds, atMs };
  return skipped
    ? { ...record, remindersSkipped: [...(record.remindersSkipped ?? []), entry] }
    : { ...record, remindersSent: [...(record.remindersSent ?? []), entry] };
}

const sameTarget = (a: Target, b: Target): boolean => a.surface === b.surface && a.chat === b.chat;

/** Takes escalation step `step` on a pending record, once: its targets join `targets` (a target already there is skipped). */
export function applyEscalation(record: QuestionRecord, step: number, atMs: number): QuestionRecord | undefined {
  const policy = record.escalate?.[step];
  if (record.status !== "pending" || !policy || stepTaken(record, step)) return undefined;
  const targets = [...record.targets];
  for (const target of policy.targets) if (!targets.some((t) => sameTarget(t, target))) targets.push(target);
  return {
    ...record,
    targets,
    escalated: [...(record.escalated ?? []), { step, afterSeconds: policy.afterSeconds, targets: policy.targets, atMs }],
  };
}

/** Records a reminder message a bot sent; a repeat for the same (surface, chat, offset) keeps the first. */
export function applyReminderCopy(record: QuestionRecord, copy: ReminderCopy): QuestionRecord | undefined {
  const copies = record.reminderCopies ?? [];
  if (copies.some((c) => c.surface === copy.surface && c.chat === copy.chat && c.offsetSeconds === copy.offsetSeconds)) return undefined;
  return { ...record, reminderCopies: [...copies, copy] };
}

/** Stores the late answer on an expired record within its window (src/record/late-window.ts), once (the first wins). The status stays expired. */
export function applyLateAnswer(record: QuestionRecord, late: LateAnswer): QuestionRecord | undefined {
  if (lateRefusal(record, late.atMs) !== undefined) return undefined;
  const { partialAnswers: _held, ...rest } = record;
  return { ...rest, lateAnswer: late };
}
