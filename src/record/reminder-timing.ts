import type { QuestionRecord } from "./record.ts";

/**
 * When a reminder still helps (issue 20 §1), one rule for the gateway (which fires it) and the bots (which send it):
 * a reminder fired or sent late (it came due while no gateway or bot ran) goes out only with at least this long
 * left before expiry, or half its own offset for offsets under 20 s.
 */
export const LATE_REMINDER_MIN_LEFT_MS = 10_000;

export function reminderStillUseful(record: Pick<QuestionRecord, "expiresAtMs">, offsetSeconds: number, nowMs: number): boolean {
  return record.expiresAtMs - nowMs >= Math.min(LATE_REMINDER_MIN_LEFT_MS, (offsetSeconds * 1000) / 2);
}
