import { SqliteError } from "better-sqlite3";
import type Database from "better-sqlite3";
import type { Delivery, LateAnswer, QuestionRecord, TargetState } from "../../../record/record.ts";
import { CorruptRecordError, QuestionExistsError, SessionBusyError } from "../kit/errors.ts";
import { enforceQuota, quotaCheckFor, type PendingCounts, type QuotaCheck } from "../kit/pending-limits.ts";
import { createClaimTable, decodeSkippingCorrupt, normalizeLimit } from "../kit/record-ops.ts";
import { openSqliteDatabase } from "./sqlite-schema.ts";
import {
  applyEscalation,
  applyLateAnswer,
  applyReminder,
  applyReminderCopy,
  reminderClaimFor,
  reminderOffsetOf,
} from "../kit/follow-ups.ts";
import { lateUntilSql } from "../kit/late-window-sql.ts";
import { acceptsLateAnswer, lateRefusal } from "../../../record/late-window.ts";
import { deliveriesFromJson, deliveryToParams, followUpParams, recordToParams, resolutionToParams, rowToRecord, surfacesColumn } from "../kit/sql-row.ts";
import type { DeliveryRow, QuestionRow } from "../kit/sql-row.ts";
import type { LateOutcome, ListFilter, PendingFilter, QuestionStore, Resolution, ResolveOutcome } from "../kit/types.ts";
import { createSqliteOutbox } from "./sqlite-outbox.ts";

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

const targetStateParams = (id: string, state: TargetState) => ({
  question_id: id,
  surface: state.surface,
  chat: state.chat,
  state: state.state,
  reason: state.reason,
  at_ms: state.atMs,
  retry_at_ms: state.retryAtMs ?? null,
});

const warnCorruptRecord = (error: CorruptRecordError): void => console.warn(`[store] skipped: ${error.message}`);

const COLUMNS = `id, status, created_at_ms, expires_at_ms, resolved_at_ms, timeout_seconds, run_id, session_key,
  surfaces, reason, detail, questions_json, answers_json, by_json, targets_json, partial_json, asked_by,
  policy_json, progress_json, next_due_ms, late_answer_seconds, late_until_ms, late_json`;
