import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { QuestionRecord } from "../../../src/record/record.ts";
import { CorruptRecordError, QuestionExistsError, QuotaExceededError, SessionBusyError, StoreUnavailableError } from "../../../src/gateway/store/kit/errors.ts";
import { POSTGRES_MIGRATIONS, runPostgresMigrations } from "../../../src/gateway/store/postgres/postgres-schema.ts";
import { createPostgresStore, type PostgresQuestionStore, type PostgresStoreOptions } from "../../../src/gateway/store/postgres/postgres-store.ts";
import type { Resolution, StoreChange } from "../../../src/gateway/store/kit/types.ts";
import { connectWhenReady, createTestDatabase, databaseUrl, type TestDatabase } from "../../helpers/postgres.ts";
import { startTcpProxy, type TcpProxy } from "../../helpers/tcp-proxy.ts";
import { createAtOnce, fullRecord, pendingRecord } from "./store-contract.ts";

let db: TestDatabase;
/** A connection of the test's own, to inspect and break things behind the stores' backs. */
let admin: pg.Client;
const opened: PostgresQuestionStore[] = [];
const proxies: TcpProxy[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await runPostgresMigrations(db.url);
  admin = await connectWhenReady(db.url);
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await db?.drop();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await admin.query("TRUNCATE questions CASCADE");
});

async function open(options: Partial<PostgresStoreOptions> = {}): Promise<PostgresQuestionStore> {
  const store = await createPostgresStore({ connectionString: db.url, log: () => undefined, ...options });
  opened.push(store);
  return store;
}

