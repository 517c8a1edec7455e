/**
 * The late-window rules are TypeScript in src/record/late-window.ts and SQL in src/gateway/store/kit/late-window-sql.ts
 * (the SQL stores' WHERE clauses and updates): both engines must agree with the TypeScript at the edges (one ms
 * before the window's end, at it, one ms after, no window at all, a late answer taken, not expired).
 */
import Database from "better-sqlite3";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lateAnswerOpenSql, lateUntilSql } from "../../../src/gateway/store/kit/late-window-sql.ts";
import { acceptsLateAnswer, lateUntilFor } from "../../../src/record/late-window.ts";
import { connectWhenReady, createTestDatabase, type TestDatabase } from "../../helpers/postgres.ts";

const END = 1_000_000;

interface Row {
  status: string;
  lateUntilMs?: number;
  lateAnswer?: unknown;
}

const openCases: Array<[string, Row, number]> = [
  ["one ms before the end", { status: "expired", lateUntilMs: END }, END - 1],
  ["exactly at the end", { status: "expired", lateUntilMs: END }, END],
  ["one ms after the end", { status: "expired", lateUntilMs: END }, END + 1],
  ["no late window", { status: "expired" }, END - 1],
  ["a late answer taken", { status: "expired", lateUntilMs: END, lateAnswer: { answers: {} } }, END - 1],
  ["pending", { status: "pending", lateUntilMs: END }, END - 1],
  ["answered", { status: "answered", lateUntilMs: END }, END - 1],
];

const untilCases: Array<[string, number | undefined]> = [
  ["no late window configured", undefined],
  ["a zero window", 0],
  ["a one-second window", 1],
  ["a day", 86_400],
];

/** One engine: evaluates an SQL boolean or number over a one-row `questions` table holding the case. */
interface Engine {
  open(row: Row, atMs: number): Promise<boolean>;
  until(lateAnswerSeconds: number | undefined, resolvedAtMs: number): Promise<number | undefined>;
}

function agreesWithTypeScript(name: string, engine: () => Engine): void {
  describe(`${name} agrees with src/record/late-window.ts`, () => {
    it.each(openCases)("takes a late answer: %s", async (_case, row, atMs) => {
      expect(await engine().open(row, atMs)).toBe(acceptsLateAnswer(row, atMs));
    });
    it.each(untilCases)("the window's end: %s", async (_case, seconds) => {
      expect(await engine().until(seconds, END)).toBe(lateUntilFor({ lateAnswerSeconds: seconds }, END));
    });
  });
}

const sqlite = new Database(":memory:");
afterAll(() => sqlite.close());

agreesWithTypeScript("SQLite", () => ({
  async open(row, atMs) {
    const { open } = sqlite
      .prepare(`SELECT (${lateAnswerOpenSql("@at")}) IS 1 AS open FROM (SELECT @status AS status, @late_json AS late_json, @late_until_ms AS late_until_ms)`)
      .get({ at: atMs, status: row.status, late_json: row.lateAnswer === undefined ? null : JSON.stringify(row.lateAnswer), late_until_ms: row.lateUntilMs ?? null }) as { open: number };
    return open === 1;
  },
  async until(seconds, resolvedAtMs) {
    const { until } = sqlite
      .prepare(`SELECT ${lateUntilSql("@resolved_at_ms")} AS until FROM (SELECT @late_answer_seconds AS late_answer_seconds)`)
      .get({ resolved_at_ms: resolvedAtMs, late_answer_seconds: seconds ?? null }) as { until: number | null };
    return until ?? undefined;
  },
}));

let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase();
  client = await connectWhenReady(db.url);
}, 60_000);
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

agreesWithTypeScript("PostgreSQL", () => ({
  async open(row, atMs) {
    const { rows } = await client.query<{ open: boolean }>(
      `SELECT COALESCE(${lateAnswerOpenSql("$1::bigint", "q.")}, false) AS open
       FROM (SELECT $2::text AS status, $3::json AS late_json, $4::bigint AS late_until_ms) q`,
      [atMs, row.status, row.lateAnswer === undefined ? null : JSON.stringify(row.lateAnswer), row.lateUntilMs ?? null],
    );
    return rows[0]?.open === true;
  },
  async until(seconds, resolvedAtMs) {
    const { rows } = await client.query<{ until: string | null }>(
      `SELECT ${lateUntilSql("$1::bigint", "q.")} AS until FROM (SELECT $2::bigint AS late_answer_seconds) q`,
      [resolvedAtMs, seconds ?? null],
    );
    return rows[0]?.until == null ? undefined : Number(rows[0].until);
  },
}));
