/**
 * The reminder a bot sends as a reply to each copy of a still-pending question (issue 20 §1), and the short line it
 * becomes once the question resolves, where the platform does not let the bot delete it. Plain text, no mentions:
 * a reminder never pings anyone the prompt did not address. Each platform escapes it with its own `toXText`.
 */
import type { QuestionRecord } from "../record/record.ts";
import { summarizeRecord, SUMMARY_ICONS } from "./summary.ts";

export const REMINDER_ICON = "⏰";

/** Time left in words, rounded up so a reminder never promises less than there is: "45 s", "5 min", "1 h 20 min", "3 h". */
export function formatTimeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours >= 3 || rest === 0 ? `${Math.round(minutes / 60)} h` : `${hours} h ${rest} min`;
}

/** "⏰ Still waiting for your answer — 5 min left." */
export function renderReminderText(record: Pick<QuestionRecord, "expiresAtMs">, nowMs: number = Date.now()): string {
  return `${REMINDER_ICON} Still waiting for your answer — ${formatTimeLeft(record.expiresAtMs - nowMs)} left.`;
}

/** What a reminder says once its question resolved: "✅ Answered — see the question above.", "⌛ No answer in time." … */
export function renderReminderDone(record: QuestionRecord, nowMs: number = Date.now()): string {
  const summary = summarizeRecord(record, nowMs);
  if (!summary) return renderReminderText(record, nowMs);
  if (summary.late === "open") return `${SUMMARY_ICONS.expired} No answer in time — you can still answer above.`;
  switch (summary.kind) {
    case "answered":
      return `${SUMMARY_ICONS.answered} Answered${summary.late === "answered" ? " (late)" : ""} — see the question above.`;
    case "expired":
      return `${SUMMARY_ICONS.expired} No answer in time.`;
    case "skipped":
      return `${SUMMARY_ICONS.skipped} Skipped.`;
    case "failed":
    case "cancelled":
      return `${SUMMARY_ICONS.cancelled} Cancelled.`;
  }
}
