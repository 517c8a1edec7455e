import type { QuestionRecord } from "../../../record/record.ts";
import type { QuestionStore } from "../kit/types.ts";
import type { PostgresStatements } from "./postgres-pool.ts";

/**
 * The writes of a record's chat rows (its deliveries and target states), each one statement on PostgreSQL, not a
 * read and a compare-and-set of the record: a row's insert, update or delete is atomic on its own, its trigger
 * announces the change, and the rule it applies is the record's (src/record/transitions.ts) restated in SQL.
 */
export function createPostgresChatRows(
  { query }: PostgresStatements,
  get: (id: string) => Promise<QuestionRecord | undefined>,
): Pick<QuestionStore, "addDelivery" | "setTargetState" | "clearWaiting" | "withdrawDelivery" | "setRendered"> {
  return {
    async addDelivery(id, delivery) {
      await query(
        "addDelivery",
        true,
        `INSERT INTO deliveries (question_id, surface, chat, message_ref, delivered_at_ms, rendered)
         SELECT $1, $2, $3, $4, $5::bigint, $6 WHERE EXISTS (SELECT 1 FROM questions WHERE id = $1)
         ON CONFLICT DO NOTHING`,
        [id, delivery.surface, delivery.chat, delivery.messageRef, delivery.deliveredAtMs, delivery.rendered ?? null],
      );
      return get(id);
    },

    async setTargetState(id, state) {
      // One state per chat; `retrying` never replaces `failed`, and `waiting` replaces only `waiting`.
      await query(
        "setTargetState",
        true,
        `INSERT INTO target_states AS t (question_id, surface, chat, state, reason, at_ms, retry_at_ms)
         SELECT $1, $2, $3, $4, $5, $6::bigint, $7::bigint WHERE EXISTS (SELECT 1 FROM questions WHERE id = $1)
         ON CONFLICT (question_id, surface, chat) DO UPDATE SET
           state = EXCLUDED.state, reason = EXCLUDED.reason, at_ms = EXCLUDED.at_ms, retry_at_ms = EXCLUDED.retry_at_ms
         WHERE NOT (t.state = 'failed' AND EXCLUDED.state = 'retrying') AND NOT (EXCLUDED.state = 'waiting' AND t.state <> 'waiting')`,
        [id, state.surface, state.chat, state.state, state.reason, state.atMs, state.retryAtMs ?? null],
      );
      return get(id);
    },

    async clearWaiting(id, surface, chat) {
      // A DELETE: the target_states trigger (INSERT OR UPDATE) stays quiet; the caller announces the change.
      const rows = await query<{ question_id: string }>(
        "clearWaiting",
        true,
        `DELETE FROM target_states WHERE question_id = $1 AND surface = $2 AND chat = $3 AND state = 'waiting' RETURNING question_id`,
        [id, surface, chat],
      );
      return rows.length > 0 ? get(id) : undefined;
    },

    async withdrawDelivery(id, messageRef, state) {
      // One statement: the copy goes, and the chat's state is recorded, only when that copy of a pending question
      // was there (FOR SHARE holds off a concurrent resolution). The state's trigger announces question.updated.
      await query(
        "withdrawDelivery",
        true,
        `WITH q AS MATERIALIZED (SELECT id FROM questions WHERE id = $1 AND status = 'pending' FOR SHARE),
         gone AS MATERIALIZED (
           DELETE FROM deliveries d USING q
           WHERE d.question_id = q.id AND d.surface = $2 AND d.chat = $3 AND d.message_ref = $8
           RETURNING d.question_id
         )
         INSERT INTO target_states AS t (question_id, surface, chat, state, reason, at_ms, retry_at_ms)
         SELECT gone.question_id, $2, $3, $4, $5, $6::bigint, $7::bigint FROM gone
         ON CONFLICT (question_id, surface, chat) DO UPDATE SET
           state = EXCLUDED.state, reason = EXCLUDED.reason, at_ms = EXCLUDED.at_ms, retry_at_ms = EXCLUDED.retry_at_ms
         WHERE NOT (t.state = 'failed' AND EXCLUDED.state = 'retrying')`,
        [id, state.surface, state.chat, state.state, state.reason, state.atMs, state.retryAtMs ?? null, messageRef],
      );
      return get(id);
    },

    async setRendered(id, surface, chat, rendered) {
      await query("setRendered", true, `UPDATE deliveries SET rendered = $4 WHERE question_id = $1 AND surface = $2 AND chat = $3`, [id, surface, chat, rendered]);
      return get(id);
    },
  };
}
