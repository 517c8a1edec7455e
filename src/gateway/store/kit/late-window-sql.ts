/**
 * The late-window rules of src/record/late-window.ts, as the SQL stores restate them in their statements (SQLite and
 * PostgreSQL alike): written here once, and checked against the TypeScript rules at the edges by
 * test/gateway/store/late-window-sql.test.ts. `at` and `resolvedAt` are SQL expressions for the moment (a parameter); `q` is the
 * prefix of the questions table's columns ("q." under an alias).
 */

/** `lateRefusal(record, at) === undefined`: expired, no late answer yet, and `at` before the window's end (none: never). */
export const lateAnswerOpenSql = (at: string, q = ""): string => `${q}status = 'expired' AND ${q}late_json IS NULL AND ${q}late_until_ms > ${at}`;

/** `lateUntilFor(record, resolvedAt)`: the end of the late window of a row expiring at `resolvedAt`, NULL for none. */
export const lateUntilSql = (resolvedAt: string, q = ""): string =>
  `CASE WHEN ${q}late_answer_seconds > 0 THEN ${resolvedAt} + ${q}late_answer_seconds * 1000 END`;
