import { SqliteError } from "better-sqlite3";
import type Database from "better-sqlite3";
import type { Delivery, QuestionRecord } from "../../record.ts";
import { CorruptRecordError, QuestionExistsError } from "./errors.ts";
import { normalizeLimit } from "./record-ops.ts";
import { openSqliteDatabase } from "./sqlite-schema.ts";
import { deliveriesFromJson, deliveryToParams, recordToParams, resolutionToParams, rowToRecord } from "./sqlite-row.ts";
import type { DeliveryRow, QuestionRow } from "./sqlite-row.ts";
import type { ListFilter, QuestionStore, Resolution, ResolveOutcome } from "./types.ts";

export interface SqliteStoreOptions {
  /** The directory for `ask-user-bridge.sqlite`; created if missing. */
  dataDir: string;
  /** Told about each corrupt row that `list` / `findExpired` skipped. Defaults to one console.warn per row. */
  onCorruptRecord?: (error: CorruptRecordError) => void;
}

const warnCorruptRecord = (error: CorruptRecordError): void => console.warn(`[store] skipped: ${error.message}`);

const COLUMNS = `id, status, created_at_ms, expires_at_ms, resolved_at_ms, timeout_seconds, run_id, session_key,
  surfaces, reason, detail, questions_json, answers_json, by_json, targets_json, partial_json`;
/** What reads select: the columns, and the record's deliveries in the same statement (in the order they were recorded). */
const READ = `${COLUMNS},
  (SELECT json_group_array(json_array(surface, chat, message_ref, delivered_at_ms) ORDER BY rowid)
   FROM deliveries WHERE question_id = questions.id) AS deliveries_json`;

/**
 * The durable store: one better-sqlite3 connection in WAL mode (see SQLITE_PRAGMAS). Statements are
 * prepared once; every write is one IMMEDIATE transaction, so a resolution is a compare-and-set from
 * pending and a delivery is recorded at most once per (question, surface, chat).
 *
 * With `useGroupCommit()` (the gateway's service turns it on), the writes of one event-loop turn share one
 * IMMEDIATE transaction, committed at the end of the turn; each write still runs in its own savepoint, so it is
 * all-or-nothing as before. Callers acknowledge a write only from `afterCommit`.
 */
