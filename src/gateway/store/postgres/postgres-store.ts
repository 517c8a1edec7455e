import { randomBytes } from "node:crypto";
import type { QuestionRecord } from "../../../record/record.ts";
import { lateAnswerOpenSql, lateUntilSql } from "../kit/late-window-sql.ts";
import type { CorruptRecordError } from "../kit/errors.ts";
import { createRecordOperations } from "../kit/record-cell.ts";
import { compareSoonestExpiry, decodeSkippingCorrupt } from "../kit/reads.ts";
import { startPostgresChanges, type PostgresChanges } from "./postgres-changes.ts";
import { countPostgresPending, insertPostgresRecord } from "./postgres-pending.ts";
import { createPostgresOutbox } from "./postgres-outbox.ts";
import { createPostgresStatements } from "./postgres-pool.ts";
import { createPostgresPresence } from "./postgres-presence.ts";
import { createPostgresCell } from "./postgres-cell.ts";
import { createPostgresChatRows } from "./postgres-chat-rows.ts";
import { createPostgresClaims } from "./postgres-claims.ts";
import { createPostgresReads } from "./postgres-reads.ts";
import { postgresRowToRecord, READ_RECORD, RESOLVE_RECORD, resolutionToValues, type PostgresQuestionRow } from "./postgres-row.ts";
import { runPostgresMigrations } from "./postgres-schema.ts";
import type { QuestionStore, ResolveOutcome, StoreChange } from "../kit/types.ts";

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

  const botPresence = createPostgresPresence(statements, instanceId);

  return {
    instanceId,

    botPresence,

    ...createRecordOperations(createPostgresCell(statements, outbox)),
    ...createPostgresChatRows(statements, get),
    ...createPostgresClaims(statements, get),
    ...createPostgresReads(statements, decodeAll),

    create: (record, limits) => insertPostgresRecord(statements, record, limits),

    countPending: (filter) => countPostgresPending(statements, filter),

    get,

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
