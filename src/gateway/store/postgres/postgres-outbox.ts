import { outboxRowsFor, outboxRowToMessage, settlementColumns, type OutboxRow } from "../kit/outbox.ts";
import type { QuestionStore, WebhookEvent } from "../kit/types.ts";
import type { PostgresStatements } from "./postgres-pool.ts";
import { postgresRowToRecord, type PostgresQuestionRow } from "./postgres-row.ts";

const INSERT_OUTBOX = `INSERT INTO webhook_outbox (id, question_id, event, url, record_json, event_at_ms, due_at_ms)
  SELECT m.id, m.question_id, m.event, m.url, m.record_json, m.event_at_ms, 0
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS m (id, question_id, event, url, record_json, event_at_ms)`;

/**
 * The PostgreSQL store's webhook outbox. `write` runs a state change's statement (one returning the changed rows, as
 * READ_RECORD selects them) and, with webhook URLs, inserts the event's messages in the same transaction; without
 * URLs it is the plain autocommit statement. Claims take due rows with FOR UPDATE SKIP LOCKED, so instances claiming
 * at once each take different messages, and a message another instance holds (its lease not over) is never due.
 */
export function createPostgresOutbox({ query, transaction }: PostgresStatements, urls: readonly string[]) {
  async function write(operation: string, event: WebhookEvent, text: string, values: unknown[]): Promise<PostgresQuestionRow[]> {
    if (urls.length === 0) return query<PostgresQuestionRow>(operation, true, text, values);
    return transaction(operation, async (run) => {
      const rows = await run<PostgresQuestionRow>(text, values);
      const messages = rows.flatMap((row) => {
        try {
          return outboxRowsFor(event, postgresRowToRecord(row), urls);
        } catch {
          return []; // a corrupt row: reads skip and report it; it has nothing to send
        }
      });
      if (messages.length > 0) {
        await run(INSERT_OUTBOX, (["id", "question_id", "event", "url", "record_json", "event_at_ms"] as const).map((key) => messages.map((m) => m[key])));
      }
      return rows;
    });
  }

  const operations: Pick<QuestionStore, "claimWebhooks" | "settleWebhook" | "nextWebhookMs" | "countWebhooks" | "pruneWebhooks"> = {
    async claimWebhooks({ claimant, nowMs, leaseMs, limit, exceptUrls = [] }) {
      const rows = await query<OutboxRow & { seq: number }>(
        "claimWebhooks",
        true,
        `WITH due AS MATERIALIZED (
           SELECT id FROM webhook_outbox
           WHERE due_at_ms IS NOT NULL AND due_at_ms <= $1::bigint AND NOT (url = ANY ($4::text[]))
           ORDER BY due_at_ms, seq LIMIT $3::bigint
           FOR UPDATE SKIP LOCKED
         )
         UPDATE webhook_outbox o SET claimant = $2, due_at_ms = $5::bigint, attempts = o.attempts + 1
         FROM due WHERE o.id = due.id AND o.due_at_ms <= $1::bigint
         RETURNING o.id, o.question_id, o.event, o.url, o.record_json, o.event_at_ms, o.attempts, o.seq`,
        [nowMs, claimant, Math.max(0, Math.trunc(limit)), [...exceptUrls], nowMs + leaseMs],
      );
      return rows.sort((a, b) => a.seq - b.seq).map(outboxRowToMessage);
    },

    async settleWebhook(id, claimant, settlement) {
      const c = settlementColumns(settlement);
      const rows = await query(
        "settleWebhook",
        true,
        `UPDATE webhook_outbox SET due_at_ms = $3::bigint, claimant = NULL, last_error = $4, sent_at_ms = $5::bigint, given_up_at_ms = $6::bigint
         WHERE id = $1 AND claimant = $2 AND due_at_ms IS NOT NULL RETURNING 1 AS settled`,
        [id, claimant, c.due_at_ms, c.last_error, c.sent_at_ms, c.given_up_at_ms],
      );
      return rows.length === 1;
    },

    async nextWebhookMs() {
      const [row] = await query<{ next: number | null }>("nextWebhookMs", false, `SELECT min(due_at_ms) AS next FROM webhook_outbox WHERE due_at_ms IS NOT NULL`);
      return row?.next ?? undefined;
    },

    async countWebhooks() {
      const [row] = await query<{ n: number }>("countWebhooks", false, `SELECT count(*)::int AS n FROM webhook_outbox WHERE due_at_ms IS NOT NULL`);
      return row?.n ?? 0;
    },

    async pruneWebhooks(doneBeforeMs) {
      const [row] = await query<{ pruned: number }>(
        "pruneWebhooks",
        true,
        `WITH gone AS (DELETE FROM webhook_outbox WHERE due_at_ms IS NULL AND COALESCE(sent_at_ms, given_up_at_ms) < $1::bigint RETURNING 1)
         SELECT count(*)::int AS pruned FROM gone`,
        [doneBeforeMs],
      );
      return row?.pruned ?? 0;
    },
  };

  return { write, operations };
}
