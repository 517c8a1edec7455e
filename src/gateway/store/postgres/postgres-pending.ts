import type { QuestionRecord } from "../../../record/record.ts";
import { QuestionExistsError, SessionBusyError } from "../kit/errors.ts";
import { enforceQuota, quotaCheckFor, type PendingCounts } from "../kit/pending-limits.ts";
import type { PostgresStatements } from "./postgres-pool.ts";
import { createStatement } from "./postgres-row.ts";
import type { PendingFilter, PendingLimits } from "../kit/types.ts";

/**
 * Serialises the quota creates of one credential across every instance and pool, until the transaction ends. Other
 * credentials hash to other keys (a rare collision only makes two credentials wait for each other).
 */
const QUOTA_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('aub-quota:' || $1::text, 0))`;

/**
 * Run after the lock, in a statement of its own: under READ COMMITTED each statement sees every commit made before
 * it started, so this count includes whatever the lock's previous holder inserted.
 */
const PENDING_COUNTS = `SELECT count(*) FILTER (WHERE run_id = $2::text)::int AS run, count(*)::int AS credential
  FROM questions WHERE status = 'pending' AND asked_by = $1::text`;

/**
 * Inserts a record: one statement when no limit applies (the admin's records, or no limits given), else the lock,
 * the count and the insert in one transaction, so concurrent creates on any number of instances never pass a limit.
 * Throws QuotaExceededError (nothing inserted), QuestionExistsError, SessionBusyError, or StoreUnavailableError.
 */
export async function insertPostgresRecord(statements: PostgresStatements, record: QuestionRecord, limits?: PendingLimits): Promise<void> {
  const quota = quotaCheckFor(record, limits);
  const insert = createStatement(record);
  try {
    if (!quota) {
      await statements.query("create", true, insert.text, insert.values);
      return;
    }
    await statements.transaction("create", async (query) => {
      await query(QUOTA_LOCK, [quota.askedBy]);
      const [counts] = await query<PendingCounts>(PENDING_COUNTS, [quota.askedBy, quota.runId ?? null]);
      enforceQuota(quota, counts ?? { run: 0, credential: 0 });
      await query(insert.text, insert.values);
    });
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code === "23505" && constraint === "questions_pkey") throw new QuestionExistsError(record.id, { cause: error });
    // One pending question per (asker, session): the unique index of the same name.
    if (code === "23505" && constraint === "questions_pending_session" && record.sessionKey !== undefined) {
      throw new SessionBusyError(record.sessionKey, { cause: error });
    }
    throw error;
  }
}

/** Counts the pending records matching `filter`, from the pending indexes (asked_by and run_id; surfaces' GIN). */
export async function countPostgresPending(statements: PostgresStatements, filter: PendingFilter = {}): Promise<number> {
  const values: unknown[] = [];
  const param = (value: unknown): string => `$${values.push(value)}::text`;
  const where = ["status = 'pending'"];
  if (filter.runId !== undefined) where.push(`run_id = ${param(filter.runId)}`);
  if (filter.askedBy !== undefined) where.push(`asked_by = ${param(filter.askedBy)}`);
  if (filter.surface !== undefined) where.push(`surfaces @> ARRAY[${param(filter.surface)}]`);
  const [row] = await statements.query<{ n: number }>(
    "countPending",
    false,
    `SELECT count(*)::int AS n FROM questions WHERE ${where.join(" AND ")}`,
    values,
  );
  return row?.n ?? 0;
}
