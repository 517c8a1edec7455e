import pg from "pg";
import { StoreUnavailableError } from "../kit/errors.ts";
import { describePostgresFailure, isConnectionLost, isPostgresUnavailable, statementError, unreachableError } from "./postgres-failure.ts";
import { createPostgresTypes } from "./postgres-row.ts";

export interface PostgresPoolOptions {
  connectionString: string;
  /** Sent as application_name: the triggers stamp each notification with it. */
  instanceId: string;
  maxConnections: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  log: (message: string, error?: unknown) => void;
}

export interface PostgresStatements {
  /**
   * Runs one statement (autocommit: a write is committed when this resolves). Rejects with StoreUnavailableError
   * when PostgreSQL is unreachable, busy, refused it, or the connection died under it (see postgres-failure.ts);
   * other errors (a constraint, a bad value) pass through. `operation` names it in messages.
   */
  query<Row extends pg.QueryResultRow>(operation: string, write: boolean, text: string, values?: unknown[]): Promise<Row[]>;
  /**
   * Runs `steps` in one transaction on one connection (a write: never retried), committed when this resolves. A
   * statement's failure maps as in `query`; an error `steps` throws itself passes through unchanged. Either rolls
   * the transaction back.
   */
  transaction<T>(operation: string, steps: (query: TransactionQuery) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}

/** A statement inside `transaction`. */
export type TransactionQuery = <Row extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<Row[]>;

/**
 * A pg.Pool behind one `query` call. Bounded waits: `connectTimeoutMs` for a connection (new, or from a busy pool),
 * `statementTimeoutMs` on the server (statement_timeout), and 2 s more on the client (query_timeout) for a server
 * that stops answering. A connection that failed is destroyed, never reused; the pool opens new ones, so the store
 * recovers by itself when PostgreSQL is back. A read whose connection turns out to have died (a pooled connection
 * the server closed a moment ago, e.g. on a restart) runs once more on a fresh one; a write never does, since its
 * outcome is unknown.
 */
export async function createPostgresStatements(options: PostgresPoolOptions): Promise<PostgresStatements> {
  const { instanceId, maxConnections, connectTimeoutMs, log } = options;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    application_name: instanceId,
    max: maxConnections,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 2_000,
    keepAlive: true,
    types: createPostgresTypes(),
  });
  // An idle connection the server closes is dropped by the pool; without this listener its error would crash.
  pool.on("error", (error) => log(`an idle connection was lost: ${describePostgresFailure(error)}`));
  let ended = false;

  /**
   * Each statement text gets a name, so every pooled connection parses and plans it once and then only binds and
   * executes it (about half the server's CPU per question in benchmark 7). The texts are a fixed set plus one per
   * combination of list filters; past MAX_NAMED a text runs unnamed rather than growing the map.
   */
  const names = new Map<string, string>();
  const MAX_NAMED = 256;
  function statementName(text: string): string | undefined {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) names.set(text, (name = `aub_${names.size + 1}`));
    return name;
  }

  /**
   * Lends a connection to `use`, which runs statements with `run`. A connection whose statement failed for want of
   * the database (see isPostgresUnavailable) is `broken`: destroyed on release, never reused.
   */
  async function withConnection<T>(
    operation: string,
    write: boolean,
    use: (run: TransactionQuery, broken: () => boolean) => Promise<T>,
  ): Promise<T> {
    if (ended) throw new Error("the PostgreSQL question store is closed");
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      if (pool.totalCount < maxConnections) throw unreachableError(error);
      throw new StoreUnavailableError(`PostgreSQL is busy: all ${maxConnections} pooled connections stayed in use for ${connectTimeoutMs} ms`, { cause: error });
    }
    // While lent out, a connection error is also emitted on the client: without a listener it would crash.
    const ignore = (): void => undefined;
    client.on("error", ignore);
    let broken: Error | undefined;
    const run: TransactionQuery = async <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
      try {
        const name = statementName(text);
        return (await client.query<Row>(name ? { name, text, values } : { text, values })).rows;
      } catch (error) {
        if (isPostgresUnavailable(error)) broken = error instanceof Error ? error : new Error(String(error));
        throw statementError(error, operation, write);
      }
    };
    try {
      return await use(run, () => broken !== undefined);
    } finally {
      client.removeListener("error", ignore);
      client.release(broken);
    }
  }

  const queryOnce = <Row extends pg.QueryResultRow>(operation: string, write: boolean, text: string, values: unknown[]): Promise<Row[]> =>
    withConnection(operation, write, (run) => run<Row>(text, values));

  const statements: PostgresStatements = {
    async query<Row extends pg.QueryResultRow>(operation: string, write: boolean, text: string, values: unknown[] = []) {
      try {
        return await queryOnce<Row>(operation, write, text, values);
      } catch (error) {
        if (write || !(error instanceof StoreUnavailableError) || !isConnectionLost(error.cause)) throw error;
        return queryOnce<Row>(operation, write, text, values);
      }
    },
    transaction: (operation, steps) =>
      withConnection(operation, true, async (run, broken) => {
        await run("BEGIN");
        try {
          const result = await steps(run);
          await run("COMMIT");
          return result;
        } catch (error) {
          // A broken connection is destroyed, which ends its transaction: a ROLLBACK could only wait on a dead socket.
          if (!broken()) await run("ROLLBACK").catch(() => undefined);
          throw error;
        }
      }),
    async end() {
      if (ended) return;
      ended = true;
      await pool.end();
    },
  };

  // A connection string that sets application_name overrides instanceId, and instances could no longer tell their
  // own notifications from the others'.
  try {
    const [row] = await statements.query<{ name: string }>("start-up", false, "SELECT current_setting('application_name') AS name");
    if (row?.name !== instanceId) {
      throw new Error(`the connection string sets application_name (${row?.name}); leave it out so that instanceId is used`);
    }
  } catch (error) {
    await statements.end().catch(() => undefined);
    throw error;
  }
  return statements;
}
