import type { QuestionRecord } from "./record.ts";

/**
 * True while an expired record still takes a late answer (it has a window, no late answer yet, and time left). Apart
 * from record.ts, which loads zod, so that the Control UI's bundle of the summary stays small.
 */
export function acceptsLateAnswer(record: Pick<QuestionRecord, "status" | "lateUntilMs" | "lateAnswer">, nowMs: number): boolean {
  return record.status === "expired" && record.lateUntilMs !== undefined && nowMs < record.lateUntilMs && record.lateAnswer === undefined;
}
