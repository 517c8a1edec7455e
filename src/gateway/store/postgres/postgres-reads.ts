import type { QuestionRecord } from "../../../record/record.ts";
import { normalizeLimit } from "../kit/reads.ts";
import type { ListFilter, QuestionStore } from "../kit/types.ts";
import type { PostgresStatements } from "./postgres-pool.ts";
import { READ_RECORD, type PostgresQuestionRow } from "./postgres-row.ts";

/** The PostgreSQL store's native reads: lists and the schedule's queries, each on its index. */
export function createPostgresReads(
  { query }: PostgresStatements,
  decodeAll: (rows: PostgresQuestionRow[]) => QuestionRecord[],
): Pick<QuestionStore, "list" | "nextExpiryMs" | "followUpsDue" | "nextFollowUpMs" | "lateWindowsEnded" | "pendingAwaitingDelivery"> {
  return {
    async list(filter: ListFilter = {}) {
      const values: unknown[] = [];
      const param = (value: unknown): string => `$${values.push(value)}`;
      const where: string[] = [];
      if (filter.status !== undefined) where.push(`q.status = ${param(filter.status)}`);
      if (filter.runId !== undefined) where.push(`q.run_id = ${param(filter.runId)}`);
      if (filter.askedBy !== undefined) where.push(`q.asked_by = ${param(filter.askedBy)}`);
      if (filter.late === true) where.push("q.late_json IS NOT NULL");
      if (filter.sessionKey !== undefined) where.push(`q.session_key = ${param(filter.sessionKey)}`);
      if (filter.surface !== undefined) where.push(`q.surfaces @> ARRAY[${param(filter.surface)}::text]`);
      if (filter.chat !== undefined) {
        const surface = filter.surface !== undefined ? ` AND t.surface = ${param(filter.surface)}` : "";
        where.push(`q.id IN (SELECT t.question_id FROM question_targets t WHERE t.chat = ${param(filter.chat)}${surface})`);
      }
      // A row comparison, so the (created_at_ms DESC, id DESC) indexes seek straight to the page.
      if (filter.before !== undefined) {
        where.push(`(q.created_at_ms, q.id) < (${param(filter.before.createdAtMs)}::bigint, ${param(filter.before.id)}::text)`);
      }
      const rows = await query<PostgresQuestionRow>(
        "list",
        false,
        `SELECT ${READ_RECORD} FROM questions q ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY q.created_at_ms DESC, q.id DESC LIMIT ${param(normalizeLimit(filter.limit) ?? null)}::bigint`,
        values,
      );
      return decodeAll(rows);
    },

    async nextExpiryMs() {
      const [row] = await query<{ next: number | null }>(
        "nextExpiryMs",
        false,
        `SELECT min(expires_at_ms) AS next FROM questions WHERE status = 'pending'`,
      );
      return row?.next ?? undefined;
    },

    async followUpsDue(nowMs, limit) {
      const rows = await query<PostgresQuestionRow>(
        "followUpsDue",
        false,
        `SELECT ${READ_RECORD} FROM questions q
         WHERE q.status = 'pending' AND q.next_due_ms IS NOT NULL AND q.next_due_ms <= $1::bigint
         ORDER BY q.next_due_ms, q.id LIMIT $2::bigint`,
        [nowMs, Math.max(0, Math.trunc(limit))],
      );
      return decodeAll(rows);
    },

    async nextFollowUpMs(lateAfterMs) {
      const [row] = await query<{ due: number | null; late: number | null }>(
        "nextFollowUpMs",
        false,
        `SELECT (SELECT min(next_due_ms) FROM questions WHERE status = 'pending' AND next_due_ms IS NOT NULL) AS due,
                (SELECT min(late_until_ms) FROM questions WHERE late_until_ms IS NOT NULL AND late_json IS NULL AND late_until_ms > $1::bigint) AS late`,
        [lateAfterMs],
      );
      const times = [row?.due, row?.late].filter((t): t is number => typeof t === "number");
      return times.length > 0 ? Math.min(...times) : undefined;
    },

    async lateWindowsEnded(afterMs, uptoMs, limit) {
      const rows = await query<PostgresQuestionRow>(
        "lateWindowsEnded",
        false,
        `SELECT ${READ_RECORD} FROM questions q
         WHERE q.late_until_ms IS NOT NULL AND q.late_json IS NULL AND q.late_until_ms > $1::bigint AND q.late_until_ms <= $2::bigint
           AND q.status = 'expired'
         ORDER BY q.late_until_ms, q.id LIMIT $3::bigint`,
        [afterMs, uptoMs, Math.max(0, Math.trunc(limit))],
      );
      return decodeAll(rows);
    },

    async pendingAwaitingDelivery() {
      const rows = await query<PostgresQuestionRow>(
        "pendingAwaitingDelivery",
        false,
        `SELECT ${READ_RECORD} FROM questions q
         WHERE q.status = 'pending' AND NOT ('web' = ANY (q.surfaces))
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.question_id = q.id)
         ORDER BY q.created_at_ms, q.id`,
      );
      return decodeAll(rows);
    },
  };
}
