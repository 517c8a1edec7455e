/**
 * What happened to a question after it was asked, for the Control UI's timeline and panel (issue 20): the reminders
 * the gateway fired, the escalation steps it took, and the expiry a late answer came after. Pure and zod-free: the
 * page runs it from its bundle (src/web/browser-shared.ts), the words coming from src/render as everywhere else.
 */
import type { QuestionRecord, Target } from "../record/record.ts";
import { formatTimeLeft, REMINDER_ICON } from "../render/reminder.ts";
import { SUMMARY_ICONS } from "../render/summary.ts";
import { whereAnswered } from "../platforms/surfaces.ts";

export const ESCALATED_ICON = "↗";

/** One line of a record's history: "⏰ Reminder sent — 5 min left", at `atMs`. */
export interface HistoryLine {
  kind: "reminder" | "escalation" | "expired";
  icon: string;
  text: string;
  atMs: number;
}

/** A reminder moment on the time bar: when it comes due, and whether the gateway fired it. */
export interface ReminderMark {
  offsetSeconds: number;
  atMs: number;
  sent: boolean;
}

type HistoryFields = Pick<QuestionRecord, "status" | "remindersSent" | "escalated" | "lateAnswer" | "resolvedAtMs" | "expiresAtMs">;

/** "in <platform> (CHAT)", "on the web". */
export function describeTarget(target: Target): string {
  const where = whereAnswered(target.surface) ?? `in ${target.surface}`;
  return target.chat ? `${where} (${target.chat})` : where;
}

/**
 * The reminders sent and the escalation steps taken, oldest first; and, when a late answer came, the expiry before
 * it (the summary itself is the late answer). Empty for a record nothing happened to.
 */
export function recordHistory(record: HistoryFields): HistoryLine[] {
  const lines: HistoryLine[] = [
    ...(record.remindersSent ?? []).map((sent) => ({
      kind: "reminder" as const,
      icon: REMINDER_ICON,
      text: `Reminder sent — ${formatTimeLeft(sent.offsetSeconds * 1000)} left`,
      atMs: sent.atMs,
    })),
    ...(record.escalated ?? []).map((step) => ({
      kind: "escalation" as const,
      icon: ESCALATED_ICON,
      text: `Escalated after ${formatTimeLeft(step.afterSeconds * 1000)}: now also ${step.targets.map(describeTarget).join(", ")}`,
      atMs: step.atMs,
    })),
  ];
  if (record.status === "expired" && record.lateAnswer) {
    lines.push({ kind: "expired", icon: SUMMARY_ICONS.expired, text: "No answer in time: the agent went on without it", atMs: record.resolvedAtMs ?? record.expiresAtMs });
  }
  return lines.sort((a, b) => a.atMs - b.atMs);
}

/** Each reminder moment of a record (its policy), earliest first, marked sent once the gateway fired it. */
export function reminderMarks(record: Pick<QuestionRecord, "reminders" | "remindersSent" | "expiresAtMs">): ReminderMark[] {
  const sent = new Set((record.remindersSent ?? []).map((r) => r.offsetSeconds));
  return (record.reminders ?? [])
    .map((offsetSeconds) => ({ offsetSeconds, atMs: record.expiresAtMs - offsetSeconds * 1000, sent: sent.has(offsetSeconds) }))
    .sort((a, b) => a.atMs - b.atMs);
}