/** A store that reaches PostgreSQL through a proxy the test can cut or stall. */
async function openBehindProxy(options: Partial<PostgresStoreOptions> = {}) {
  const url = new URL(db.url);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  proxies.push(proxy);
  url.host = `127.0.0.1:${proxy.port}`;
  const store = await open({ connectionString: url.toString(), reconnectDelay: () => 50, ...options });
  return { store, proxy };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const answered = (resolvedAtMs = 2_000): Resolution => ({
  status: "answered",
  answers: { target: ["Production"] },
  by: { surface: "web", via: "web" },
  resolvedAtMs,
});
const chatRecord = (id: string, over: Partial<QuestionRecord> = {}) =>
  pendingRecord(id, { targets: [{ surface: "telegram", chat: "c1" }], ...over });

describe("schema", () => {
  it("migrates once, however many instances start at the same moment", async () => {
    const fresh = await createTestDatabase();
    try {
      const reports = await Promise.all(Array.from({ length: 5 }, () => runPostgresMigrations(fresh.url)));
      expect(reports.map((r) => r.applied.length).sort()).toEqual([0, 0, 0, 0, POSTGRES_MIGRATIONS.length]);
      expect(await runPostgresMigrations(fresh.url)).toEqual({ from: POSTGRES_MIGRATIONS.length, to: POSTGRES_MIGRATIONS.length, applied: [] });
    } finally {
      await fresh.drop();
    }
  });

  it("reads records written before follow-ups existed (issue 20) after migrating: no reminders, no late window", async () => {
    const old = await createTestDatabase();
    try {
      const client = await connectWhenReady(old.url);
      const before = 4; // version 5 added follow-ups
      await client.query("CREATE TABLE ask_user_bridge_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
      for (let version = 1; version <= before; version++) {
        await client.query(POSTGRES_MIGRATIONS[version - 1]!);
        await client.query("INSERT INTO ask_user_bridge_migrations (version) VALUES ($1)", [version]);
      }
      await client.query(
        `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json)
         VALUES ('old', 'pending', 1, 5000, 30, ARRAY['web'], '[]', '[{"surface":"web"}]')`,
      );
      await client.end();
      const store = await createPostgresStore({ connectionString: old.url, log: () => undefined });
      try {
        const record = await store.get("old");
        expect(record).toMatchObject({ id: "old", status: "pending", reminders: [] });
        for (const key of ["escalate", "remindersSent", "lateAnswerSeconds", "lateUntilMs", "lateAnswer"]) expect(record).not.toHaveProperty(key);
        const [expired] = await store.expireDue(6_000, 10);
        expect(expired).toMatchObject({ id: "old", status: "expired" });
        expect(expired).not.toHaveProperty("lateUntilMs");
      } finally {
        await store.close();
      }
    } finally {
      await old.drop();
    }
  });

  it("upgrades a version-5 database to sessions per credential, keeping its pending questions", async () => {
    const old = await createTestDatabase();
    try {
      const client = await connectWhenReady(old.url);
      await client.query("CREATE TABLE ask_user_bridge_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
      for (let version = 1; version <= 5; version++) {
        await client.query(POSTGRES_MIGRATIONS[version - 1]!);
        await client.query("INSERT INTO ask_user_bridge_migrations (version) VALUES ($1)", [version]);
      }
      for (const [id, askedBy] of [["old-a", "agent-a"], ["old-admin", null]] as const) {
        await client.query(
          `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json, session_key, asked_by, run_id)
           VALUES ($1, 'pending', 1, 5000, 30, ARRAY['web'], '[]', '[{"surface":"web"}]', $2, $3, 'r1')`,
          [id, askedBy ? "s" : "s-admin", askedBy],
        );
      }
      // Version 6 and every later one (each appended since).
      expect((await runPostgresMigrations(old.url)).applied).toEqual(POSTGRES_MIGRATIONS.slice(5).map((_, i) => i + 6));
      const { rows } = await client.query<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'questions' AND indexname LIKE 'questions_pending_%' ORDER BY indexname",
      );
      await client.end();
      expect(rows.map((r) => r.indexname)).toEqual([
        "questions_pending_asked_by_run", "questions_pending_created", "questions_pending_expiry", "questions_pending_next_due", "questions_pending_session",
      ]);
      expect(rows.find((r) => r.indexname === "questions_pending_session")?.indexdef).toMatch(
      /UNIQUE INDEX .* \(COALESCE\(asked_by, ''::text\), session_key\) WHERE \(\(status = 'pending'::text\) AND \(session_key IS NOT NULL\)\)$/,
    );
      const store = await createPostgresStore({ connectionString: old.url, log: () => undefined });
      try {
        expect(await store.countPending({ askedBy: "agent-a", runId: "r1" })).toBe(1);
        await store.create(pendingRecord("new-b", { sessionKey: "s", askedBy: "agent-b" }));
        await store.create(pendingRecord("new-admin", { sessionKey: "s" }));
        await expect(store.create(pendingRecord("new-a", { sessionKey: "s", askedBy: "agent-a" }))).rejects.toThrow(SessionBusyError);
        await expect(store.create(pendingRecord("new-a", { askedBy: "agent-a", runId: "r1" }), { perRun: 1 })).rejects.toThrow(QuotaExceededError);
      } finally {
        await store.close();
      }
    } finally {
      await old.drop();
    }
  });

  it("refuses a database newer than this build", async () => {
    await admin.query("INSERT INTO ask_user_bridge_migrations (version) VALUES (999)");
    try {
      await expect(runPostgresMigrations(db.url)).rejects.toThrow(/schema version 999, newer than this build/);
    } finally {
      await admin.query("DELETE FROM ask_user_bridge_migrations WHERE version = 999");
    }
  });

  it("rejects with StoreUnavailableError when PostgreSQL cannot be reached", async () => {
    const url = databaseUrl(`postgres://postgres:x@127.0.0.1:1/postgres`, "nowhere");
    const failure = await createPostgresStore({ connectionString: url }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as Error).message).toMatch(/^PostgreSQL is unreachable: .*ECONNREFUSED/);
  });

  it("refuses an instance id that PostgreSQL would not keep as application_name", async () => {
    await expect(createPostgresStore({ connectionString: db.url, instanceId: "x".repeat(64) })).rejects.toThrow(/63 printable ASCII/);
  });
});

describe("one store", () => {
  it("round-trips a record with every optional field, JSON key order included", async () => {
    const store = await open();
    const record = fullRecord("q1");
    await store.create(record);
    const stored = await store.get("q1");
    expect(stored).toStrictEqual(record);
    expect(JSON.stringify(stored)).toBe(JSON.stringify(record));
    expect(await store.get("missing")).toBeUndefined();
  });

  it("leaves absent optional fields absent", async () => {
    const store = await open();
    await store.create(pendingRecord("q1"));
    expect(await store.get("q1")).toStrictEqual(pendingRecord("q1"));
  });

  it("throws QuestionExistsError for a taken id", async () => {
    const store = await open();
    await store.create(pendingRecord("q1"));
    await expect(store.create(pendingRecord("q1"))).rejects.toBeInstanceOf(QuestionExistsError);
  });

  it("resolves once: the CAS answers QUESTION_ALREADY_TERMINAL with the record, and QUESTION_NOT_FOUND", async () => {
    const store = await open();
    await store.create(pendingRecord("q1", { partialAnswers: { a: ["1"] } }));
    const first = await store.resolve("q1", answered());
    expect(first).toStrictEqual({
      ok: true,
      record: { ...pendingRecord("q1", { partialAnswers: { a: ["1"] } }), status: "answered", resolvedAtMs: 2_000, answers: { target: ["Production"] }, by: { surface: "web", via: "web" } },
    });
    const second = await store.resolve("q1", { status: "cancelled", reason: "cancelled", resolvedAtMs: 3_000 });
    expect(second).toStrictEqual({ ok: false, code: "QUESTION_ALREADY_TERMINAL", record: first.ok ? first.record : undefined });
    expect(await store.resolve("missing", answered())).toStrictEqual({ ok: false, code: "QUESTION_NOT_FOUND" });
  });

  it("keeps a cancellation's by and detail, and an expiry's earlier fields", async () => {
    const store = await open();
    await store.create(pendingRecord("q1"));
    const by = { surface: "telegram", user: "42", via: "button" } as const;
    const outcome = await store.resolve("q1", { status: "cancelled", reason: "skipped", by, detail: "no", resolvedAtMs: 5 });
    expect(outcome.ok && outcome.record).toMatchObject({ status: "cancelled", reason: "skipped", by, detail: "no", resolvedAtMs: 5 });
  });

  it("lists newest first with every filter and a limit", async () => {
    const store = await open();
    await store.create(pendingRecord("a", { createdAtMs: 1, runId: "r1", sessionKey: "s1", targets: [{ surface: "telegram", chat: "c1" }] }));
    await store.create(pendingRecord("b", { createdAtMs: 2, runId: "r1", targets: [{ surface: "discord", chat: "c1" }, { surface: "web" }] }));
    await store.create(pendingRecord("c", { createdAtMs: 2, runId: "r2", targets: [{ surface: "web" }] }));
    await store.resolve("c", answered());
    const ids = async (filter: Parameters<QuestionStoreList>[0]) => (await store.list(filter)).map((r) => r.id);
    expect(await ids({})).toEqual(["c", "b", "a"]);
    expect(await ids({ limit: 2 })).toEqual(["c", "b"]);
    expect(await ids({ limit: 0 })).toEqual([]);
    expect(await ids({ status: "pending" })).toEqual(["b", "a"]);
    expect(await ids({ runId: "r1" })).toEqual(["b", "a"]);
    expect(await ids({ sessionKey: "s1" })).toEqual(["a"]);
    expect(await ids({ surface: "web" })).toEqual(["c", "b"]);
    expect(await ids({ chat: "c1" })).toEqual(["b", "a"]);
    expect(await ids({ chat: "c1", surface: "telegram" })).toEqual(["a"]);
    expect(await ids({ chat: "nope" })).toEqual([]);
  });

  it("records deliveries once per (surface, chat), in the order recorded", async () => {
    const store = await open();
    await store.create(chatRecord("q1"));
    const first = { surface: "telegram", chat: "c1", messageRef: "1", deliveredAtMs: 10 } as const;
    const second = { surface: "discord", chat: "d", messageRef: "2", deliveredAtMs: 5 } as const;
    await store.addDelivery("q1", first);
    await store.addDelivery("q1", second);
    const again = await store.addDelivery("q1", { ...first, messageRef: "other" });
    expect(again?.deliveries).toEqual([first, second]);
    expect(await store.addDelivery("missing", first)).toBeUndefined();
  });

  it("finds pending chat-only records nobody has delivered, oldest first, and the next expiry", async () => {
    const store = await open();
    await store.create(chatRecord("late", { createdAtMs: 3, expiresAtMs: 50 }));
    await store.create(chatRecord("early", { createdAtMs: 1, expiresAtMs: 70 }));
    await store.create(pendingRecord("web", { createdAtMs: 2, expiresAtMs: 20 }));
    await store.create(chatRecord("delivered", { createdAtMs: 0, expiresAtMs: 40 }));
    await store.addDelivery("delivered", { surface: "telegram", chat: "c1", messageRef: "m", deliveredAtMs: 1 });
    expect((await store.pendingAwaitingDelivery()).map((r) => r.id)).toEqual(["early", "late"]);
    expect(await store.nextExpiryMs()).toBe(20);
    await store.resolve("web", answered());
    expect(await store.nextExpiryMs()).toBe(40);
  });

  it("expires due records soonest first, at most `limit`, with resolvedAtMs = now", async () => {
    const store = await open();
    await store.create(pendingRecord("b", { expiresAtMs: 20 }));
    await store.create(pendingRecord("a", { expiresAtMs: 20 }));
    await store.create(pendingRecord("c", { expiresAtMs: 10 }));
    await store.create(pendingRecord("later", { expiresAtMs: 99 }));
    const expired = await store.expireDue(50, 2);
    expect(expired.map((r) => r.id)).toEqual(["c", "a"]);
    expect(expired[0]).toStrictEqual({ ...pendingRecord("c", { expiresAtMs: 10 }), status: "expired", reason: "expired", resolvedAtMs: 50 });
    expect((await store.expireDue(50, 10)).map((r) => r.id)).toEqual(["b"]);
    expect(await store.expireDue(50, 10)).toEqual([]);
    expect(await store.expireDue(100, 0)).toEqual([]);
  });

  it("merges partial answers, leaves a terminal record unchanged, and knows no unknown id", async () => {
    const store = await open();
    await store.create(pendingRecord("q1"));
    await store.mergePartial("q1", { a: ["1"], b: ["old"] });
    expect((await store.mergePartial("q1", { b: ["new"] }))?.partialAnswers).toStrictEqual({ a: ["1"], b: ["new"] });
    const resolved = await store.resolve("q1", answered());
    expect(await store.mergePartial("q1", { c: ["3"] })).toStrictEqual(resolved.ok ? resolved.record : undefined);
    expect(await store.mergePartial("missing", { a: ["1"] })).toBeUndefined();
  });

  it("skips a corrupt row in lists (reported once) and throws CorruptRecordError reading it alone", async () => {
    const reports: CorruptRecordError[] = [];
    const store = await open({ onCorruptRecord: (error) => reports.push(error) });
    await store.create(pendingRecord("good"));
    await store.create(pendingRecord("bad"));
    await admin.query(`UPDATE questions SET questions_json = '{"not": "an array"}' WHERE id = 'bad'`);
    expect((await store.list()).map((r) => r.id)).toEqual(["good"]);
    expect((await store.list()).map((r) => r.id)).toEqual(["good"]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ code: "STORE_CORRUPT_RECORD", id: "bad", column: "questions_json" });
    await expect(store.get("bad")).rejects.toBeInstanceOf(CorruptRecordError);
  });
});