export function createSqliteStore({ dataDir, onCorruptRecord = warnCorruptRecord }: SqliteStoreOptions): QuestionStore {
  const db = openSqliteDatabase(dataDir);
  const sql = {
    insert: db.prepare(`INSERT INTO questions (${COLUMNS}) VALUES (${COLUMNS.replace(/(\w+)/g, "@$1")})`),
    get: db.prepare<[string], QuestionRow>(`SELECT ${READ} FROM questions WHERE id = ?`),
    exists: db.prepare<[string], { found: 1 }>(`SELECT 1 AS found FROM questions WHERE id = ?`),
    deliveries: db.prepare<[string], DeliveryRow>(
      `SELECT surface, chat, message_ref, delivered_at_ms FROM deliveries WHERE question_id = ? ORDER BY rowid`,
    ),
    insertTarget: db.prepare<[string, string, string]>(
      `INSERT OR IGNORE INTO question_targets (chat, surface, question_id) VALUES (?, ?, ?)`,
    ),
    awaitingDelivery: db.prepare<[], QuestionRow>(
      // The inner query runs on the pending index alone (it holds the id), so the rows of delivered questions are
      // never read: proportional to the pending count, and fast at 100,000.
      `SELECT ${READ} FROM questions
       WHERE rowid IN (SELECT q.rowid FROM questions q
                       WHERE q.status = 'pending' AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.question_id = q.id))
         AND instr(surfaces, ',web,') = 0
       ORDER BY created_at_ms, id`,
    ),
    insertDelivery: db.prepare(
      `INSERT OR IGNORE INTO deliveries (question_id, surface, chat, message_ref, delivered_at_ms)
       VALUES (@question_id, @surface, @chat, @message_ref, @delivered_at_ms)`,
    ),
    /** The compare-and-set; RETURNING gives the resolved row without a second read. */
    resolve: db.prepare<[Record<string, string | number | null>], QuestionRow>(
      `UPDATE questions SET status = @status, resolved_at_ms = @resolved_at_ms,
         answers_json = COALESCE(@answers_json, answers_json), by_json = COALESCE(@by_json, by_json),
         reason = COALESCE(@reason, reason), detail = COALESCE(@detail, detail)
       WHERE id = @id AND status = 'pending'
       RETURNING ${READ}`,
    ),
    savePartial: db.prepare<[string, string]>(`UPDATE questions SET partial_json = ? WHERE id = ? AND status = 'pending'`),
    expired: db.prepare<[number], QuestionRow>(
      `SELECT ${READ} FROM questions WHERE status = 'pending' AND expires_at_ms <= ? ORDER BY expires_at_ms, id`,
    ),
    pendingExpiries: db.prepare<[], { id: string; expires_at_ms: number }>(
      `SELECT id, expires_at_ms FROM questions WHERE status = 'pending' ORDER BY expires_at_ms`,
    ),
  };
  const listStatements = new Map<string, Database.Statement<[Record<string, unknown>], QuestionRow>>();
  /** Rows found corrupt on this connection; nextExpiryMs skips them so the scheduler cannot spin on one. */
  const corruptIds = new Set<string>();

  /** The open group-commit transaction: callbacks waiting for its COMMIT. */
  let batch: Array<(error?: unknown) => void> | undefined;
  let groupCommit = false;

  /** Before a write: with group commit on, opens the turn's transaction (once) and schedules its commit. */
  const beginWrite = (): void => {
    if (!groupCommit || batch) return;
    db.exec("BEGIN IMMEDIATE");
    batch = [];
    setImmediate(commitBatch);
  };

  function commitBatch(): void {
    const callbacks = batch;
    if (!callbacks) return;
    batch = undefined;
    let failure: unknown;
    try {
      db.exec("COMMIT");
    } catch (error) {
      failure = error;
      try {
        if (db.inTransaction) db.exec("ROLLBACK");
      } catch {
        // the connection is unusable; the failure above is what callers hear
      }
    }
    for (const callback of callbacks) {
      try {
        callback(failure);
      } catch (error) {
        console.error("[store] an afterCommit callback failed", error);
      }
    }
  }

  const decode = (row: QuestionRow): QuestionRecord =>
    rowToRecord(row, row.deliveries_json === undefined ? sql.deliveries.all(row.id) : deliveriesFromJson(row.deliveries_json));
  const read = (id: string): QuestionRecord | undefined => {
    const row = sql.get.get(id);
    return row && decode(row);
  };
  /** Decodes many rows, skipping (and reporting) corrupt ones so one bad row never hides the rest. */
  const decodeAll = (rows: QuestionRow[]): QuestionRecord[] =>
    rows.flatMap((row) => {
      try {
        return [decode(row)];
      } catch (error) {
        if (!(error instanceof CorruptRecordError)) throw error;
        if (!corruptIds.has(row.id)) onCorruptRecord(error);
        corruptIds.add(row.id);
        return [];
      }
    });

  const listStatement = (filter: ListFilter) => {
    const where: string[] = [];
    if (filter.status !== undefined) where.push("status = @status");
    if (filter.runId !== undefined) where.push("run_id = @runId");
    if (filter.sessionKey !== undefined) where.push("session_key = @sessionKey");
    if (filter.surface !== undefined) where.push("instr(surfaces, ',' || @surface || ',') > 0");
    if (filter.chat !== undefined) {
      where.push(
        `id IN (SELECT question_id FROM question_targets WHERE chat = @chat${filter.surface !== undefined ? " AND surface = @surface" : ""})`,
      );
    }
    const text = `SELECT ${READ} FROM questions ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY created_at_ms DESC, id DESC LIMIT @limit`;
    let statement = listStatements.get(text);
    if (!statement) listStatements.set(text, (statement = db.prepare(text)));
    return statement;
  };

  const create = db.transaction((record: QuestionRecord) => {
    sql.insert.run(recordToParams(record));
    for (const target of record.targets) if (target.chat !== undefined) sql.insertTarget.run(target.chat, target.surface, record.id);
    for (const delivery of record.deliveries) sql.insertDelivery.run(deliveryToParams(record.id, delivery));
  });

  const resolve = db.transaction((id: string, resolution: Resolution): ResolveOutcome => {
    const row = sql.resolve.get(resolutionToParams(id, resolution));
    if (row) return { ok: true, record: decode(row) };
    const record = read(id);
    return record ? { ok: false, code: "QUESTION_ALREADY_TERMINAL", record } : { ok: false, code: "QUESTION_NOT_FOUND" };
  });

  const addDelivery = db.transaction((id: string, delivery: Delivery): QuestionRecord | undefined => {
    if (!sql.exists.get(id)) return undefined;
    sql.insertDelivery.run(deliveryToParams(id, delivery));
    return read(id);
  });

  return {
    create(record) {
      beginWrite();
      try {
        // One INSERT is atomic on its own; only a record with chat targets or deliveries needs the transaction.
        if (record.deliveries.length === 0 && record.targets.every((t) => t.chat === undefined)) sql.insert.run(recordToParams(record));
        else create.immediate(record);
      } catch (error) {
        if (error instanceof SqliteError && error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
          throw new QuestionExistsError(record.id, { cause: error });
        }
        throw error;
      }
    },
    get: read,
    list(filter = {}) {
      // Surfaces are comma-delimited in the column; a comma in the filter could never name one surface.
      if (filter.surface?.includes(",")) return [];
      const params: Record<string, unknown> = { limit: normalizeLimit(filter.limit) ?? -1 };
      for (const key of ["status", "runId", "sessionKey", "surface", "chat"] as const) {
        if (filter[key] !== undefined) params[key] = filter[key];
      }
      return decodeAll(listStatement(filter).all(params));
    },
    resolve(id, resolution) {
      beginWrite();
      return resolve.immediate(id, resolution);
    },
    addDelivery(id, delivery) {
      beginWrite();
      return addDelivery.immediate(id, delivery);
    },
    savePartial(id, answers) {
      beginWrite();
      sql.savePartial.run(JSON.stringify(answers), id);
      return read(id);
    },
    findExpired: (nowMs) => decodeAll(sql.expired.all(nowMs)),
    pendingAwaitingDelivery: () => decodeAll(sql.awaitingDelivery.all()),
    nextExpiryMs() {
      for (const row of sql.pendingExpiries.iterate()) {
        if (!corruptIds.has(row.id)) return row.expires_at_ms;
      }
      return undefined;
    },
    useGroupCommit() {
      groupCommit = true;
    },
    afterCommit(callback) {
      if (!batch) return false;
      batch.push(callback);
      return true;
    },
    close() {
      if (!db.open) return;
      commitBatch();
      db.pragma("optimize");
      db.close();
    },
  };
}
