import type Database from "better-sqlite3";
import type { QuestionRecord } from "../../../record/record.ts";
import { outboxRowsFor, outboxRowToMessage, settlementColumns, type OutboxRow } from "../kit/outbox.ts";
import type { WebhookClaim, WebhookEvent, WebhookMessage, WebhookSettlement } from "../kit/types.ts";

/**
 * The SQLite store's webhook outbox. `add` runs inside the state change's transaction (so in its commit); the others
 * are the store's outbox operations, run synchronously (one gateway process owns the file).
 */
export function createSqliteOutbox(db: Database.Database, urls: readonly string[]) {
  const sql = {
    insert: db.prepare(
      `INSERT INTO webhook_outbox (id, question_id, event, url, record_json, event_at_ms, due_at_ms)
       VALUES (@id, @question_id, @event, @url, @record_json, @event_at_ms, 0)`,
    ),
    claim: db.prepare<[{ claimant: string; now: number; lease_until: number; limit: number; except: string }], OutboxRow>(
      `UPDATE webhook_outbox SET claimant = @claimant, due_at_ms = @lease_until, attempts = attempts + 1
       WHERE id IN (SELECT id FROM webhook_outbox
                    WHERE due_at_ms IS NOT NULL AND due_at_ms <= @now AND url NOT IN (SELECT value FROM json_each(@except))
                    ORDER BY due_at_ms, rowid LIMIT @limit)
       RETURNING id, question_id, event, url, record_json, event_at_ms, attempts, rowid AS seq`,
    ),
    settle: db.prepare(
      `UPDATE webhook_outbox SET due_at_ms = @due_at_ms, claimant = NULL, last_error = @last_error,
         sent_at_ms = @sent_at_ms, given_up_at_ms = @given_up_at_ms
       WHERE id = @id AND claimant = @claimant AND due_at_ms IS NOT NULL`,
    ),
    next: db.prepare<[], { next: number | null }>(`SELECT min(due_at_ms) AS next FROM webhook_outbox WHERE due_at_ms IS NOT NULL`),
    count: db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM webhook_outbox WHERE due_at_ms IS NOT NULL`),
    prune: db.prepare<[number]>(`DELETE FROM webhook_outbox WHERE due_at_ms IS NULL AND COALESCE(sent_at_ms, given_up_at_ms) < ?`),
  };

  return {
    /** In the caller's transaction: the event's messages, one per URL (nothing without URLs). */
    add(event: WebhookEvent, record: QuestionRecord): void {
      if (urls.length === 0) return;
      for (const row of outboxRowsFor(event, record, urls)) sql.insert.run(row);
    },
    claim({ claimant, nowMs, leaseMs, limit, exceptUrls = [] }: WebhookClaim): WebhookMessage[] {
      const rows = sql.claim.all({ claimant, now: nowMs, lease_until: nowMs + leaseMs, limit: Math.max(0, Math.trunc(limit)), except: JSON.stringify(exceptUrls) });
      // RETURNING gives no order: oldest first, as claimed.
      return (rows as Array<OutboxRow & { seq: number }>).sort((a, b) => a.seq - b.seq).map(outboxRowToMessage);
    },
    settle(id: string, claimant: string, settlement: WebhookSettlement): boolean {
      return sql.settle.run({ id, claimant, ...settlementColumns(settlement) }).changes === 1;
    },
    next: (): number | undefined => sql.next.get()?.next ?? undefined,
    count: (): number => sql.count.get()!.n,
    prune: (doneBeforeMs: number): number => sql.prune.run(doneBeforeMs).changes,
  };
}