type QuestionStoreList = PostgresQuestionStore["list"];

describe("several instances on one database", () => {
  it("lets exactly one of two concurrent resolutions win, for every record", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const ids = Array.from({ length: 40 }, (_, i) => `q${i}`);
    for (const id of ids) await a.create(pendingRecord(id));
    const outcomes = await Promise.all(
      ids.flatMap((id) => [a.resolve(id, answered(1)), b.resolve(id, { status: "cancelled", reason: "cancelled", resolvedAtMs: 2 })]),
    );
    for (let i = 0; i < ids.length; i++) {
      const pair = [outcomes[2 * i], outcomes[2 * i + 1]];
      expect(pair.filter((o) => o?.ok)).toHaveLength(1);
      const winner = pair.find((o) => o?.ok);
      const loser = pair.find((o) => !o?.ok);
      expect(loser).toStrictEqual({ ok: false, code: "QUESTION_ALREADY_TERMINAL", record: winner?.ok ? winner.record : undefined });
    }
  });

  it("expires each of 200 due records exactly once when 3 instances expire at the same time", async () => {
    const stores = await Promise.all([open(), open(), open()]);
    const values = Array.from({ length: 200 }, (_, i) => `('d${i}', 'pending', 1, ${i}, 900, ARRAY['web'], '[]', '[{"surface":"web"}]')`);
    await admin.query(
      `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json)
       VALUES ${values.join(", ")}`,
    );
    const expiredBy = await Promise.all(
      stores.map(async (store) => {
        const mine: string[] = [];
        for (;;) {
          const batch = await store.expireDue(1_000, 7);
          if (batch.length === 0) return mine;
          mine.push(...batch.map((r) => r.id));
        }
      }),
    );
    const all = expiredBy.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    expect(expiredBy.filter((ids) => ids.length > 0).length).toBeGreaterThan(1);
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM questions WHERE status = 'expired' AND resolved_at_ms = 1000");
    expect(rows[0].n).toBe(200);
  });

  it("never loses a partial answer when replies merge at the same time", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a.create(pendingRecord("q1"));
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).mergePartial("q1", { [`k${i}`]: [String(i)] })));
    const record = await a.get("q1");
    expect(Object.keys(record?.partialAnswers ?? {}).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`).sort());
  });

  it("grants a delivery claim to one claimant, renews it, hands over a lapsed lease, and refuses after delivery", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a.create(chatRecord("q1"));
    const claim = { id: "q1", surface: "telegram", chat: "c1", leaseMs: 1_000 };
    expect(await a.claimDelivery({ ...claim, claimant: "bot-a", nowMs: 0 })).toEqual({ ok: true, leaseUntilMs: 1_000 });
    expect(await b.claimDelivery({ ...claim, claimant: "bot-b", nowMs: 500 })).toEqual({ ok: false, reason: "claimed", leaseUntilMs: 1_000 });
    expect(await a.claimDelivery({ ...claim, claimant: "bot-a", nowMs: 600 })).toEqual({ ok: true, leaseUntilMs: 1_600 });
    expect(await b.claimDelivery({ ...claim, claimant: "bot-b", nowMs: 1_599 })).toEqual({ ok: false, reason: "claimed", leaseUntilMs: 1_600 });
    expect(await b.claimDelivery({ ...claim, claimant: "bot-b", nowMs: 1_600 })).toEqual({ ok: true, leaseUntilMs: 2_600 });
    expect(await a.claimDelivery({ ...claim, claimant: "bot-a", nowMs: 1_700 })).toEqual({ ok: false, reason: "claimed", leaseUntilMs: 2_600 });
    expect(await a.claimDelivery({ ...claim, chat: "other", claimant: "bot-a", nowMs: 1_700 })).toEqual({ ok: true, leaseUntilMs: 2_700 });
    await b.addDelivery("q1", { surface: "telegram", chat: "c1", messageRef: "m", deliveredAtMs: 1_800 });
    expect(await b.claimDelivery({ ...claim, claimant: "bot-b", nowMs: 1_900 })).toEqual({ ok: false, reason: "delivered" });
    await a.resolve("q1", answered());
    expect(await a.claimDelivery({ ...claim, chat: "third", claimant: "bot-a", nowMs: 2_000 })).toEqual({ ok: false, reason: "not_pending" });
    expect(await a.claimDelivery({ ...claim, id: "missing", claimant: "bot-a", nowMs: 2_000 })).toEqual({ ok: false, reason: "not_found" });
  });

  it("grants one of many concurrent claims", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a.create(chatRecord("q1"));
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).claimDelivery({ id: "q1", surface: "telegram", chat: "c1", claimant: `bot-${i}`, nowMs: 0, leaseMs: 1_000 })),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.reason === "claimed" && o.leaseUntilMs === 1_000)).toBe(true);
  });

  it("allows one pending question per session across instances (SessionBusyError)", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a.create(pendingRecord("q1", { sessionKey: "s" }));
    const busy = await b.create(pendingRecord("q2", { sessionKey: "s" })).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect(busy).toMatchObject({ code: "SESSION_HAS_PENDING_QUESTION", sessionKey: "s" });
    await b.create(fullRecord("terminal-in-same-session")); // not pending: allowed
    await a.resolve("q1", answered());
    await b.create(pendingRecord("q2", { sessionKey: "s" }));

    const racing = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).create(pendingRecord(`r${i}`, { sessionKey: "race" }))));
    expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(racing.filter((r) => r.status === "rejected").every((r) => r.status === "rejected" && r.reason instanceof SessionBusyError)).toBe(true);
  });

  it("keeps one pending question per (credential, session) when instances race, and lets credentials share a key", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const race = (askedBy: string | undefined, tag: string) =>
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).create(pendingRecord(`${tag}-${i}`, { sessionKey: "race", askedBy })));
    const [sameA, sameAdmin, others] = await Promise.all([
      Promise.allSettled(race("agent-a", "a")),
      Promise.allSettled(race(undefined, "admin")),
      Promise.all(["agent-b", "agent-c", "agent-d"].map((askedBy, i) => (i % 2 ? a : b).create(pendingRecord(askedBy, { sessionKey: "race", askedBy })))),
    ]);
    for (const outcomes of [sameA, sameAdmin]) {
      expect(outcomes.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(outcomes.filter((r) => r.status === "rejected").every((r) => r.status === "rejected" && r.reason instanceof SessionBusyError)).toBe(true);
    }
    expect(others).toHaveLength(3);
    expect(await a.list({ status: "pending", sessionKey: "race" })).toHaveLength(5);
  });

  it("holds each quota exactly when two instances (two pools) create at once", async () => {
    const [a, b] = await Promise.all([open({ connectTimeoutMs: 20_000 }), open({ connectTimeoutMs: 20_000 })]);
    const [credential, run, admins] = await Promise.all([
      createAtOnce([a, b], 300, { askedBy: "agent-a" }, { perCredential: 200 }),
      createAtOnce([b, a], 300, { askedBy: "agent-b", runId: "r1" }, { perRun: 50, perCredential: 1_000 }),
      createAtOnce([a, b], 40, { runId: "r1" }, { perRun: 1, perCredential: 1 }),
    ]);
    expect(credential.created).toHaveLength(200);
    expect(credential.refused.every((e) => e instanceof QuotaExceededError && e.quota === "credential" && e.pending === 200)).toBe(true);
    expect(run.created).toHaveLength(50);
    expect(run.refused.every((e) => e instanceof QuotaExceededError && e.quota === "run" && e.pending === 50)).toBe(true);
    expect(admins.created).toHaveLength(40);
    const { rows } = await admin.query<{ asked_by: string | null; n: number }>(
      "SELECT asked_by, count(*)::int AS n FROM questions WHERE status = 'pending' GROUP BY asked_by ORDER BY asked_by NULLS FIRST",
    );
    expect(rows).toEqual([{ asked_by: null, n: 40 }, { asked_by: "agent-a", n: 200 }, { asked_by: "agent-b", n: 50 }]);
    expect(await b.countPending({ askedBy: "agent-a" })).toBe(200);
  });

  it("announces another instance's committed changes, never the instance's own", async () => {
    const [a, b] = await Promise.all([open({ instanceId: "instance-a" }), open({ instanceId: "instance-b" })]);
    const seenByA: StoreChange[] = [];
    const seenByB: StoreChange[] = [];
    a.onRemoteChange((change) => seenByA.push(change));
    const unsubscribe = b.onRemoteChange((change) => seenByB.push(change));

    await a.create(chatRecord("q1", { sessionKey: "s" }));
    await a.mergePartial("q1", { a: ["1"] });
    await a.addDelivery("q1", { surface: "telegram", chat: "c1", messageRef: "m", deliveredAtMs: 1 });
    await a.addDelivery("q1", { surface: "telegram", chat: "c1", messageRef: "again", deliveredAtMs: 2 }); // no new row
    await a.create(pendingRecord("q2", { sessionKey: "s" })).catch(() => undefined); // rolled back: no event
    await a.create({ ...chatRecord("q3"), deliveries: [{ surface: "telegram", chat: "c1", messageRef: "m", deliveredAtMs: 1 }] });
    await a.resolve("q1", answered());
    await a.resolve("q1", answered()); // changes nothing
    await until(() => seenByB.length >= 5);
    await sleep(100);
    expect(seenByB.map(({ event, id }) => ({ event, id }))).toEqual([
      { event: "question.requested", id: "q1" },
      { event: "question.updated", id: "q1" },
      { event: "question.updated", id: "q1" },
      { event: "question.requested", id: "q3" },
      { event: "question.resolved", id: "q1" },
    ]);
    // Each change carries the record as that change committed it, not as it is now.
    expect(seenByB.map((c) => [c.record?.status, c.record?.partialAnswers, c.record?.deliveries.map((d) => d.messageRef)])).toEqual([
      ["pending", undefined, []],
      ["pending", { a: ["1"] }, []],
      ["pending", { a: ["1"] }, ["m"]],
      ["pending", undefined, ["m"]],
      ["answered", { a: ["1"] }, ["m"]],
    ]);
    expect(seenByB[4]!.record).toEqual(await b.get("q1"));
    expect(seenByB[3]!.record).toEqual(await b.get("q3"));
    expect(seenByA).toEqual([]);

    await b.expireDue(Number.MAX_SAFE_INTEGER, 10);
    await until(() => seenByA.length >= 1);
    expect(seenByA).toEqual([{ event: "question.resolved", id: "q3", record: await a.get("q3") }]);
    unsubscribe();
    await a.create(pendingRecord("q4"));
    await sleep(200);
    expect(seenByB).toHaveLength(5);
  });
});

describe("change notifications carry the record (issue 30)", () => {
  /** The raw payloads on the channel, from a LISTEN connection of the test's own. */
  async function rawPayloads(): Promise<{ payloads: string[]; close: () => Promise<void> }> {
    const client = await connectWhenReady(db.url);
    const payloads: string[] = [];
    client.on("notification", (m) => payloads.push(m.payload ?? ""));
    await client.query("LISTEN ask_user_bridge");
    return { payloads, close: () => client.end() };
  }
  /** A record whose questions alone take more than NOTIFY's 8000 bytes. */
  const bigRecord = (id: string) =>
    pendingRecord(id, { questions: [{ ...pendingRecord(id).questions[0]!, question: `Long: ${"é".repeat(5_000)}?` }] });

  it("reads a record too large for a notification, keeping each record's changes in commit order", async () => {
    const [a, b] = await Promise.all([open({ instanceId: "writer" }), open({ instanceId: "reader" })]);
    const raw = await rawPayloads();
    const seen: StoreChange[] = [];
    b.onRemoteChange((change) => seen.push(change));
    try {
      await a.create(bigRecord("big"));
      await a.create(pendingRecord("small"));
      await a.mergePartial("big", { target: ["Production"] });
      await a.resolve("small", answered());
      await a.resolve("big", answered());
      await until(() => seen.length >= 5);
      // Each record's changes in commit order; the small record's, carried, need not wait for the large one's read.
      const of = (id: string) => seen.filter((c) => c.id === id);
      expect(of("big").map((c) => c.event)).toEqual(["question.requested", "question.updated", "question.resolved"]);
      expect(of("small").map((c) => `${c.event} ${c.record?.status}`)).toEqual(["question.requested pending", "question.resolved answered"]);
      // The large record was read (as it was when read: pending or already further on); the small one carried.
      expect(of("big")[0]!.record).toMatchObject({ id: "big", questions: bigRecord("big").questions });
      expect(of("big")[2]!.record).toEqual(await b.get("big"));
      expect(of("small")[1]!.record).toEqual(await b.get("small"));
      await until(() => raw.payloads.length >= 5);
      const parsed = raw.payloads.map((p) => JSON.parse(p) as { origin: string; event: string; id: string; row?: unknown });
      expect(parsed.map((p) => [p.origin, p.id, p.row !== undefined])).toEqual([
        ["writer", "big", false],
        ["writer", "small", true],
        ["writer", "big", false],
        ["writer", "small", true],
        ["writer", "big", false],
      ]);
      for (const payload of raw.payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    } finally {
      await raw.close();
    }
  });

  it("reads a record whose carried row does not decode or names another record, ignores malformed and gone ones", async () => {
    const logged: string[] = [];
    const [a, b] = await Promise.all([open({ instanceId: "writer" }), open({ instanceId: "reader", log: (m) => logged.push(m) })]);
    const seen: StoreChange[] = [];
    b.onRemoteChange((change) => seen.push(change));
    await a.create(pendingRecord("q1"));
    await a.resolve("q1", answered());
    await until(() => seen.length === 2);
    const notify = (payload: string) => admin.query("SELECT pg_notify('ask_user_bridge', $1)", [payload]);
    const head = (id: string) => `{"origin" : "forger", "event" : "question.updated", "id" : ${JSON.stringify(id)}`;
    const [row] = (await admin.query(`SELECT ask_user_bridge_change_payload('question.updated', 'q1')::json -> 'row' AS row`)).rows as Array<{ row: object }>;
    await notify("not json at all");
    await notify(`${head("q1")}, "row" : {"id": "q1", "status": "pending", "questions_json": "{broken"}}`);
    await notify(`${head("q1")}, "row" : ${JSON.stringify({ ...row!.row, id: "other" })}}`);
    await notify(`${head("gone")}}`);
    await notify(`{"origin" : "forger", "event" : "question.deleted", "id" : "q1"}`);
    await notify(`{"origin" : "writer", "event" : "question.updated", "id" : "q1"}`); // "writer" is not b
    await notify(`{"origin" : "reader", "event" : "question.updated", "id" : "q1"}`); // b's own: skipped
    await notify(`${head("q1")}, "row" : ${JSON.stringify(row!.row)}}`); // carried
    await a.create(pendingRecord("q2"));
    // q2's change, carried, may overtake q1's reads (only each record's own changes keep commit order), so wait for all.
    await until(() => seen.length >= 7);
    await new Promise((r) => setTimeout(r, 200)); // nothing more arrives: the malformed, gone and own ones were dropped
    const current = await b.get("q1");
    const q1 = seen.filter((c) => c.id === "q1");
    expect(q1.map((c) => `${c.event} ${c.record?.status}`)).toEqual([
      "question.requested pending",
      "question.resolved answered",
      "question.updated answered", // the undecodable row: read
      "question.updated answered", // the row naming another record: read
      "question.updated answered", // "writer"'s, without a row: read
      "question.updated answered", // carried
    ]);
    expect(seen.filter((c) => c.id !== "q1").map((c) => `${c.event} ${c.id} ${c.record?.status}`)).toEqual(["question.requested q2 pending"]);
    for (const change of q1.slice(1)) expect(change.record).toEqual(current);
    expect(logged.some((m) => m.startsWith("ignored a malformed notification: not json"))).toBe(true);
    expect(logged.some((m) => m.includes("carried a record that does not decode"))).toBe(true);
  });
});

describe("losing the database", () => {
  it("rejects within the connect timeout while PostgreSQL is down, and recovers (LISTEN too) when it is back", async () => {
    const { store, proxy } = await openBehindProxy({ connectTimeoutMs: 1_000 });
    const direct = await open();
    const resyncs: number[] = [];
    const changes: StoreChange[] = [];
    store.onResync(() => resyncs.push(Date.now()));
    store.onRemoteChange((change) => changes.push(change));
    await store.create(pendingRecord("before"));

    await proxy.cut();
    // Reads retry a connection that died under them, so they fail only to connect: unreachable, ECONNREFUSED.
    for (const attempt of [() => store.get("before"), () => store.list(), () => store.create(pendingRecord("during"))]) {
      const started = Date.now();
      const failure = await attempt().catch((error: unknown) => error);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(failure).toMatchObject({ code: "STORE_UNAVAILABLE", message: expect.stringMatching(/^PostgreSQL is unreachable: .*ECONNREFUSED/) });
    }
    expect(await direct.get("during")).toBeUndefined();
    await direct.create(pendingRecord("missed-while-down"));

    await proxy.restore();
    await store.create(pendingRecord("after"));
    expect((await store.list()).map((r) => r.id).sort()).toEqual(["after", "before", "missed-while-down"]);
    await until(() => resyncs.length === 1);
    await direct.create(pendingRecord("announced"));
    await until(() => changes.some((c) => c.id === "announced"));
    expect(changes).toEqual([{ event: "question.requested", id: "announced", record: await direct.get("announced") }]);
  });

  it("rejects within the timeouts when the network swallows everything, and notices the silent LISTEN connection", async () => {
    const logged: string[] = [];
    const { store, proxy } = await openBehindProxy({
      connectTimeoutMs: 500,
      statementTimeoutMs: 500,
      listenHeartbeatMs: 200,
      log: (message) => logged.push(message),
    });
    const resyncs: number[] = [];
    store.onResync(() => resyncs.push(1));
    await store.create(pendingRecord("q1"));
    proxy.stall();
    const started = Date.now();
    const outcomes = await Promise.allSettled([store.get("q1"), store.create(pendingRecord("q2")), store.list(), store.get("q1")]);
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect(outcome.status === "rejected" && outcome.reason).toBeInstanceOf(StoreUnavailableError);
    }
    // The heartbeat found the LISTEN connection dead while the network was still swallowing everything.
    await until(() => logged.some((m) => m.startsWith("the LISTEN connection was lost")));
    await proxy.restore();
    expect((await store.get("q1"))?.id).toBe("q1");
    await store.create(pendingRecord("q3"));
    await until(() => resyncs.length === 1);
  });

  it("rejects a write whose connection dies mid-statement (outcome unknown), and never acknowledges it", async () => {
    const store = await open({ instanceId: "victim" });
    const resyncs: number[] = [];
    store.onResync(() => resyncs.push(1));
    await store.create(pendingRecord("warm"));
    const locker = await connectWhenReady(db.url);
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE questions IN ACCESS EXCLUSIVE MODE");
      const write = store.create(pendingRecord("blocked")).catch((error: unknown) => error);
      await until(async () => {
        const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'victim' AND wait_event_type = 'Lock'");
        return rows.length > 0;
      });
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'victim' AND wait_event_type = 'Lock'");
      const failure = await write;
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toMatch(/create.*whether it took effect is unknown.*terminating connection due to administrator command \(57P01\)/);
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
    expect(await store.get("blocked")).toBeUndefined();

    // Every connection of the instance, the LISTEN one included, is killed while idle. A read retries once on a
    // fresh connection, so it just works; LISTEN comes back by itself and says so.
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'victim'");
    expect((await store.get("warm"))?.id).toBe("warm");
    await store.create(pendingRecord("after"));
    await until(() => resyncs.length === 1);
  });

  it("rejects a statement that outlives statement_timeout", async () => {
    const store = await open({ statementTimeoutMs: 300 });
    const locker = await connectWhenReady(db.url);
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE questions IN ACCESS EXCLUSIVE MODE");
      const failure = await store.create(pendingRecord("slow")).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toMatch(/^PostgreSQL refused create: canceling statement due to statement timeout \(57014\)/);
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
    await store.create(pendingRecord("fast"));
  });

  it("maps failures of a create under quota as it maps any write's, and leaves nothing behind", async () => {
    const [hasty, store] = await Promise.all([open({ statementTimeoutMs: 300 }), open({ instanceId: "quota-victim" })]);
    const limits = { perCredential: 5 };
    const locker = await connectWhenReady(db.url);
    try {
      // Another holder of the credential's quota lock: the create waits for it, until statement_timeout.
      await locker.query("SELECT pg_advisory_lock(hashtextextended('aub-quota:agent-a', 0))");
      const slow = await hasty.create(pendingRecord("slow", { askedBy: "agent-a" }), limits).catch((error: unknown) => error);
      expect(slow).toBeInstanceOf(StoreUnavailableError);
      expect((slow as Error).message).toMatch(/^PostgreSQL refused create: canceling statement due to statement timeout \(57014\)/);
      // Killed while it waits: the outcome of a write is unknown, and the promise says so.
      const killed = store.create(pendingRecord("killed", { askedBy: "agent-a" }), limits).catch((error: unknown) => error);
      await until(async () => {
        const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'quota-victim' AND wait_event_type = 'Lock'");
        return rows.length > 0;
      });
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'quota-victim' AND wait_event_type = 'Lock'");
      expect(await killed).toBeInstanceOf(StoreUnavailableError);
      expect(((await killed) as Error).message).toMatch(/create.*whether it took effect is unknown.*\(57P01\)/);
    } finally {
      await locker.query("SELECT pg_advisory_unlock_all()");
      await locker.end();
    }
    expect(await store.list()).toEqual([]);
    // The pool recovered; refusals inside the transaction keep their own types.
    await store.create(pendingRecord("q1", { askedBy: "agent-a", sessionKey: "s" }), limits);
    await expect(store.create(pendingRecord("q1", { askedBy: "agent-a" }), limits)).rejects.toThrow(QuestionExistsError);
    await expect(store.create(pendingRecord("q2", { askedBy: "agent-a", sessionKey: "s" }), limits)).rejects.toThrow(SessionBusyError);
    expect(await store.countPending()).toBe(1);
  });
});
