/**
 * The late-answer rule, written once: an expired question with a late window takes one late answer until the window
 * ends. The stores, the gateway, the bridge, the renderers and the Control UI all ask it here; the SQL stores' WHERE
 * clauses restate it in src/gateway/store/kit/late-window-sql.ts, and test/gateway/store/late-window-sql.test.ts checks that the
 * two agree at the edges. Apart from record.ts, and typed by shape, so that the Control UI's bundle stays small.
 */

/** Why a late answer was refused: one was taken already, the window closed (or there was none), or it is not expired. */
export type LateRefusal = "late_answered" | "window_closed" | "not_expired";

/** What the rule reads of a record. */
interface LateWindowFields {
  status: string;
  lateUntilMs?: number | undefined;
  lateAnswer?: unknown;
}

/** Whether an expired record takes a late answer at `atMs` (undefined), or why not. The window's end is not in it. */
export function lateRefusal(record: LateWindowFields, atMs: number): LateRefusal | undefined {
  if (record.status !== "expired") return "not_expired";
  if (record.lateAnswer !== undefined) return "late_answered";
  if (record.lateUntilMs === undefined || atMs >= record.lateUntilMs) return "window_closed";
  return undefined;
}

/** True while an expired record still takes a late answer (it has a window, no late answer yet, and time left). */
export function acceptsLateAnswer(record: LateWindowFields, nowMs: number): boolean {
  return lateRefusal(record, nowMs) === undefined;
}

/** When a record that expires at `resolvedAtMs` takes late answers until (undefined: it has no late window). */
export function lateUntilFor(record: { lateAnswerSeconds?: number | undefined }, resolvedAtMs: number): number | undefined {
  return record.lateAnswerSeconds ? resolvedAtMs + record.lateAnswerSeconds * 1000 : undefined;
}
