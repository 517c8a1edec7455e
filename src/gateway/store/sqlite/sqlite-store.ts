import { SqliteError } from "better-sqlite3";
import type { QuestionRecord } from "../../../record/record.ts";
import { CorruptRecordError, QuestionExistsError, SessionBusyError } from "../kit/errors.ts";
import { enforceQuota, quotaCheckFor, type PendingCounts, type QuotaCheck } from "../kit/pending-limits.ts";
import { createClaimTable } from "../kit/claims.ts";
import { decodeSkippingCorrupt, normalizeLimit } from "../kit/reads.ts";
import { createRecordOperations } from "../kit/record-cell.ts";
import { openSqliteDatabase } from "./sqlite-schema.ts";
import { lateUntilSql } from "../kit/late-window-sql.ts";
import { deliveriesFromJson, deliveryToParams, recordToParams, resolutionToParams, rowToRecord } from "../kit/sql-row.ts";
import type { DeliveryRow, QuestionRow } from "../kit/sql-row.ts";
import type { QuestionStore, Resolution, ResolveOutcome } from "../kit/types.ts";
import { createSqliteOutbox } from "./sqlite-outbox.ts";
import { createSqliteCell } from "./sqlite-cell.ts";
import { createGroupCommit, runStep as run } from "./sqlite-commit.ts";
import { COLUMNS, READ, createSqliteFilters } from "./sqlite-read.ts";

export interface SqliteStoreOptions {
  /** The directory for `ask-user-bridge.sqlite`; created if missing. */
  dataDir: string;
  /** Told about each corrupt row that `list` / `expireDue` skipped. Defaults to one console.warn per row. */
  onCorruptRecord?: (error: CorruptRecordError) => void;
  /**
   * Group commit (default on): the writes of one event-loop turn share one IMMEDIATE transaction, committed at the
   * end of the turn (setImmediate), and each write's promise settles once that commit is done. Off: every write
   * commits on its own before its promise settles.
   */
  groupCommit?: boolean;
  /** Webhook URLs: each resolution and late answer writes one outbox message per URL in its commit (none: no outbox). */
  webhookUrls?: readonly string[];
}

const warnCorruptRecord = (error: CorruptRecordError): void => console.warn(`[store] skipped: ${error.message}`);

/**
 * The durable store: one better-sqlite3 connection in WAL mode (see SQLITE_PRAGMAS), for one gateway process.
 * Statements are prepared once and run synchronously, so each write (a savepoint of its own) is atomic in this
 * process: a resolution is a compare-and-set from pending, a delivery is recorded at most once per (question,
 * surface, chat), and a session's pending question is checked and inserted in one step.
 *
 * With group commit (the default) the writes of one event-loop turn share one IMMEDIATE transaction, committed at
 * the end of the turn; a write's promise settles only after that COMMIT, so nothing is acknowledged before it is
 * durable. Reads see every write at once. Delivery claims live in memory: one process owns this database.
 */
