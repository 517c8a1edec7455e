import type { QuestionRecord } from "../../../record/record.ts";
import { followUpParams } from "../kit/sql-row.ts";
import type { RecordCell } from "../kit/record-cell.ts";
import type { createPostgresOutbox } from "./postgres-outbox.ts";
import type { PostgresStatements } from "./postgres-pool.ts";
import { postgresRowToRecord, READ_RECORD, type PostgresQuestionRow } from "./postgres-row.ts";

/** What the cell writes: the record's own row. Deliveries and target states have single statements of their own. */
const sameRows = (a: QuestionRecord, b: QuestionRecord): boolean =>
  JSON.stringify([a.deliveries, a.targetStates]) === JSON.stringify([b.deliveries, b.targetStates]);

/**
 * The PostgreSQL store's record cell: a record and its `follow_version`, stored only if neither the version nor the
 * status moved meanwhile. New chat targets join question_targets in the same statement, and a webhook's outbox
 * messages are written in its transaction. The change's event goes to `follow_event`, which the trigger announces
 * (a late answer is announced as question.lateAnswered by its own rule).
 */
export function createPostgresCell(
  { query }: PostgresStatements,
  outbox: ReturnType<typeof createPostgresOutbox>,
): RecordCell<{ followVersion: number; status: string }> {
  return {
    async load(id) {
      const [row] = await query<PostgresQuestionRow & { follow_version: number }>(
        "read for a compare-and-set",
        false,
        `SELECT ${READ_RECORD}, q.follow_version FROM questions q WHERE q.id = $1`,
        [id],
      );
      return row && { record: postgresRowToRecord(row), version: { followVersion: row.follow_version, status: row.status } };
    },
    async storeIfUnchanged(loaded, next, change) {
      if (!sameRows(loaded.record, next)) throw new Error(`question ${next.id}: the PostgreSQL record cell writes the questions row only`);
      const p = followUpParams(next);
      const chats = next.targets.filter((t) => t.chat !== undefined);
      const text = `WITH u AS (
           UPDATE questions q SET progress_json = $4::json, next_due_ms = $5::bigint, targets_json = $6::json,
             surfaces = $7::text[], partial_json = $11::jsonb, late_json = $12::json,
             follow_version = q.follow_version + 1, follow_event = $8
           WHERE q.id = $1 AND q.follow_version = $2::bigint AND q.status = $3
           RETURNING ${READ_RECORD}
         ), t AS (
           INSERT INTO question_targets (chat, surface, question_id)
           SELECT c.chat, c.surface, u.id FROM u, unnest($9::text[], $10::text[]) AS c (chat, surface)
           ON CONFLICT DO NOTHING
         )
         SELECT * FROM u`;
      const values = [
        next.id, loaded.version.followVersion, loaded.version.status, p.progress_json, p.next_due_ms, JSON.stringify(next.targets),
        [...new Set(next.targets.map((t) => t.surface))], change.event, chats.map((t) => t.chat), chats.map((t) => t.surface),
        next.partialAnswers === undefined ? null : JSON.stringify(next.partialAnswers),
        next.lateAnswer === undefined ? null : JSON.stringify(next.lateAnswer),
      ];
      const [row] = change.webhook ? await outbox.write("compare-and-set", change.webhook, text, values) : await query<PostgresQuestionRow>("compare-and-set", true, text, values);
      return row && postgresRowToRecord(row);
    },
  };
}
