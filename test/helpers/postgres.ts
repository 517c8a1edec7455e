/**
 * A PostgreSQL server for the tests. `TEST_DATABASE_URL` (read by test/global-setup.ts) points at a server to use;
 * without it the global setup starts ONE throwaway embedded PostgreSQL per vitest run (startTestPostgres) and hands
 * its URL to the test files through vitest's provide/inject. Each test file then makes its own database with
 * createTestDatabase(), so files running in parallel never see each other's rows.
 */
import { randomBytes } from "node:crypto";
import { readdir, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { cleanupEmbeddedPostgres, loadEmbeddedPostgres } from "./embedded-postgres.ts";
import pg from "pg";
import { inject } from "vitest";
import { freePort } from "./free-port.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** An admin URL of the test server (a role that may CREATE DATABASE), reachable once the server is up. */
    postgresUrl: string;
  }
}

export interface TestPostgres {
  /** The admin URL (database `postgres`). Known at once; the server accepts connections once `ready` settles. */
  url: string;
  ready: Promise<void>;
  /** Stops the server and deletes its data directory (waits for a start that is still running). */
  stop(): Promise<void>;
}

const DATA_DIR_PREFIX = "aub-test-pg-";

/**
 * Deletes data directories that earlier runs left behind (a run killed before its teardown): older than ten
 * minutes, with no live server in them. A directory still being initialised is younger than that.
 */
async function sweepStaleDataDirs(): Promise<void> {
  const stale = async (dir: string): Promise<boolean> => {
    if (Date.now() - (await stat(dir)).mtimeMs < 10 * 60_000) return false;
    const pid = Number((await readFile(path.join(dir, "postmaster.pid"), "utf8").catch(() => "")).split("\n")[0]);
    if (!pid) return true;
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  for (const name of await readdir(os.tmpdir()).catch(() => [])) {
    const dir = path.join(os.tmpdir(), name);
    if (name.startsWith(DATA_DIR_PREFIX) && (await stale(dir).catch(() => false))) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Starts an embedded PostgreSQL 17 on a free port, with a data directory under os.tmpdir() that `stop` deletes.
 * Durability is off (`fsync=off`): the data is thrown away anyway. As root, embedded-postgres runs the server as a
 * `postgres` system user it creates once.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  const databaseDir = path.join(os.tmpdir(), `${DATA_DIR_PREFIX}${randomBytes(6).toString("hex")}`);
  const errors: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ["--no-sync", "--no-instructions"],
    postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"],
    onLog: () => undefined,
    onError: (error) => errors.push(String(error)),
  });
  const ready = (async () => {
    await sweepStaleDataDirs();
    await server.initialise();
    try {
      await server.start();
    } catch (error) {
      throw new Error(`embedded PostgreSQL did not start: ${errors.join("\n") || String(error)}`);
    }
  })();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    ready,
    async stop() {
      await ready.catch(() => undefined);
      await server.stop();
      await rm(databaseDir, { recursive: true, force: true });
      cleanupEmbeddedPostgres();
    },
  };
}

/** The test server's admin URL, from the global setup. */
export function testPostgresUrl(): string {
  return inject("postgresUrl");
}

/** Connects to `url`, retrying while the server is still starting (up to `waitMs`). */
export async function connectWhenReady(url: string, waitMs = 30_000): Promise<pg.Client> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        throw new Error(`the test PostgreSQL did not accept connections within ${waitMs} ms (see the global setup's output)`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** A new, empty database `aub_<random>` on the test server. */
export async function createTestDatabase(serverUrl = testPostgresUrl()): Promise<TestDatabase> {
  const name = `aub_${randomBytes(6).toString("hex")}`;
  const admin = await connectWhenReady(serverUrl);
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(serverUrl, name),
    async drop() {
      const client = await connectWhenReady(serverUrl);
      try {
        await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