/** What reads select: the columns, and the record's deliveries in the same statement (in the order they were recorded). */
const READ = `${COLUMNS},
  (SELECT json_group_array(json_array(surface, chat, message_ref, delivered_at_ms, rendered) ORDER BY rowid)
   FROM deliveries WHERE question_id = questions.id) AS deliveries_json,
  (SELECT json_group_array(json_array(s.surface, s.chat, s.state, s.reason, s.at_ms, s.retry_at_ms) ORDER BY s.rowid)
   FROM target_states s WHERE s.question_id = questions.id
     AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.question_id = s.question_id AND d.surface = s.surface AND d.chat = s.chat)
  ) AS states_json`;

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
  const sql = {
    insert: db.prepare(`INSERT INTO questions (${COLUMNS}) VALUES (${COLUMNS.replace(/(\w+)/g, "@$1")})`),
    get: db.prepare<[string], QuestionRow>(`SELECT ${READ} FROM questions WHERE id = ?`),
    exists: db.prepare<[string], { found: 1 }>(`SELECT 1 AS found FROM questions WHERE id = ?`),
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
    /** One state per chat; `retrying` never replaces `failed`, and `waiting` replaces only `waiting`. */
    upsertTargetState: db.prepare(
      `INSERT INTO target_states (question_id, surface, chat, state, reason, at_ms, retry_at_ms)
       VALUES (@question_id, @surface, @chat, @state, @reason, @at_ms, @retry_at_ms)
       ON CONFLICT (question_id, surface, chat) DO UPDATE SET
         state = excluded.state, reason = excluded.reason, at_ms = excluded.at_ms, retry_at_ms = excluded.retry_at_ms
       WHERE NOT (target_states.state = 'failed' AND excluded.state = 'retrying')
         AND NOT (excluded.state = 'waiting' AND target_states.state <> 'waiting')`,
    ),
    /** A chat's `waiting` state, looked up before it is removed (most claims find none: no write then). */
    hasWaiting: db.prepare<[string, string, string], { found: 1 }>(
      `SELECT 1 AS found FROM target_states WHERE question_id = ? AND surface = ? AND chat = ? AND state = 'waiting'`,
    ),
    clearWaiting: db.prepare<[string, string, string]>(`DELETE FROM target_states WHERE question_id = ? AND surface = ? AND chat = ? AND state = 'waiting'`),
    /** A copy refused after it was sent: only that message's delivery, on a pending question. */
    withdrawDelivery: db.prepare<[string, string, string, string]>(
      `DELETE FROM deliveries WHERE question_id = ? AND surface = ? AND chat = ? AND message_ref = ?
         AND EXISTS (SELECT 1 FROM questions WHERE id = deliveries.question_id AND status = 'pending')`,
    ),
    setRendered: db.prepare<[string, string, string, string]>(`UPDATE deliveries SET rendered = ? WHERE question_id = ? AND surface = ? AND chat = ?`),
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
    savePartial: db.prepare<[string, string]>(`UPDATE questions SET partial_json = ? WHERE id = ?`),
    /** A follow-up's write (the caller checked and computed it from the record read in the same transaction). */
    saveFollowUp: db.prepare(
      `UPDATE questions SET policy_json = @policy_json, progress_json = @progress_json, next_due_ms = @next_due_ms,
         targets_json = @targets_json, surfaces = @surfaces WHERE id = @id`,
    ),
    saveLate: db.prepare<[string, string]>(`UPDATE questions SET late_json = ?, partial_json = NULL WHERE id = ?`),
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
  const listStatements = new Map<string, Database.Statement<[Record<string, unknown>], QuestionRow>>();
  const countStatements = new Map<string, Database.Statement<[Record<string, unknown>], { n: number }>>();
  /** Rows found corrupt on this connection; nextExpiryMs skips them so the scheduler cannot spin on one. */
  const corruptIds = new Set<string>();

  const claims = createClaimTable();

  /** The open group-commit transaction: callbacks waiting for its COMMIT. */
  let batch: Array<(error?: unknown) => void> | undefined;

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
  const decodeAll = (rows: QuestionRow[]): QuestionRecord[] => decodeSkippingCorrupt(rows, decode, corruptIds, onCorruptRecord);

  const listStatement = (filter: ListFilter) => {
    const where: string[] = [];
    if (filter.status !== undefined) where.push("status = @status");
    if (filter.runId !== undefined) where.push("run_id = @runId");
    if (filter.sessionKey !== undefined) where.push("session_key = @sessionKey");
    if (filter.askedBy !== undefined) where.push("asked_by = @askedBy");
    if (filter.late === true) where.push("late_json IS NOT NULL");
    if (filter.surface !== undefined) where.push("instr(surfaces, ',' || @surface || ',') > 0");
    if (filter.chat !== undefined) {
      where.push(
        `id IN (SELECT question_id FROM question_targets WHERE chat = @chat${filter.surface !== undefined ? " AND surface = @surface" : ""})`,
      );
    }
    // A row value, so the (created_at_ms DESC, id DESC) indexes seek straight to the page.
    if (filter.before !== undefined) where.push("(created_at_ms, id) < (@beforeCreatedAtMs, @beforeId)");
    const text = `SELECT ${READ} FROM questions ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY created_at_ms DESC, id DESC LIMIT @limit`;
    let statement = listStatements.get(text);
    if (!statement) listStatements.set(text, (statement = db.prepare(text)));
    return statement;
  };

  /** The pending count for `countPending`, one statement per combination of filter fields. */
  const countStatement = (filter: PendingFilter) => {
    const where = ["status = 'pending'"];
    if (filter.runId !== undefined) where.push("run_id = @runId");
    if (filter.askedBy !== undefined) where.push("asked_by = @askedBy");
    if (filter.surface !== undefined) where.push("instr(surfaces, ',' || @surface || ',') > 0");
    const text = `SELECT count(*) AS n FROM questions WHERE ${where.join(" AND ")}`;
    let statement = countStatements.get(text);
    if (!statement) countStatements.set(text, (statement = db.prepare(text)));
    return statement;
  };

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

  const addDelivery = db.transaction((id: string, delivery: Delivery): QuestionRecord | undefined => {
    if (!sql.exists.get(id)) return undefined;
    sql.insertDelivery.run(deliveryToParams(id, delivery));
    return read(id);
  });

  /** Removes the copy and records the chat's state in one transaction; the state only when the copy was there. */
  const withdrawDelivery = db.transaction((id: string, messageRef: string, state: TargetState): QuestionRecord | undefined => {
    if (!sql.exists.get(id)) return undefined;
    if (sql.withdrawDelivery.run(id, state.surface, state.chat, messageRef).changes === 1) sql.upsertTargetState.run(targetStateParams(id, state));
    return read(id);
  });

  /** A follow-up compare-and-set: read, `apply` (undefined: nothing to do), write, in one transaction. */
  const followUp = db.transaction((id: string, apply: (record: QuestionRecord) => QuestionRecord | undefined): QuestionRecord | undefined => {
    const record = read(id);
    const next = record && apply(record);
    if (!next) return undefined;
    sql.saveFollowUp.run({ id, ...followUpParams(next), targets_json: JSON.stringify(next.targets), surfaces: surfacesColumn(next.targets) });
    for (const target of next.targets) if (target.chat !== undefined) sql.insertTarget.run(target.chat, target.surface, id);
    return read(id);
  });

  const setLate = db.transaction((id: string, late: LateAnswer): LateOutcome => {
    const record = read(id);
    if (!record) return { ok: false, code: "QUESTION_NOT_FOUND" };
    const why = lateRefusal(record, late.atMs);
    if (why || !applyLateAnswer(record, late)) return { ok: false, code: "QUESTION_ALREADY_TERMINAL", record, why: why ?? "late_answered" };
    sql.saveLate.run(JSON.stringify(late), id);
    const updated = read(id)!;
    outbox.add("question.lateAnswered", updated);
    return { ok: true, record: updated };
  });

  /** Reminder-copy claims (in memory, like the prompt claims): `id\nsurface\nchat\noffset` → the claim held. */
  const reminderClaims = new Map<string, { claimant: string; leaseUntilMs: number }>();

  /** A write's result, once it is durable: after the turn's COMMIT under group commit, else at once. */
  function durable<T>(value: T): Promise<T> {
    const waiting = batch;
    if (!waiting) return Promise.resolve(value);
    return new Promise<T>((resolve, reject) => waiting.push((error) => (error === undefined ? resolve(value) : reject(error))));
  }

  /** Runs a synchronous step as a promise: its throw becomes a rejection. */
  function run<T>(step: () => T | Promise<T>): Promise<T> {
    try {
      return Promise.resolve(step());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  return {
    create: (record, limits) =>
      run(() => {
        beginWrite();
        const quota = quotaCheckFor(record, limits);
        if (quota) insertWithinQuota.immediate(record, quota);
        else insert(record);
        return durable(undefined);
      }),
    countPending: (filter = {}) =>
      run(() => {
        // As in list: a comma could never name one surface of the comma-delimited column.
        if (filter.surface?.includes(",")) return 0;
        const params: Record<string, unknown> = {};
        for (const key of ["runId", "askedBy", "surface"] as const) if (filter[key] !== undefined) params[key] = filter[key];
        return countStatement(filter).get(params)!.n;
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
        return decodeAll(listStatement(filter).all(params));
      }),
    resolve: (id, resolution) =>
      run(() => {
        beginWrite();
        return durable(resolve.immediate(id, resolution));
      }),
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
    addDelivery: (id, delivery) =>
      run(() => {
        beginWrite();
        return durable(addDelivery.immediate(id, delivery));
      }),
    mergePartial: (id, answers, options = {}) =>
      run(() => {
        const record = read(id);
        if (!record) return record;
        const late = options.lateAtMs !== undefined && acceptsLateAnswer(record, options.lateAtMs);
        if (record.status !== "pending" && !late) return record;
        beginWrite();
        sql.savePartial.run(JSON.stringify({ ...record.partialAnswers, ...answers }), id);
        return durable(read(id));
      }),
    pendingAwaitingDelivery: () => run(() => decodeAll(sql.awaitingDelivery.all())),
    claimDelivery: (claim) =>
      run(() => {
        const offsetSeconds = reminderOffsetOf(claim.copy);
        if (offsetSeconds === undefined) return claims.claim(read(claim.id), claim);
        const key = `${claim.id}\n${claim.surface}\n${claim.chat}\n${offsetSeconds}`;
        const outcome = reminderClaimFor(read(claim.id), reminderClaims.get(key), { ...claim, offsetSeconds });
        if (outcome.ok) reminderClaims.set(key, { claimant: claim.claimant, leaseUntilMs: outcome.leaseUntilMs });
        else if (outcome.reason !== "claimed") reminderClaims.delete(key);
        return outcome;
      }),
    followUpsDue: (nowMs, limit) => run(() => decodeAll(sql.followUpsDue.all(nowMs, Math.max(0, limit)))),
    nextFollowUpMs: (lateAfterMs) =>
      run(() => {
        const times = [sql.nextDue.get()?.next, sql.nextLateEnd.get(lateAfterMs)?.next].filter((t): t is number => typeof t === "number");
        return times.length > 0 ? Math.min(...times) : undefined;
      }),
    lateWindowsEnded: (afterMs, uptoMs, limit) => run(() => decodeAll(sql.lateWindowsEnded.all(afterMs, uptoMs, Math.max(0, limit)))),
    markReminder: (id, offsetSeconds, atMs, skipped = false) =>
      run(() => {
        beginWrite();
        return durable(followUp.immediate(id, (record) => applyReminder(record, offsetSeconds, atMs, skipped)));
      }),
    markEscalated: (id, step, atMs) =>
      run(() => {
        beginWrite();
        return durable(followUp.immediate(id, (record) => applyEscalation(record, step, atMs)));
      }),
    addReminderCopy: (id, copy) =>
      run(() => {
        if (!sql.exists.get(id)) return undefined;
        beginWrite();
        return durable(followUp.immediate(id, (record) => applyReminderCopy(record, copy)) ?? read(id));
      }),
    setLateAnswer: (id, late) =>
      run(() => {
        beginWrite();
        return durable(setLate.immediate(id, late));
      }),
    liveClaims: (id, nowMs) => run(() => claims.live(read(id), nowMs)),
    setTargetState: (id, state) =>
      run(() => {
        if (!sql.exists.get(id)) return undefined;
        beginWrite();
        sql.upsertTargetState.run(targetStateParams(id, state));
        return durable(read(id));
      }),
    clearWaiting: (id, surface, chat) =>
      run(() => {
        if (!sql.hasWaiting.get(id, surface, chat)) return undefined;
        beginWrite();
        sql.clearWaiting.run(id, surface, chat);
        return durable(read(id));
      }),
    withdrawDelivery: (id, messageRef, state) =>
      run(() => {
        beginWrite();
        return durable(withdrawDelivery.immediate(id, messageRef, state));
      }),
    setRendered: (id, surface, chat, rendered) =>
      run(() => {
        if (!sql.exists.get(id)) return undefined;
        beginWrite();
        sql.setRendered.run(rendered, id, surface, chat);
        return durable(read(id));
      }),
    markReplySeen: (key, atMs) =>
      run(() => {
        beginWrite();
        return durable(sql.markReplySeen.run(key.surface, key.chat, key.messageRef, atMs).changes === 1);
      }),
    unmarkReplySeen: (key) =>
      run(() => {
        beginWrite();
        sql.unmarkReplySeen.run(key.surface, key.chat, key.messageRef);
        return durable(undefined);
      }),
    pruneRepliesSeen: (beforeMs) =>
      run(() => {
        beginWrite();
        return durable(sql.pruneRepliesSeen.run(beforeMs).changes);
      }),
    sharedSecret: (name, candidate) =>
      run(() => {
        beginWrite();
        sql.putSecret.run(name, candidate, Date.now());
        return durable(Buffer.from(sql.getSecret.get(name)!.value));
      }),
    claimWebhooks: (claim) =>
      run(() => {
        beginWrite();
        return durable(outbox.claim(claim));
      }),
    settleWebhook: (id, claimant, settlement) =>
      run(() => {
        beginWrite();
        return durable(outbox.settle(id, claimant, settlement));
      }),
    nextWebhookMs: () => run(() => outbox.next()),
    countWebhooks: () => run(() => outbox.count()),
    pruneWebhooks: (doneBeforeMs) =>
      run(() => {
        beginWrite();
        return durable(outbox.prune(doneBeforeMs));
      }),
    async close() {
      if (!db.open) return;
      commitBatch();
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
