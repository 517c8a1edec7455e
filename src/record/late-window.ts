/**
 * True while an expired record still takes a late answer (it has a window, no late answer yet, and time left). Apart
 * from record.ts, which loads zod, so that the Control UI's bundle of the summary stays small (and typed by shape,
 * so the two modules do not import each other).
 */
export function acceptsLateAnswer(record: { status: string; lateUntilMs?: number | undefined; lateAnswer?: unknown }, nowMs: number): boolean {
  return record.status === "expired" && record.lateUntilMs !== undefined && nowMs < record.lateUntilMs && record.lateAnswer === undefined;
}
