import pg from "pg";
import { statementError, unreachableError } from "./postgres-failure.ts";
import { POSTGRES_MIGRATIONS } from "./postgres-migrations.ts";

export { POSTGRES_CHANNEL, POSTGRES_MIGRATIONS } from "./postgres-migrations.ts";

/** The table that records which migrations ran (named for this project: `schema_migrations` is other tools' name). */
export const POSTGRES_MIGRATIONS_TABLE = "ask_user_bridge_migrations";

/** The advisory lock migrations run under, so instances starting at once never race (any constant would do). */
const MIGRATION_LOCK = 7_216_334_209;

export interface PostgresMigrationReport {
  /** The schema version before and after. */
  from: number;
  to: number;
  /** The versions this call applied (empty when the schema was already current). */
  applied: number[];
}

/**
 * Brings the schema up to date in one transaction under a transaction-level advisory lock: an instance that starts
 * while another migrates waits, then finds the work done. Refuses a database newer than this build.
 * Pass a dedicated client or a pool (a pool lends a connection for the duration).
 */
export async function migratePostgres(target: pg.Pool | pg.ClientBase): Promise<PostgresMigrationReport> {
  const client = target instanceof pg.Pool ? await target.connect() : target;
  try {
    await client.query("BEGIN");
    try {
      const report = await migrateInTransaction(client);
      await client.query("COMMIT");
      return report;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    if (client !== target) (client as pg.PoolClient).release();
  }
}

async function migrateInTransaction(client: pg.ClientBase): Promise<PostgresMigrationReport> {
  // Migrations may rebuild indexes on large tables: no statement timeout for them.
  await client.query("SET LOCAL statement_timeout = 0");
  await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${POSTGRES_MIGRATIONS_TABLE} (
       version    INTEGER PRIMARY KEY,
       applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
  );
  const { rows } = await client.query<{ version: number }>(
    `SELECT COALESCE(max(version), 0)::int AS version FROM ${POSTGRES_MIGRATIONS_TABLE}`,
  );
  const from = rows[0]?.version ?? 0;
  if (from > POSTGRES_MIGRATIONS.length) {
    throw new Error(`the database has schema version ${from}, newer than this build knows (${POSTGRES_MIGRATIONS.length})`);
  }
  const applied: number[] = [];
  for (let version = from + 1; version <= POSTGRES_MIGRATIONS.length; version++) {
    await client.query(POSTGRES_MIGRATIONS[version - 1] as string);
    await client.query(`INSERT INTO ${POSTGRES_MIGRATIONS_TABLE} (version) VALUES ($1)`, [version]);
    applied.push(version);
  }
  return { from, to: POSTGRES_MIGRATIONS.length, applied };
}

/**
 * Connects to `databaseUrl`, brings the schema up to date, and disconnects: what `ask-user-bridge migrate` runs, and
 * what every store runs before it opens. Throws StoreUnavailableError when PostgreSQL cannot be reached.
 */
export async function runPostgresMigrations(
  databaseUrl: string,
  { connectTimeoutMs = 10_000 }: { connectTimeoutMs?: number } = {},
): Promise<PostgresMigrationReport> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: "ask-user-bridge migrate",
  });
  // A connection lost mid-migration rejects the statement in flight; without a listener it would crash the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw unreachableError(error);
  }
  try {
    return await migratePostgres(client);
  } catch (error) {
    throw statementError(error, "the schema migration", true);
  } finally {
    await client.end().catch(() => undefined);
  }
}
