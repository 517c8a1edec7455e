import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CorruptRecordError,
  QuotaExceededError,
  SessionBusyError,
  createMemoryStore,
  createSqliteStore,
  SQLITE_FILE_NAME,
  SQLITE_MIGRATIONS,
  SQLITE_PRAGMAS,
} from "../../../src/gateway/store/index.ts";
import type { QuestionStore } from "../../../src/gateway/store/index.ts";
import { fullRecord, pendingRecord, runStoreContract } from "./store-contract.ts";

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const tempDirs: string[] = [];
const makeTempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aub-store-"));
  tempDirs.push(dir);
  return dir;
};
const removeDir = (dir: string): void => fs.rmSync(dir, { recursive: true, force: true });

runStoreContract("memory", async (options) => {
  const store = createMemoryStore(options);
  return { store, cleanup: () => store.close() };
});

runStoreContract("sqlite", async (options) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "aub-store-"));
  let store = createSqliteStore({ dataDir, ...options });
  return {
    store,
    reopen: async () => {
      await store.close();
      store = createSqliteStore({ dataDir, ...options });
      return store;
    },
    cleanup: async () => {
      await store.close();
      removeDir(dataDir);
    },
  };
});

describe("SQLite store specifics", () => {
  const open: QuestionStore[] = [];
  const openStore = (dataDir: string, options: { onCorruptRecord?: (e: CorruptRecordError) => void } = {}) => {
    const store = createSqliteStore({ dataDir, ...options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const dir of tempDirs.splice(0)) removeDir(dir);
  });

  it("creates the data directory and opens the file in WAL mode with the current schema", async () => {
    const dataDir = path.join(makeTempDir(), "nested", "data");
    openStore(dataDir);
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("user_version", { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    db.close();
    expect(SQLITE_PRAGMAS).toEqual(expect.arrayContaining(["journal_mode = WAL", "synchronous = NORMAL"]));
  });

  it("fills the chat index from the records of an older schema when it migrates", async () => {
    const dataDir = makeTempDir();
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME));
    for (const migration of SQLITE_MIGRATIONS.slice(0, 2)) db.exec(migration);
    db.pragma("user_version = 2");
    const insert = db.prepare(
      `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json)
       VALUES (?, 'pending', ?, 9999, 30, ',telegram,web,', '[]', ?)`,
    );
    insert.run("old1", 1, JSON.stringify([{ surface: "telegram", chat: "-100" }, { surface: "web" }]));
    insert.run("old2", 2, "{not json");
    insert.run("old3", 3, JSON.stringify([{ surface: "telegram", chat: "-100", users: ["1"] }, { surface: "telegram", chat: "7" }]));
    db.close();
    const store = openStore(dataDir, { onCorruptRecord: () => {} });
    expect((await store.list({ chat: "-100" })).map((r) => r.id)).toEqual(["old3", "old1"]);
    expect((await store.list({ surface: "telegram", chat: "7" })).map((r) => r.id)).toEqual(["old3"]);
  });

  it("reads records written before follow-ups existed (issue 20): no reminders, no late window; they still expire", async () => {
    const dataDir = makeTempDir();
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME));
    const before = 5; // version 6 added follow-ups
    for (const migration of SQLITE_MIGRATIONS.slice(0, before)) db.exec(migration);
    db.pragma(`user_version = ${before}`);
    db.prepare(
      `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json)
       VALUES (?, 'pending', 1, ?, 30, ',web,', '[]', '[{"surface":"web"}]')`,
    ).run("old", 5_000);
    db.close();
    const store = openStore(dataDir);
    const old = await store.get("old");
    expect(old).toMatchObject({ id: "old", status: "pending", reminders: [] });
    for (const key of ["escalate", "remindersSent", "escalated", "lateAnswerSeconds", "lateUntilMs", "lateAnswer", "reminderCopies"]) expect(old).not.toHaveProperty(key);
    expect(await store.nextFollowUpMs(0)).toBeUndefined();
    const [expired] = await store.expireDue(6_000, 10);
    expect(expired).toMatchObject({ id: "old", status: "expired" });
    expect(expired).not.toHaveProperty("lateUntilMs");
  });

  it("upgrades a version-6 database to sessions and quotas per credential, counting from the pending index", async () => {
    const dataDir = makeTempDir();
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME));
    for (const migration of SQLITE_MIGRATIONS.slice(0, 6)) db.exec(migration);
    db.pragma("user_version = 6");
    db.prepare(
      `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json, session_key, asked_by, run_id)
       VALUES ('old-a', 'pending', 1, 5000, 30, ',web,', '[]', '[{"surface":"web"}]', 's', 'agent-a', 'r1')`,
    ).run();
    db.close();
    const store = openStore(dataDir);
    await store.create(pendingRecord("new-b", { sessionKey: "s", askedBy: "agent-b" }));
    await expect(store.create(pendingRecord("new-a", { sessionKey: "s", askedBy: "agent-a" }))).rejects.toThrow(SessionBusyError);
    await expect(store.create(pendingRecord("new-a", { askedBy: "agent-a", runId: "r1" }), { perRun: 1 })).rejects.toThrow(QuotaExceededError);
    expect(await store.countPending({ askedBy: "agent-a" })).toBe(1);

    const reader = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true });
    const plan = (sql: string) => reader.prepare(`EXPLAIN QUERY PLAN ${sql}`).all("agent-a").map((row) => (row as { detail: string }).detail).join("; ");
    expect(plan("SELECT count(*) FROM questions WHERE status = 'pending' AND asked_by = ?")).toMatch(/USING COVERING INDEX questions_pending_asked_by_run/);
    expect(plan("SELECT 1 FROM questions WHERE session_key = 's' AND asked_by IS ? AND status = 'pending'")).toMatch(/USING (COVERING )?INDEX questions_pending_session/);
    reader.close();
  });

  it("refuses a database from a newer schema version", async () => {
    const dataDir = makeTempDir();
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME));
    db.pragma(`user_version = ${SQLITE_MIGRATIONS.length + 1}`);
    db.close();
    expect(() => createSqliteStore({ dataDir })).toThrow(/newer than this build/);
  });

  it("sees another connection's commits without a close (two processes on one file)", async () => {
    const dataDir = makeTempDir();
    const writer = openStore(dataDir);
    await writer.create(fullRecord("q1"));
    await writer.addDelivery("q1", { surface: "slack", chat: "C9", messageRef: "ts", deliveredAtMs: 9 });
    const reader = openStore(dataDir);
    expect((await reader.get("q1"))).toStrictEqual((await writer.get("q1")));
    expect((await reader.get("q1"))?.deliveries).toHaveLength(3);
  });

  it("keeps every commit when the process is killed with SIGKILL", async () => {
    const dataDir = makeTempDir();
    const storeModule = path.join(repoRoot, "src/gateway/store/index.ts");
    const script = `
      import { createSqliteStore } from ${JSON.stringify(storeModule)};
      const store = createSqliteStore({ dataDir: ${JSON.stringify(dataDir)} });
      for (let i = 0; i < 50; i++) {
        await store.create({ id: "q" + i, questions: [], timeoutSeconds: 30, status: "pending", createdAtMs: i,
          expiresAtMs: 1000 + i, targets: [{ surface: "telegram", chat: "1" }], deliveries: [] });
        await store.addDelivery("q" + i, { surface: "telegram", chat: "1", messageRef: "m" + i, deliveredAtMs: i });
        if (i % 2) await store.resolve("q" + i, { status: "answered", answers: { a: ["x"] }, by: { surface: "api", via: "api" }, resolvedAtMs: i });
      }
      process.kill(process.pid, "SIGKILL");`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(child.signal, child.stderr).toBe("SIGKILL");
    const store = openStore(dataDir);
    expect((await store.list())).toHaveLength(50);
    expect((await store.list({ status: "answered" }))).toHaveLength(25);
    expect((await store.get("q49"))).toMatchObject({ status: "answered", answers: { a: ["x"] }, deliveries: [{ messageRef: "m49" }] });
    expect((await store.get("q48"))).toMatchObject({ status: "pending", expiresAtMs: 1048, deliveries: [{ messageRef: "m48" }] });
  });

  it("skips a corrupt row in list and expireDue, reports it once, and throws a typed error on get", async () => {
    const dataDir = makeTempDir();
    const onCorruptRecord = vi.fn();
    const store = openStore(dataDir, { onCorruptRecord });
    await store.create(pendingRecord("good", { expiresAtMs: 2_000 }));
    await store.create(pendingRecord("bad", { expiresAtMs: 1_000 }));
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME));
    db.prepare(`UPDATE questions SET questions_json = '{not json' WHERE id = 'bad'`).run();
    db.close();

    expect((await store.nextExpiryMs())).toBe(1_000);
    expect((await store.list()).map((r) => r.id)).toEqual(["good"]);
    expect((await store.expireDue(5_000, 10)).map((r) => r.id)).toEqual(["good"]);
    expect(onCorruptRecord).toHaveBeenCalledTimes(1);
    expect(onCorruptRecord.mock.calls[0]?.[0]).toMatchObject({ code: "STORE_CORRUPT_RECORD", id: "bad", column: "questions_json" });
    // The scheduler never spins on a row it can't expire.
    expect((await store.nextExpiryMs())).toBeUndefined();
    await expect(store.get("bad")).rejects.toThrow(CorruptRecordError);
    await expect(store.resolve("bad", { status: "expired", reason: "expired", resolvedAtMs: 1 })).rejects.toThrow(CorruptRecordError);
    expect((await store.get("good"))?.status).toBe("expired");
  });
});
