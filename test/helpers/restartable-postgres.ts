/**
 * A PostgreSQL server of a test file's own, which the test may stop and start again on the same port and data
 * directory (the shared server from the global setup must never be stopped: other files use it). Embedded
 * PostgreSQL 17, like startTestPostgres, but persistent: `stop` is a fast shutdown (every connection is ended, open
 * transactions roll back, committed ones stay) and `start` brings the same data back.
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadEmbeddedPostgres } from "./embedded-postgres.ts";
import { freePort } from "./free-port.ts";

export interface RestartablePostgres {
  /** The admin URL (database `postgres`); the same across restarts. */
  url: string;
  port: number;
  /** Starts the server (again); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Fast shutdown; keeps the data directory. */
  stop(): Promise<void>;
  /** Stops the server if it runs, and deletes its data directory. */
  destroy(): Promise<void>;
}

/**
 * Initialises and starts a server. Durability settings as in startTestPostgres (fsync off), except that commits
 * wait for their WAL write (synchronous_commit on): what a client was told is committed survives the restart.
 */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  // The prefix startTestPostgres sweeps, so a directory left by a killed run is deleted by a later one.
  const databaseDir = path.join(os.tmpdir(), `aub-test-pg-${randomBytes(6).toString("hex")}`);
  const errors: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--no-sync", "--no-instructions"],
    postgresFlags: ["-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=200"],
    onLog: () => undefined,
    onError: (error) => errors.push(String(error)),
  });
  let running = false;
  const start = async (): Promise<void> => {
    try {
      await server.start();
    } catch (error) {
      throw new Error(`embedded PostgreSQL did not start: ${errors.join("\n") || String(error)}`);
    }
    running = true;
  };
  const stop = async (): Promise<void> => {
    running = false;
    await server.stop();
  };
  await server.initialise();
  await start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      if (running) await stop().catch(() => undefined);
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}
