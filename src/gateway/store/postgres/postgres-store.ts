import { randomBytes } from "node:crypto";
import type { QuestionRecord } from "../../../record/record.ts";
import {
  applyEscalation,
  applyReminder,
  applyReminderCopy,
  reminderClaimFor,
  reminderOffsetOf,
} from "../kit/follow-ups.ts";
import { lateRefusal } from "../../../record/late-window.ts";
import { lateAnswerOpenSql, lateUntilSql } from "../kit/late-window-sql.ts";
import { followUpParams } from "../kit/sql-row.ts";
import type { CorruptRecordError } from "../kit/errors.ts";
import { startPostgresChanges, type PostgresChanges } from "./postgres-changes.ts";
import { countPostgresPending, insertPostgresRecord } from "./postgres-pending.ts";
import { createPostgresOutbox } from "./postgres-outbox.ts";
import { createPostgresStatements } from "./postgres-pool.ts";
import { createPostgresPresence } from "./postgres-presence.ts";
import {
  postgresRowToRecord,
  READ_RECORD,
  RESOLVE_RECORD,
  resolutionToValues,
  type PostgresQuestionRow,
} from "./postgres-row.ts";
import { runPostgresMigrations } from "./postgres-schema.ts";
import { compareSoonestExpiry, decodeSkippingCorrupt, normalizeLimit } from "../kit/record-ops.ts";
import type { ClaimOutcome, DeliveryClaim, HeldClaim, LateOutcome, ListFilter, QuestionStore, ResolveOutcome, StoreChange } from "../kit/types.ts";

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/database` (any libpq-style URL node-postgres accepts). */
  connectionString: string;
  /**
   * This instance's name, sent as `application_name` (printable ASCII, at most 63 characters): the triggers stamp
   * each notification with it, so an instance skips its own changes. Defaults to a random `aub-…` id.
   */
  instanceId?: string;
  /** Told about each corrupt row that a multi-record read skipped. Defaults to one warning per row. */
  onCorruptRecord?: (error: CorruptRecordError) => void;
  log?: (message: string, error?: unknown) => void;
  /** Pool size (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection, new or from a busy pool, before StoreUnavailableError (default 5 s). */
  connectTimeoutMs?: number;
  /** The server cancels a statement after this long (default 10 s); the client gives up 2 s later. */
  statementTimeoutMs?: number;
  /** How often the LISTEN connection is checked with `SELECT 1` (default 30 s). */
  listenHeartbeatMs?: number;
  /** The wait before LISTEN reconnect attempt `n` (default: backoffDelay, 250 ms doubling to 5 s, jittered). */
  reconnectDelay?: (attempt: number) => number;
  /** Webhook URLs: each resolution and late answer writes one outbox message per URL in its transaction (none: no outbox). */
  webhookUrls?: readonly string[];
}

/** The PostgreSQL store: a QuestionStore shared by instances, which also says when to re-read everything. */
export interface PostgresQuestionStore extends QuestionStore {
  readonly instanceId: string;
  onRemoteChange(handler: (change: StoreChange) => void): () => void;
  /**
   * Runs `handler` each time the LISTEN connection is back after a loss (LISTEN is active again when it runs).
   * Changes other instances committed while it was down were never announced: re-read what you follow (pending
   * records, waiters, the next expiry) once, from the store.
   */
  onResync(handler: () => void): () => void;
}

const APPLICATION_NAME = /^[\x20-\x7e]{1,63}$/;

const warn = (message: string, error?: unknown): void =>
  error === undefined ? console.warn(`[store] ${message}`) : console.warn(`[store] ${message}`, error);

/**
 * The store for several gateway instances sharing one PostgreSQL database. Migrates before it resolves. Every
 * state change is one statement with a compare-and-set guard (autocommit, so it is durable when it returns), except
 * a create under quota: a short transaction under the credential's advisory lock (postgres-pending.ts);
 * triggers NOTIFY the other instances, and one dedicated connection LISTENs, reconnecting with backoff.
 * When PostgreSQL is unreachable every call rejects with StoreUnavailableError within the configured timeouts,
 * and the pool reconnects by itself once it is back.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresQuestionStore> {
  const {
    connectionString,
    instanceId = `aub-${randomBytes(6).toString("hex")}`,
    onCorruptRecord = (error) => warn(`skipped: ${error.message}`),
    log = warn,
    connectTimeoutMs = 5_000,
    statementTimeoutMs = 10_000,
  } = options;
  if (!APPLICATION_NAME.test(instanceId)) {
    throw new Error(`instanceId must be 1 to 63 printable ASCII characters (it is sent as application_name): ${JSON.stringify(instanceId)}`);
  }
  await runPostgresMigrations(connectionString, { connectTimeoutMs });

  const statements = await createPostgresStatements({
    connectionString,
    instanceId,
    maxConnections: options.maxConnections ?? 10,
    connectTimeoutMs,
    statementTimeoutMs,
    log,
  });
  const { query, end } = statements;
  const outbox = createPostgresOutbox(statements, options.webhookUrls ?? []);
  /** Rows found corrupt; each is reported once. */
  const corruptIds = new Set<string>();
  const decode = postgresRowToRecord;
  const decodeAll = (rows: PostgresQuestionRow[]): QuestionRecord[] => decodeSkippingCorrupt(rows, decode, corruptIds, onCorruptRecord);

  let changes: PostgresChanges;
  try {
    changes = await startPostgresChanges({
      connectionString,
      instanceId,
      connectTimeoutMs,
      statementTimeoutMs,
      log,
      reconnectDelay: options.reconnectDelay,
      heartbeatMs: options.listenHeartbeatMs,
      readRecords: async (ids) =>
        decodeAll(await query<PostgresQuestionRow>("get", false, `SELECT ${READ_RECORD} FROM questions q WHERE q.id = ANY($1::text[])`, [ids])),
    });
  } catch (error) {
    await end().catch(() => undefined);
    throw error;
  }
  let closed = false;

  const get = async (id: string): Promise<QuestionRecord | undefined> => {
    const [row] = await query<PostgresQuestionRow>("get", false, `SELECT ${READ_RECORD} FROM questions q WHERE q.id = $1`, [id]);
    return row && decode(row);
  };

  /**
   * Runs a compare-and-set (`… WHERE status = 'pending' RETURNING`). When it changed nothing, reads the record as
   * committed now: absent or terminal is the answer; pending means it was created after the update looked, so the
   * update runs again.
   */
  type CasOutcome = { updated: QuestionRecord } | { current: QuestionRecord | undefined };
  async function compareAndSet(
    operation: string,
    id: string,
    text: string,
    values: unknown[],
    write = (): Promise<PostgresQuestionRow[]> => query<PostgresQuestionRow>(operation, true, text, values),
  ): Promise<CasOutcome> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [row] = await write();
      if (row) return { updated: decode(row) };
      const current = await get(id);
      if (current?.status !== "pending") return { current };
    }
    throw new Error(`question ${id} stayed pending while its compare-and-set matched nothing`);
  }

  /**
   * A follow-up write: read the record and its `follow_version`, `apply` (undefined: nothing to do), and write it
   * only if neither the version nor the status moved meanwhile (else read again). New chat targets join
   * question_targets in the same statement. `event` is what the trigger announces to the other instances.
   */
  async function followUp(
    operation: string,
    id: string,
    apply: (record: QuestionRecord) => QuestionRecord | undefined,
    event: StoreChange["event"] | null,
  ): Promise<QuestionRecord | undefined> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const [row] = await query<PostgresQuestionRow & { follow_version: number }>(
        operation,
        false,
        `SELECT ${READ_RECORD}, q.follow_version FROM questions q WHERE q.id = $1`,
        [id],
      );
      if (!row) return undefined;
      const next = apply(decode(row));
      if (!next) return undefined;
      const p = followUpParams(next);
      const chats = next.targets.filter((t) => t.chat !== undefined);
      const [updated] = await query<PostgresQuestionRow>(
        operation,
        true,
        `WITH u AS (
           UPDATE questions q SET progress_json = $4::json, next_due_ms = $5::bigint, targets_json = $6::json,
             surfaces = $7::text[], follow_version = q.follow_version + 1, follow_event = $8
           WHERE q.id = $1 AND q.follow_version = $2::bigint AND q.status = $3
           RETURNING ${READ_RECORD}
         ), t AS (
           INSERT INTO question_targets (chat, surface, question_id)
           SELECT c.chat, c.surface, u.id FROM u, unnest($9::text[], $10::text[]) AS c (chat, surface)
           ON CONFLICT DO NOTHING
         )
         SELECT * FROM u`,
        [
          id, row.follow_version, row.status, p.progress_json, p.next_due_ms, JSON.stringify(next.targets),
          [...new Set(next.targets.map((t) => t.surface))], event, chats.map((t) => t.chat), chats.map((t) => t.surface),
        ],
      );
      if (updated) return decode(updated);
    }
    throw new Error(`question ${id}: its follow-up kept changing under ${operation}`);
  }

  async function claimReminderCopy(claim: DeliveryClaim, offsetSeconds: number): Promise<ClaimOutcome> {
    const checked = reminderClaimFor(await get(claim.id), undefined, { ...claim, offsetSeconds });
    if (!checked.ok) return checked;
    const leaseUntilMs = claim.nowMs + claim.leaseMs;
    const [row] = await query<{ claimant: string; lease_until_ms: number }>(
      "claimDelivery",
      true,
      `INSERT INTO reminder_claims AS c (question_id, surface, chat, offset_seconds, claimant, lease_until_ms)
       VALUES ($1, $2, $3, $4::bigint, $5, $7::bigint)
       ON CONFLICT (question_id, surface, chat, offset_seconds) DO UPDATE SET
         claimant = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $6::bigint THEN EXCLUDED.claimant ELSE c.claimant END,
         lease_until_ms = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $6::bigint
                               THEN EXCLUDED.lease_until_ms ELSE c.lease_until_ms END
       RETURNING c.claimant, c.lease_until_ms`,
      [claim.id, claim.surface, claim.chat, offsetSeconds, claim.claimant, claim.nowMs, leaseUntilMs],
    );
    if (row?.claimant === claim.claimant) return { ok: true, leaseUntilMs };
    return { ok: false, reason: "claimed", ...(row ? { leaseUntilMs: row.lease_until_ms } : {}) };
  }

  const botPresence = createPostgresPresence(statements, instanceId);

  return {
    instanceId,

    botPresence,

    create: (record, limits) => insertPostgresRecord(statements, record, limits),

    countPending: (filter) => countPostgresPending(statements, filter),

    get,

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

    async resolve(id, resolution): Promise<ResolveOutcome> {
      const values = resolutionToValues(id, resolution);
      const outcome = await compareAndSet("resolve", id, RESOLVE_RECORD, values, () => outbox.write("resolve", "question.resolved", RESOLVE_RECORD, values));
      if ("updated" in outcome) return { ok: true, record: outcome.updated };
      return outcome.current ? { ok: false, code: "QUESTION_ALREADY_TERMINAL", record: outcome.current } : { ok: false, code: "QUESTION_NOT_FOUND" };
    },

    async expireDue(nowMs, limit) {
      // SKIP LOCKED: instances expiring at once each take different rows; the status re-check makes it a CAS.
      const rows = await outbox.write(
        "expireDue",
        "question.resolved",
        `WITH due AS MATERIALIZED (
           SELECT id FROM questions
           WHERE status = 'pending' AND expires_at_ms <= $1::bigint
           ORDER BY expires_at_ms, id
           LIMIT $2::bigint
           FOR UPDATE SKIP LOCKED
         )
         UPDATE questions q SET status = 'expired', reason = 'expired', resolved_at_ms = $1::bigint,
           late_until_ms = ${lateUntilSql("$1::bigint", "q.")}
         FROM due WHERE q.id = due.id AND q.status = 'pending'
         RETURNING ${READ_RECORD}`,
        [nowMs, Math.max(0, Math.trunc(limit))],
      );
      return decodeAll(rows).sort(compareSoonestExpiry);
    },

    async nextExpiryMs() {
      const [row] = await query<{ next: number | null }>(
        "nextExpiryMs",
        false,
        `SELECT min(expires_at_ms) AS next FROM questions WHERE status = 'pending'`,
      );
      return row?.next ?? undefined;
    },

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

    async mergePartial(id, answers, options = {}) {
      // Merged in SQL, so two partial replies at once never lose each other's answers.
      const outcome = await compareAndSet(
        "mergePartial",
        id,
        `UPDATE questions q SET partial_json = COALESCE(q.partial_json, '{}'::jsonb) || $2::jsonb
         WHERE q.id = $1 AND (q.status = 'pending'
           OR ($3::bigint IS NOT NULL AND ${lateAnswerOpenSql("$3::bigint", "q.")}))
         RETURNING ${READ_RECORD}`,
        [id, JSON.stringify(answers), options.lateAtMs ?? null],
      );
      return "updated" in outcome ? outcome.updated : outcome.current;
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

    markReminder: (id, offsetSeconds, atMs, skipped = false) =>
      followUp("markReminder", id, (record) => applyReminder(record, offsetSeconds, atMs, skipped), skipped ? null : "question.reminded"),

    markEscalated: (id, step, atMs) => followUp("markEscalated", id, (record) => applyEscalation(record, step, atMs), "question.escalated"),

    async addReminderCopy(id, copy) {
      return (await followUp("addReminderCopy", id, (record) => applyReminderCopy(record, copy), "question.updated")) ?? get(id);
    },

    async setLateAnswer(id, late): Promise<LateOutcome> {
      const [row] = await outbox.write(
        "setLateAnswer",
        "question.lateAnswered",
        `UPDATE questions q SET late_json = $2::json, partial_json = NULL
         WHERE q.id = $1 AND ${lateAnswerOpenSql("$3::bigint", "q.")}
         RETURNING ${READ_RECORD}`,
        [id, JSON.stringify(late), late.atMs],
      );
      if (row) return { ok: true, record: decode(row) };
      const current = await get(id);
      if (!current) return { ok: false, code: "QUESTION_NOT_FOUND" };
      return { ok: false, code: "QUESTION_ALREADY_TERMINAL", record: current, why: lateRefusal(current, late.atMs) ?? "late_answered" };
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

    async claimDelivery(claim): Promise<ClaimOutcome> {
      const offsetSeconds = reminderOffsetOf(claim.copy);
      if (offsetSeconds !== undefined) return claimReminderCopy(claim, offsetSeconds);
      const leaseUntilMs = claim.nowMs + claim.leaseMs;
      // FOR SHARE holds off a concurrent resolution until this claim commits, so a claim is never granted on a
      // question that was resolved before it. The upsert keeps a live lease held by someone else (and returns it).
      const [row] = await query<{ status: string | null; delivered: boolean; claimant: string | null; lease_until_ms: number | null }>(
        "claimDelivery",
        true,
        `WITH q AS MATERIALIZED (SELECT status FROM questions WHERE id = $1 FOR SHARE),
         delivered AS MATERIALIZED (SELECT 1 FROM deliveries WHERE question_id = $1 AND surface = $2 AND chat = $3),
         claim AS (
           INSERT INTO delivery_claims AS c (question_id, surface, chat, claimant, lease_until_ms, claimed_at_ms)
           SELECT $1, $2, $3, $4, $6::bigint, $5::bigint
           WHERE EXISTS (SELECT 1 FROM q WHERE status = 'pending') AND NOT EXISTS (SELECT 1 FROM delivered)
           ON CONFLICT (question_id, surface, chat) DO UPDATE SET
             claimant = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $5::bigint THEN EXCLUDED.claimant ELSE c.claimant END,
             lease_until_ms = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $5::bigint
                                   THEN EXCLUDED.lease_until_ms ELSE c.lease_until_ms END,
             claimed_at_ms = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $5::bigint
                                  THEN EXCLUDED.claimed_at_ms ELSE c.claimed_at_ms END
           RETURNING c.claimant, c.lease_until_ms
         )
         SELECT (SELECT status FROM q) AS status, EXISTS (SELECT 1 FROM delivered) AS delivered,
                (SELECT claimant FROM claim) AS claimant, (SELECT lease_until_ms FROM claim) AS lease_until_ms`,
        [claim.id, claim.surface, claim.chat, claim.claimant, claim.nowMs, leaseUntilMs],
      );
      if (!row || row.status === null) return { ok: false, reason: "not_found" };
      if (row.status !== "pending") return { ok: false, reason: "not_pending" };
      if (row.delivered) return { ok: false, reason: "delivered" };
      if (row.claimant === claim.claimant) return { ok: true, leaseUntilMs };
      return row.lease_until_ms === null ? { ok: false, reason: "claimed" } : { ok: false, reason: "claimed", leaseUntilMs: row.lease_until_ms };
    },

    async liveClaims(id, nowMs): Promise<HeldClaim[]> {
      const rows = await query<{ surface: string; chat: string; claimant: string; claimed_at_ms: number; lease_until_ms: number }>(
        "liveClaims",
        false,
        `SELECT c.surface, c.chat, c.claimant, COALESCE(c.claimed_at_ms, 0) AS claimed_at_ms, c.lease_until_ms
         FROM delivery_claims c
         WHERE c.question_id = $1 AND c.lease_until_ms > $2::bigint
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.question_id = c.question_id AND d.surface = c.surface AND d.chat = c.chat)
         ORDER BY c.surface, c.chat`,
        [id, nowMs],
      );
      return rows.map((r) => ({ surface: r.surface, chat: r.chat, claimant: r.claimant, claimedAtMs: r.claimed_at_ms, leaseUntilMs: r.lease_until_ms }));
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

    async markReplySeen(key, atMs) {
      const rows = await query(
        "markReplySeen",
        true,
        `INSERT INTO reply_keys (surface, chat, message_ref, seen_at_ms) VALUES ($1, $2, $3, $4::bigint)
         ON CONFLICT DO NOTHING RETURNING 1 AS taken`,
        [key.surface, key.chat, key.messageRef, atMs],
      );
      return rows.length === 1;
    },

    async unmarkReplySeen(key) {
      await query("unmarkReplySeen", true, `DELETE FROM reply_keys WHERE surface = $1 AND chat = $2 AND message_ref = $3`, [key.surface, key.chat, key.messageRef]);
    },

    async pruneRepliesSeen(beforeMs) {
      const [row] = await query<{ pruned: number }>(
        "pruneRepliesSeen",
        true,
        `WITH gone AS (DELETE FROM reply_keys WHERE seen_at_ms < $1::bigint RETURNING 1) SELECT count(*)::int AS pruned FROM gone`,
        [beforeMs],
      );
      return row?.pruned ?? 0;
    },

    async sharedSecret(name, candidate) {
      // The first instance's candidate is inserted, and every caller reads the one that was kept. A row another
      // instance committed while this statement ran is outside its snapshot: the next statement sees it.
      for (let attempt = 0; attempt < 3; attempt++) {
        const [row] = await query<{ value: Buffer }>(
          "sharedSecret",
          true,
          `WITH put AS (
             INSERT INTO secrets (name, value, created_at_ms) VALUES ($1, $2, $3::bigint) ON CONFLICT (name) DO NOTHING RETURNING value
           )
           SELECT value FROM put UNION ALL SELECT value FROM secrets WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM put)`,
          [name, candidate, Date.now()],
        );
        if (row) return row.value;
      }
      throw new Error(`the secret ${name} could not be stored`);
    },
    ...outbox.operations,

    onRemoteChange: changes.onRemoteChange,
    onResync: changes.onResync,

    async close() {
      if (closed) return;
      closed = true;
      await botPresence.publish([]).catch(() => undefined); // this instance's bots no longer count
      await changes.close();
      await end();
    },
  };
}
