import type Database from "better-sqlite3";
import type { Delivery, QuestionRecord, TargetState } from "../../../record/record.ts";
import { withVisibleStates } from "../../../record/transitions.ts";
import { deliveriesFromJson, deliveryToParams, followUpParams, rowToRecord, surfacesColumn, type QuestionRow } from "../kit/sql-row.ts";
import type { RecordCell, RecordChange, Versioned } from "../kit/record-cell.ts";
import type { GroupCommit } from "./sqlite-commit.ts";
import { READ_ALL_STATES } from "./sqlite-read.ts";
import type { createSqliteOutbox } from "./sqlite-outbox.ts";

const chatKey = (x: { surface: string; chat: string }): string => `${x.surface}\n${x.chat}`;

/**
 * The SQLite store's record cell. The version is the connection's write count: one process owns the file, and the
 * kit runs a load and its store in one synchronous step, so the count has not moved unless something wrote between.
 * A store writes what differs from the loaded record: its mutable columns, new chat targets, and the deliveries
 * and target states added, changed or removed, in one transaction (with the webhook's outbox messages).
 */
export function createSqliteCell(db: Database.Database, commit: GroupCommit, outbox: ReturnType<typeof createSqliteOutbox>): RecordCell<number> {
  const sql = {
    load: db.prepare<[string], QuestionRow>(`SELECT ${READ_ALL_STATES} FROM questions WHERE id = ?`),
    saveRow: db.prepare(
      `UPDATE questions SET partial_json = @partial_json, policy_json = @policy_json, progress_json = @progress_json,
         next_due_ms = @next_due_ms, targets_json = @targets_json, surfaces = @surfaces, late_json = @late_json
       WHERE id = @id AND status = @status`,
    ),
    insertTarget: db.prepare<[string, string, string]>(`INSERT OR IGNORE INTO question_targets (chat, surface, question_id) VALUES (?, ?, ?)`),
    insertDelivery: db.prepare(
      `INSERT OR IGNORE INTO deliveries (question_id, surface, chat, message_ref, delivered_at_ms, rendered)
       VALUES (@question_id, @surface, @chat, @message_ref, @delivered_at_ms, @rendered)`,
    ),
    deleteDelivery: db.prepare<[string, string, string, string]>(`DELETE FROM deliveries WHERE question_id = ? AND surface = ? AND chat = ? AND message_ref = ?`),
    setRendered: db.prepare<[string | null, string, string, string]>(`UPDATE deliveries SET rendered = ? WHERE question_id = ? AND surface = ? AND chat = ?`),
    putState: db.prepare(
      `INSERT INTO target_states (question_id, surface, chat, state, reason, at_ms, retry_at_ms)
       VALUES (@question_id, @surface, @chat, @state, @reason, @at_ms, @retry_at_ms)
       ON CONFLICT (question_id, surface, chat) DO UPDATE SET
         state = excluded.state, reason = excluded.reason, at_ms = excluded.at_ms, retry_at_ms = excluded.retry_at_ms`,
    ),
    deleteState: db.prepare<[string, string, string]>(`DELETE FROM target_states WHERE question_id = ? AND surface = ? AND chat = ?`),
  };

  const load = (id: string): QuestionRecord | undefined => {
    const row = sql.load.get(id);
    return row && rowToRecord(row, deliveriesFromJson(row.deliveries_json!));
  };

  function writeDeliveries(id: string, before: readonly Delivery[], after: readonly Delivery[]): void {
    const held = new Map(before.map((d) => [chatKey(d), d]));
    const next = new Map(after.map((d) => [chatKey(d), d]));
    for (const [key, d] of held) if (next.get(key)?.messageRef !== d.messageRef) sql.deleteDelivery.run(id, d.surface, d.chat, d.messageRef);
    for (const [key, d] of next) {
      const was = held.get(key);
      if (was?.messageRef !== d.messageRef) sql.insertDelivery.run(deliveryToParams(id, d));
      else if (was.rendered !== d.rendered) sql.setRendered.run(d.rendered ?? null, id, d.surface, d.chat);
    }
  }

  function writeStates(id: string, before: readonly TargetState[], after: readonly TargetState[]): void {
    const held = new Map(before.map((s) => [chatKey(s), JSON.stringify(s)]));
    const next = new Set(after.map(chatKey));
    for (const s of before) if (!next.has(chatKey(s))) sql.deleteState.run(id, s.surface, s.chat);
    for (const s of after) {
      if (held.get(chatKey(s)) === JSON.stringify(s)) continue;
      const { surface, chat, state, reason, atMs, retryAtMs } = s;
      sql.putState.run({ question_id: id, surface, chat, state, reason, at_ms: atMs, retry_at_ms: retryAtMs ?? null });
    }
  }

  const store = db.transaction((loaded: QuestionRecord, next: QuestionRecord, change: RecordChange): QuestionRecord | undefined => {
    const row = {
      id: next.id,
      status: loaded.status,
      partial_json: next.partialAnswers === undefined ? null : JSON.stringify(next.partialAnswers),
      ...followUpParams(next),
      targets_json: JSON.stringify(next.targets),
      surfaces: surfacesColumn(next.targets),
      late_json: next.lateAnswer === undefined ? null : JSON.stringify(next.lateAnswer),
    };
    if (sql.saveRow.run(row).changes === 0) return undefined;
    for (const target of next.targets) if (target.chat !== undefined) sql.insertTarget.run(target.chat, target.surface, next.id);
    writeDeliveries(next.id, loaded.deliveries, next.deliveries);
    writeStates(next.id, loaded.targetStates ?? [], next.targetStates ?? []);
    const stored = load(next.id)!;
    if (change.webhook) outbox.add(change.webhook, withVisibleStates(stored));
    return stored;
  });

  return {
    load(id): Versioned<number> | undefined {
      const record = load(id);
      return record && { record, version: commit.writes() };
    },
    storeIfUnchanged(loaded, next, change) {
      if (commit.writes() !== loaded.version) return undefined;
      commit.beginWrite();
      return store.immediate(loaded.record, next, change);
    },
    durable: commit.durable,
  };
}