export function createSqliteStore({ dataDir, onCorruptRecord = warnCorruptRecord, groupCommit = true, webhookUrls = [] }: SqliteStoreOptions): QuestionStore {
  const db = openSqliteDatabase(dataDir);
  const outbox = createSqliteOutbox(db, webhookUrls);
  const commit = createGroupCommit(db, groupCommit);
  const { beginWrite, durable } = commit;
  const filters = createSqliteFilters(db);
  const sql = {
    insert: db.prepare(`INSERT INTO questions (${COLUMNS}) VALUES (${COLUMNS.replace(/(\w+)/g, "@$1")})`),
    get: db.prepare<[string], QuestionRow>(`SELECT ${READ} FROM questions WHERE id = ?`),
    /** Sessions are per asker: `IS` matches the admin's records (no asked_by) with each other. */
    sessionBusy: db.prepare<[string, string | null], { found: 1 }>(
      `SELECT 1 AS found FROM questions WHERE session_key = ? AND asked_by IS ? AND status = 'pending' LIMIT 1`,
    ),
    /** A credential's pending records, and those in one run of it, from the (asked_by, run_id) pending index. */
    pendingCounts: db.prepare<[string | null, string], PendingCounts>(
      `SELECT count(*) FILTER (WHERE run_id = ?) AS run, count(*) AS credential FROM questions WHERE status = 'pending' AND asked_by = ?`,
    ),
    deliveries: db.prepare<[string], DeliveryRow>(
      `SELECT surface, chat, message_ref, delivered_at_ms, rendered FROM deliveries WHERE question_id = ? ORDER BY rowid`,
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
      `INSERT OR IGNORE INTO deliveries (question_id, surface, chat, message_ref, delivered_at_ms, rendered)
       VALUES (@question_id, @surface, @chat, @message_ref, @delivered_at_ms, @rendered)`,
    ),
    markReplySeen: db.prepare<[string, string, string, number]>(
      `INSERT OR IGNORE INTO reply_keys (surface, chat, message_ref, seen_at_ms) VALUES (?, ?, ?, ?)`,
    ),
    unmarkReplySeen: db.prepare<[string, string, string]>(`DELETE FROM reply_keys WHERE surface = ? AND chat = ? AND message_ref = ?`),
    pruneRepliesSeen: db.prepare<[number]>(`DELETE FROM reply_keys WHERE seen_at_ms < ?`),
    putSecret: db.prepare<[string, Buffer, number]>(`INSERT OR IGNORE INTO secrets (name, value, created_at_ms) VALUES (?, ?, ?)`),
    getSecret: db.prepare<[string], { value: Buffer }>(`SELECT value FROM secrets WHERE name = ?`),
    /** The compare-and-set; RETURNING gives the resolved row without a second read. */
    resolve: db.prepare<[Record<string, string | number | null>], QuestionRow>(
      `UPDATE questions SET status = @status, resolved_at_ms = @resolved_at_ms,
         answers_json = COALESCE(@answers_json, answers_json), by_json = COALESCE(@by_json, by_json),
         reason = COALESCE(@reason, reason), detail = COALESCE(@detail, detail),
         late_until_ms = COALESCE(CASE WHEN @status = 'expired' THEN ${lateUntilSql("@resolved_at_ms")} END, late_until_ms)
       WHERE id = @id AND status = 'pending'
       RETURNING ${READ}`,
    ),
    followUpsDue: db.prepare<[number, number], QuestionRow>(
      `SELECT ${READ} FROM questions WHERE status = 'pending' AND next_due_ms IS NOT NULL AND next_due_ms <= ? ORDER BY next_due_ms, id LIMIT ?`,
    ),
    nextDue: db.prepare<[], { next: number | null }>(`SELECT min(next_due_ms) AS next FROM questions WHERE status = 'pending' AND next_due_ms IS NOT NULL`),
    nextLateEnd: db.prepare<[number], { next: number | null }>(
      `SELECT min(late_until_ms) AS next FROM questions WHERE late_until_ms IS NOT NULL AND late_json IS NULL AND late_until_ms > ?`,
    ),
    lateWindowsEnded: db.prepare<[number, number, number], QuestionRow>(
      `SELECT ${READ} FROM questions WHERE late_until_ms IS NOT NULL AND late_json IS NULL AND late_until_ms > ? AND late_until_ms <= ?
       AND status = 'expired' ORDER BY late_until_ms, id LIMIT ?`,
    ),
    expired: db.prepare<[number, number], QuestionRow>(
      `SELECT ${READ} FROM questions WHERE status = 'pending' AND expires_at_ms <= ? ORDER BY expires_at_ms, id LIMIT ?`,
    ),
    pendingExpiries: db.prepare<[], { id: string; expires_at_ms: number }>(
      `SELECT id, expires_at_ms FROM questions WHERE status = 'pending' ORDER BY expires_at_ms`,
    ),
  };
  /** Rows found corrupt on this connection; nextExpiryMs skips them so the scheduler cannot spin on one. */
  const corruptIds = new Set<string>();

  const claims = createClaimTable();

  const decode = (row: QuestionRow): QuestionRecord =>
    rowToRecord(row, row.deliveries_json === undefined ? sql.deliveries.all(row.id) : deliveriesFromJson(row.deliveries_json));
  const read = (id: string): QuestionRecord | undefined => {
    const row = sql.get.get(id);
    return row && decode(row);
  };
  /** Decodes many rows, skipping (and reporting) corrupt ones so one bad row never hides the rest. */
  const decodeAll = (rows: QuestionRow[]): QuestionRecord[] => decodeSkippingCorrupt(rows, decode, corruptIds, onCorruptRecord);

  /** Counts and inserts in one transaction: one connection, run synchronously, so the quota is exact. */
  const insertWithinQuota = db.transaction((record: QuestionRecord, quota: QuotaCheck) => {
    enforceQuota(quota, sql.pendingCounts.get(quota.runId ?? null, quota.askedBy)!);
    insert(record);
  });

  const create = db.transaction((record: QuestionRecord) => {
    sql.insert.run(recordToParams(record));
    for (const target of record.targets) if (target.chat !== undefined) sql.insertTarget.run(target.chat, target.surface, record.id);
    for (const delivery of record.deliveries) sql.insertDelivery.run(deliveryToParams(record.id, delivery));
  });

  const resolve = db.transaction((id: string, resolution: Resolution): ResolveOutcome => {
    const row = sql.resolve.get(resolutionToParams(id, resolution));
    if (row) {
      claims.forget(id);
      const record = decode(row);
      outbox.add("question.resolved", record);
      return { ok: true, record };
    }
    const record = read(id);
    return record ? { ok: false, code: "QUESTION_ALREADY_TERMINAL", record } : { ok: false, code: "QUESTION_NOT_FOUND" };
  });

  /** A write of its own: begun (group commit), then its result once durable. */
  const write = <T>(step: () => T): Promise<T> =>
    run(() => {
      beginWrite();
      return durable(step());
    });

  return {
    ...createRecordOperations(createSqliteCell(db, commit, outbox)),
    create: (record, limits) =>
      write(() => {
        const quota = quotaCheckFor(record, limits);
        if (quota) insertWithinQuota.immediate(record, quota);
        else insert(record);
      }),
    countPending: (filter = {}) =>
      run(() => {
        // As in list: a comma could never name one surface of the comma-delimited column.
        if (filter.surface?.includes(",")) return 0;
        const params: Record<string, unknown> = {};
        for (const key of ["runId", "askedBy", "surface"] as const) if (filter[key] !== undefined) params[key] = filter[key];
        return filters.count(filter).get(params)!.n;
      }),
    get: (id) => run(() => read(id)),
    list: (filter = {}) =>
      run(() => {
        // Surfaces are comma-delimited in the column; a comma in the filter could never name one surface.
        if (filter.surface?.includes(",")) return [];
        const params: Record<string, unknown> = { limit: normalizeLimit(filter.limit) ?? -1 };
        for (const key of ["status", "runId", "sessionKey", "askedBy", "surface", "chat"] as const) {
          if (filter[key] !== undefined) params[key] = filter[key];
        }
        if (filter.before !== undefined) Object.assign(params, { beforeCreatedAtMs: filter.before.createdAtMs, beforeId: filter.before.id });
        return decodeAll(filters.list(filter).all(params));
      }),
    resolve: (id, resolution) => write(() => resolve.immediate(id, resolution)),
    expireDue: (nowMs, limit) =>
      run(() => {
        const due = decodeAll(sql.expired.all(nowMs, Math.max(0, limit)));
        if (due.length === 0) return due;
        beginWrite();
        const expired = due.flatMap((record) => {
          const outcome = resolve.immediate(record.id, { status: "expired", reason: "expired", resolvedAtMs: nowMs });
          return outcome.ok ? [outcome.record] : [];
        });
        return durable(expired);
      }),
    nextExpiryMs: () =>
      run(() => {
        for (const row of sql.pendingExpiries.iterate()) {
          if (!corruptIds.has(row.id)) return row.expires_at_ms;
        }
        return undefined;
      }),
    pendingAwaitingDelivery: () => run(() => decodeAll(sql.awaitingDelivery.all())),
    claimDelivery: (claim) => run(() => claims.claim(read(claim.id), claim)),
    followUpsDue: (nowMs, limit) => run(() => decodeAll(sql.followUpsDue.all(nowMs, Math.max(0, limit)))),
    nextFollowUpMs: (lateAfterMs) =>
      run(() => {
        const times = [sql.nextDue.get()?.next, sql.nextLateEnd.get(lateAfterMs)?.next].filter((t): t is number => typeof t === "number");
        return times.length > 0 ? Math.min(...times) : undefined;
      }),
    lateWindowsEnded: (afterMs, uptoMs, limit) => run(() => decodeAll(sql.lateWindowsEnded.all(afterMs, uptoMs, Math.max(0, limit)))),
    liveClaims: (id, nowMs) => run(() => claims.live(read(id), nowMs)),
    markReplySeen: (key, atMs) => write(() => sql.markReplySeen.run(key.surface, key.chat, key.messageRef, atMs).changes === 1),
    unmarkReplySeen: (key) =>
      write(() => {
        sql.unmarkReplySeen.run(key.surface, key.chat, key.messageRef);
      }),
    pruneRepliesSeen: (beforeMs) => write(() => sql.pruneRepliesSeen.run(beforeMs).changes),
    sharedSecret: (name, candidate) =>
      write(() => {
        sql.putSecret.run(name, candidate, Date.now());
        return Buffer.from(sql.getSecret.get(name)!.value);
      }),
    claimWebhooks: (claim) => write(() => outbox.claim(claim)),
    settleWebhook: (id, claimant, settlement) => write(() => outbox.settle(id, claimant, settlement)),
    nextWebhookMs: () => run(() => outbox.next()),
    countWebhooks: () => run(() => outbox.count()),
    pruneWebhooks: (doneBeforeMs) => write(() => outbox.prune(doneBeforeMs)),
    async close() {
      if (!db.open) return;
      commit.commit();
      db.pragma("optimize");
      db.close();
    },
  };

  /** Inserts a record, refusing a taken id or a second pending question for one session of one asker. */
  function insert(record: QuestionRecord): void {
    if (record.status === "pending" && record.sessionKey !== undefined && sql.sessionBusy.get(record.sessionKey, record.askedBy ?? null)) {
      throw new SessionBusyError(record.sessionKey);
    }
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
  }
}
