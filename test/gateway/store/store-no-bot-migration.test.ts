/**
 * Issue 30 §3's SQLite migration: target_states may hold `waiting`. SQLite cannot change a CHECK in place, so the
 * table is rebuilt; a database from before it keeps every row, and takes the new state afterwards.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteStore, SQLITE_FILE_NAME, SQLITE_MIGRATIONS } from "../../../src/gateway/store/index.ts";

const dirs: string[] = [];
const byChat = <T extends { chat: string }>(states: T[] | undefined) => [...(states ?? [])].sort((a, b) => (a.chat < b.chat ? -1 : 1));
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the SQLite migration that lets a target wait for a bot", () => {
  it("rebuilds target_states keeping its rows; waiting is refused before and taken after", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "aub-nobot-"));
    dirs.push(dataDir);
    const version = SQLITE_MIGRATIONS.findIndex((m) => m.includes("target_states_next"));
    expect(version).toBeGreaterThan(0);
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME));
    for (const migration of SQLITE_MIGRATIONS.slice(0, version)) db.exec(migration);
    db.pragma(`user_version = ${version}`);
    const targets = JSON.stringify([{ surface: "telegram", chat: "1" }, { surface: "slack", chat: "C" }, { surface: "discord", chat: "9" }]);
    for (const id of ["old-a", "old-b"]) {
      db.prepare(
        `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json)
         VALUES (?, 'pending', 1, 9999999999999, 30, ',telegram,slack,discord,', '[]', ?)`,
      ).run(id, targets);
    }
    const state = db.prepare(`INSERT INTO target_states (question_id, surface, chat, state, reason, at_ms, retry_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    state.run("old-a", "telegram", "1", "retrying", "502 Bad Gateway", 10, 2_010);
    state.run("old-a", "slack", "C", "failed", "channel_not_found", 20, null);
    state.run("old-b", "telegram", "1", "failed", "chat not found", 30, null);
    expect(() => state.run("old-b", "slack", "C", "waiting", "no Slack bot is connected", 40, null)).toThrow(/CHECK constraint/);
    db.close();

    let store = createSqliteStore({ dataDir });
    try {
      expect(byChat((await store.get("old-a"))?.targetStates)).toEqual([
        { surface: "telegram", chat: "1", state: "retrying", reason: "502 Bad Gateway", atMs: 10, retryAtMs: 2_010 },
        { surface: "slack", chat: "C", state: "failed", reason: "channel_not_found", atMs: 20 },
      ]);
      const waiting = { surface: "discord" as const, chat: "9", state: "waiting" as const, reason: "no Discord bot is connected", atMs: 50 };
      expect(byChat((await store.setTargetState("old-b", waiting))?.targetStates)).toEqual([{ surface: "telegram", chat: "1", state: "failed", reason: "chat not found", atMs: 30 }, waiting]);
      // The rebuilt table still cascades with its question and keys one state per chat.
      await store.setTargetState("old-b", { ...waiting, atMs: 60 });
      expect((await store.get("old-b"))?.targetStates?.filter((s) => s.chat === "9")).toEqual([{ ...waiting, atMs: 60 }]);
    } finally {
      await store.close();
    }
    store = createSqliteStore({ dataDir });
    try {
      expect((await store.get("old-b"))?.targetStates).toHaveLength(2);
      expect((await store.get("old-a"))?.targetStates).toHaveLength(2);
    } finally {
      await store.close();
    }
    const check = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    // No table left behind by the rebuild.
    expect(check.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'target_states%'`).all()).toEqual([{ name: "target_states" }]);
    expect(check.pragma("foreign_key_check")).toEqual([]);
    check.close();
  });
});
