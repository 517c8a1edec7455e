/**
 * Issue #24 §1–5: each credential sees and does only its own, against real `ask-user-bridge gateway` processes, on
 * SQLite (one gateway) and on two gateways sharing one PostgreSQL database (requests go to one instance, the effect
 * is checked on the other). Each block reproduces an attack the security review made, and checks it now fails:
 * 1. a revoked token's open sockets (upgrade header or `connect` frame) kept asking for over a minute;
 * 2. agent B could read, wait on, cancel and abort agent A's questions, got their events, and took A's sessionKey;
 * 3. a `bot:slack` token could answer or cancel a telegram-only or web-only question, as any user;
 * 4. 1,000 concurrent requests passed the per-credential and per-run quotas (PostgreSQL);
 * 5. one agent token held every connection, and the admin and the bots got 503.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, freePort, oneQuestion, RawWs, rpc, sleep, spawnCli, spawnGateway, tempDir, TOKEN, type ChildGateway, type ResFrame } from "../helpers/gateway.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.ts";
import { until } from "./system-harness.ts";

interface Deployment {
  gateways: ChildGateway[];
  /** What the CLI needs to manage this deployment's credentials. */
  env: Record<string, string>;
}

const databases: TestDatabase[] = [];
afterAll(async () => {
  await cleanup();
  for (const db of databases) await db.drop();
});

async function deploy(store: "sqlite" | "postgres", extraEnv: Record<string, string> = {}): Promise<Deployment> {
  const common = { ASK_TEST_MIN_TIMEOUT_SECONDS: "1", ...extraEnv };
  if (store === "sqlite") {
    const env = { DATA_DIR: tempDir("aub-scope-"), ...common };
    return { gateways: [await spawnGateway({ ...env, GATEWAY_PORT: String(await freePort()) })], env };
  }
  const db = await createTestDatabase();
  databases.push(db);
  const env = { DATABASE_URL: db.url, ...common };
  const gateways: ChildGateway[] = [];
  // One after the other: the first runs the migrations (they run under a lock anyway).
  for (let i = 0; i < 2; i++) gateways.push(await spawnGateway({ ...env, DATA_DIR: tempDir("aub-scope-pg-"), GATEWAY_PORT: String(await freePort()) }));
  return { gateways, env };
}

async function createToken(deployment: Deployment, role: string, name: string): Promise<string> {
  const created = await spawnCli(["token", "create", "--role", role, "--name", name], deployment.env).exited;
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

const ok = (res: { body: ResFrame }) => {
  if (!res.body.ok) throw new Error(`${res.body.error.code}: ${res.body.error.message}`);
  return res.body.payload;
};

const STORES = [
  ["SQLite", "sqlite"],
  ["two gateways on PostgreSQL", "postgres"],
] as const;

describe.each(STORES)("on %s", (_name, store) => {
  let d: Deployment;
  /** The instance requests go to, and the one the effects are checked on (the same one on SQLite). */
  let first: ChildGateway;
  let other: ChildGateway;
  beforeAll(async () => {
    d = await deploy(store, { LATE_ANSWER_SECONDS: "600" });
    first = d.gateways[0]!;
    other = d.gateways[d.gateways.length - 1]!;
  }, 90_000);

  describe("§1 revocation reaches open sockets", () => {
    it("closes or refuses, within 5 s on every instance, each socket opened by the upgrade header or by a connect frame", async () => {
      const token = await createToken(d, "agent", "to-be-revoked");
      const sockets: Array<{ how: string; ws: RawWs }> = [];
      for (const gateway of d.gateways) {
        sockets.push({ how: `header @${gateway.url}`, ws: await RawWs.open(gateway.wsUrl, { bearer: token }) });
        sockets.push({ how: `connect frame @${gateway.url}`, ws: await RawWs.connect(gateway.wsUrl, token) });
      }
      for (const { ws } of sockets) expect(await ws.ok("question.list", {})).toMatchObject({ questions: [] });

      const revoked = await spawnCli(["token", "revoke", "to-be-revoked"], d.env).exited;
      expect(revoked.code, revoked.stderr).toBe(0);
      const revokedAt = Date.now();

      const refusedWithin = await Promise.all(
        sockets.map(async ({ how, ws }) => {
          let closed = false;
          void ws.closed.then(() => (closed = true));
          for (;;) {
            if (closed) return { how, ms: Date.now() - revokedAt };
            const res = await Promise.race([ws.request("question.list", {}), ws.closed.then(() => undefined)]);
            if (res && !res.ok && res.error.code === "UNAUTHORIZED") return { how, ms: Date.now() - revokedAt, message: res.error.message };
            if (Date.now() - revokedAt > 10_000) return { how, ms: Infinity };
            await sleep(100);
          }
        }),
      );
      for (const outcome of refusedWithin) expect(outcome.ms, outcome.how).toBeLessThanOrEqual(5_000);
      // And they stay refused: each socket is closed (the gateway closes a revoked credential's sockets).
      for (const { how, ws } of sockets) expect((await ws.closed).code, how).toBe(4401);
    }, 30_000);

    it("refuses the revoked token over HTTP and at the upgrade, saying so, and never locks out the address for it", async () => {
      const token = await createToken(d, "agent", "revoked-http");
      expect(ok(await rpc(first.url, "question.list", {}, { token }))).toMatchObject({ questions: [] });
      expect((await spawnCli(["token", "revoke", "revoked-http"], d.env).exited).code).toBe(0);
      await sleep(1_500);
      for (const gateway of d.gateways) {
        // A client retrying with its revoked token, many times: refused each time, but no lock-out for the address.
        for (let i = 0; i < 12; i++) {
          const refused = await rpc(gateway.url, "question.list", {}, { token });
          expect(refused.status).toBe(401);
          expect(refused.body).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED", message: "this credential was revoked" } });
        }
        await expect(RawWs.open(gateway.wsUrl, { bearer: token })).rejects.toMatchObject({ status: 401 });
        expect((await rpc(gateway.url, "question.list", {}, { token: TOKEN })).status).toBe(200);
      }
    }, 30_000);
  });

  describe("§2 agents see only their own", () => {
    let alice: string;
    let bob: string;
    beforeAll(async () => {
      [alice, bob] = [await createToken(d, "agent", "alice-agent"), await createToken(d, "agent", "bob-agent")];
    }, 30_000);

    it("to another agent, a question is as if it did not exist: get, waitAnswer and cancel say QUESTION_NOT_FOUND", async () => {
      const { id } = ok(await rpc(first.url, "question.request", oneQuestion({ runId: "run-1", sessionKey: "main" }), { token: alice }));
      const { id: adminId } = ok(await rpc(first.url, "question.request", oneQuestion(), { token: TOKEN }));
      for (const questionId of [id, adminId]) {
        for (const [method, params] of [
          ["question.get", { id: questionId }],
          ["question.waitAnswer", { id: questionId, timeoutMs: 100 }],
          ["question.resolve", { id: questionId, cancel: true, reason: "cancelled" }],
        ] as const) {
          const refused = await rpc(other.url, method, params, { token: bob });
          expect(refused.status, method).toBe(404);
          expect(refused.body, method).toMatchObject({ ok: false, error: { code: "QUESTION_NOT_FOUND", message: `no question with id ${questionId}` } });
        }
      }
      // Nothing changed: alice's question is pending, and alice and the admin see it.
      expect(ok(await rpc(other.url, "question.get", { id }, { token: alice }))).toMatchObject({ id, status: "pending" });
      expect(ok(await rpc(other.url, "question.get", { id }, { token: TOKEN }))).toMatchObject({ id, status: "pending" });
      ok(await rpc(first.url, "question.resolve", { id, cancel: true, reason: "cancelled" }, { token: alice }));
      ok(await rpc(first.url, "question.resolve", { id: adminId, cancel: true, reason: "cancelled" }, { token: TOKEN }));
    });

    it("lists only its own, aborts only its own runs, and shares no sessionKey or runId with another agent", async () => {
      const asked = ok(await rpc(first.url, "question.request", oneQuestion({ runId: "shared-run", sessionKey: "shared-key" }), { token: alice }));
      // The same key and run for bob: his own, so neither blocks nor touches alice's.
      const bobs = ok(await rpc(other.url, "question.request", oneQuestion({ runId: "shared-run", sessionKey: "shared-key" }), { token: bob }));
      const again = await rpc(other.url, "question.request", oneQuestion({ sessionKey: "shared-key" }), { token: bob });
      expect(again.body).toMatchObject({ ok: false, error: { code: "SESSION_HAS_PENDING_QUESTION" } });

      const ids = async (token: string, params: object) =>
        ((ok(await rpc(other.url, "question.list", params, { token })) as { questions: Array<{ id: string }> }).questions).map((q) => q.id);
      expect(await ids(bob, { status: "pending" })).toEqual([bobs.id]);
      expect(await ids(alice, { status: "pending", runId: "shared-run" })).toEqual([asked.id]);
      expect((await ids(TOKEN, { status: "pending", runId: "shared-run" })).sort()).toEqual([asked.id, bobs.id].sort());

      expect(ok(await rpc(first.url, "run.abort", { runId: "shared-run" }, { token: bob }))).toEqual({ cancelled: [bobs.id] });
      expect(ok(await rpc(other.url, "question.get", { id: asked.id }, { token: alice }))).toMatchObject({ status: "pending" });
      expect(ok(await rpc(first.url, "run.abort", { runId: "shared-run" }, { token: alice }))).toEqual({ cancelled: [asked.id] });
    });

    it("gets no event about another credential's question on its WebSocket, on any instance", async () => {
      const bobWs = await RawWs.open(other.wsUrl, { bearer: bob });
      const aliceWs = await RawWs.open(other.wsUrl, { bearer: alice });
      const adminWs = await RawWs.open(other.wsUrl, { bearer: TOKEN });
      const { id: aliceId } = ok(await rpc(first.url, "question.request", oneQuestion(), { token: alice }));
      const { id: adminId } = ok(await rpc(first.url, "question.request", oneQuestion(), { token: TOKEN }));
      ok(await rpc(first.url, "question.resolve", { id: aliceId, cancel: true, reason: "cancelled" }, { token: alice }));
      ok(await rpc(first.url, "question.resolve", { id: adminId, cancel: true, reason: "cancelled" }, { token: TOKEN }));
      const { id: bobId } = ok(await rpc(first.url, "question.request", oneQuestion(), { token: bob }));
      ok(await rpc(first.url, "question.resolve", { id: bobId, cancel: true, reason: "cancelled" }, { token: bob }));
      // Bob's own resolution arrives last: by then every event about the others' would have arrived too.
      await bobWs.waitFor(() => bobWs.events.find((e) => e.event === "question.resolved" && e.payload.id === bobId), 10_000);
      await adminWs.waitFor(() => adminWs.events.find((e) => e.event === "question.resolved" && e.payload.id === bobId), 10_000);
      const about = (ws: RawWs) => [...new Set(ws.events.map((e) => e.payload.id as string))];
      // Each agent hears of this test's question of its own, and of nothing it did not ask. (A change to one of its
      // questions from an earlier test may still reach the socket from the other instance: it is its own.)
      const ownIds = async (token: string) => {
        const mine = ((ok(await rpc(first.url, "question.list", { limit: 1_000 }, { token })) as { questions: Array<{ id: string }> }).questions).map((q) => q.id);
        return new Set(mine);
      };
      const [bobOwn, aliceOwn] = [await ownIds(bob), await ownIds(alice)];
      expect(about(bobWs)).toContain(bobId);
      expect(about(bobWs).filter((id) => !bobOwn.has(id))).toEqual([]);
      expect(about(aliceWs)).toContain(aliceId);
      expect(about(aliceWs).filter((id) => !aliceOwn.has(id))).toEqual([]);
      expect(about(adminWs)).toEqual(expect.arrayContaining([aliceId, adminId, bobId]));
      for (const ws of [bobWs, aliceWs, adminWs]) ws.close();
    });
  });

  describe("§3 bots act only on their surface and for their people", () => {
    let slackBot: string;
    let telegramBot: string;
    beforeAll(async () => {
      [slackBot, telegramBot] = [await createToken(d, "bot:slack", "slack-bot"), await createToken(d, "bot:telegram", "tg-bot")];
    }, 30_000);

    const ask = async (targets: unknown[], extra: Record<string, unknown> = {}) =>
      ok(await rpc(first.url, "question.request", oneQuestion({ targets, ...extra }), { token: TOKEN })).id as string;
    const answer = (id: string, user?: string) => ({ id, answers: { deploy_target: ["Production"] }, by: { surface: "x", via: "button", ...(user ? { user } : {}) } });

    it("refuses a bot answering, replying to or cancelling a question with no target on its surface, and records nothing", async () => {
      const telegramOnly = await ask([{ surface: "telegram", chat: "5" }]);
      const webOnly = await ask([{ surface: "web" }]);
      for (const id of [telegramOnly, webOnly]) {
        for (const [method, params, what] of [
          ["question.resolve", answer(id, "U1"), "answer"],
          ["question.reply", { id, text: "2", by: { surface: "slack", user: "U1", via: "text" } }, "answer"],
          ["question.resolve", { id, cancel: true, reason: "skipped", by: { surface: "slack", user: "U1", via: "button" } }, "cancel"],
        ] as const) {
          const refused = await rpc(other.url, method, params, { token: slackBot });
          expect(refused.status, `${method} ${id}`).toBe(403);
          expect(refused.body).toMatchObject({ ok: false, error: { code: "FORBIDDEN", message: `a bot:slack credential may not ${what} question ${id}: it has no slack target` } });
        }
        const record = ok(await rpc(other.url, "question.get", { id }, { token: TOKEN }));
        expect(record).toMatchObject({ status: "pending" });
        expect(record.partialAnswers).toBeUndefined();
      }
    });

    it("refuses a bot answering for someone its target does not name, and takes the named person", async () => {
      const id = await ask([{ surface: "telegram", chat: "-100500", users: ["42", "77"] }]);
      for (const [params, who] of [
        [answer(id, "99"), 'for user "99"'],
        [answer(id), "without naming the person"],
        [{ id, cancel: true, reason: "skipped", by: { surface: "telegram", user: "99", via: "button" } }, 'for user "99"'],
        [{ id, text: "Production", by: { surface: "telegram", user: "99", via: "text" } }, 'for user "99"'],
      ] as const) {
        const method = "text" in params ? "question.reply" : "question.resolve";
        const refused = await rpc(first.url, method, params, { token: telegramBot });
        expect(refused.status).toBe(403);
        expect((refused.body as { error: { message: string } }).error.message).toContain(`question ${id} ${who}: its telegram target is for other people`);
      }
      expect(ok(await rpc(other.url, "question.get", { id }, { token: TOKEN }))).toMatchObject({ status: "pending" });
      expect(ok(await rpc(first.url, "question.resolve", answer(id, "77"), { token: telegramBot }))).toMatchObject({
        status: "answered",
        by: { surface: "telegram", user: "77" },
      });
    });

    it("holds a late answer to the same rules", async () => {
      const id = await ask([{ surface: "telegram", chat: "5", users: ["42"] }], { timeoutSeconds: 1 });
      await until(async () => ok(await rpc(other.url, "question.get", { id }, { token: TOKEN })).status === "expired", "the question to expire", 10_000);
      expect((await rpc(other.url, "question.resolve", answer(id, "U1"), { token: slackBot })).body).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
      expect((await rpc(other.url, "question.reply", { id, text: "2", by: { surface: "telegram", user: "99", via: "text" } }, { token: telegramBot })).body).toMatchObject({
        ok: false,
        error: { code: "FORBIDDEN" },
      });
      const record = ok(await rpc(first.url, "question.get", { id }, { token: TOKEN }));
      expect(record.lateAnswer).toBeUndefined();
      expect(record.partialAnswers).toBeUndefined();
      expect(ok(await rpc(other.url, "question.resolve", answer(id, "42"), { token: telegramBot }))).toMatchObject({ lateAnswer: { by: { user: "42" } } });
    });
  });
});

describe("§4 quotas are exact under concurrency, on every store and across instances", () => {
  it.each(STORES)("on %s: 1,000 concurrent requests leave exactly the per-credential (200) and per-run (50) quotas pending", async (_name, store) => {
    const d = await deploy(store, { ASK_MAX_PENDING_PER_CREDENTIAL: "200", ASK_MAX_PENDING_PER_RUN: "50" });
    const [perCredential, perRun] = [await createToken(d, "agent", "burst-credential"), await createToken(d, "agent", "burst-run")];
    const burst = (token: string, runId: (i: number) => string) =>
      Promise.all(
        Array.from({ length: 1_000 }, (_, i) => rpc(d.gateways[i % d.gateways.length]!.url, "question.request", oneQuestion({ runId: runId(i), targets: [{ surface: "web" }] }), { token })),
      );
    const count = (results: Array<{ status: number }>, status: number) => results.filter((r) => r.status === status).length;

    const credentialBurst = await burst(perCredential, (i) => `run-${i}`);
    expect([count(credentialBurst, 200), count(credentialBurst, 429)]).toEqual([200, 800]);
    const runBurst = await burst(perRun, () => "one-run");
    expect([count(runBurst, 200), count(runBurst, 429)]).toEqual([50, 950]);
    expect(runBurst.find((r) => r.status === 429)?.body).toMatchObject({ error: { code: "QUOTA_EXCEEDED", message: expect.stringContaining("(ASK_MAX_PENDING_PER_RUN is 50)") } });

    const pending = ok(await rpc(d.gateways[0]!.url, "question.list", { status: "pending", limit: 2_000 }, { token: TOKEN })) as { questions: unknown[] };
    expect(pending.questions).toHaveLength(250);
  }, 120_000);
});

describe("§5 one credential cannot take every connection", () => {
  it("holds each scoped credential to GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL and keeps the last places for the admin token and bots", async () => {
    const d = await deploy("sqlite", { GATEWAY_MAX_CONNECTIONS: "40", GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL: "10" });
    const gateway = d.gateways[0]!;
    const agents = [await createToken(d, "agent", "a1"), await createToken(d, "agent", "a2"), await createToken(d, "agent", "a3"), await createToken(d, "agent", "a4")];
    const bot = await createToken(d, "bot:telegram", "tg");
    const open: RawWs[] = [];
    /** Opens sockets with `token` until one is refused; returns how many opened and the refusal. */
    async function fill(token: string, how: "header" | "connect" = "header"): Promise<{ opened: number; refusal: string }> {
      for (let opened = 0; ; opened++) {
        try {
          open.push(how === "header" ? await RawWs.open(gateway.wsUrl, { bearer: token }) : await RawWs.connect(gateway.wsUrl, token));
        } catch (error) {
          return { opened, refusal: String((error as Error).message) };
        }
      }
    }
    // One agent token: its share, then 503 (by the upgrade header); a connect frame is refused past it too.
    expect(await fill(agents[0]!)).toEqual({ opened: 10, refusal: "upgrade refused: HTTP 503" });
    expect(await fill(agents[0]!, "connect")).toEqual({ opened: 0, refusal: "connect failed: UNAUTHORIZED" });
    // More agent tokens fill the gateway up to its last 4 places (a tenth of 40), which they cannot take.
    expect((await fill(agents[1]!)).opened).toBe(10);
    expect((await fill(agents[2]!)).opened).toBe(10);
    expect(await fill(agents[3]!)).toEqual({ opened: 6, refusal: "upgrade refused: HTTP 503" });
    // Those are the admin's and the bots'.
    open.push(await RawWs.open(gateway.wsUrl, { bearer: TOKEN }));
    open.push(await RawWs.open(gateway.wsUrl, { bearer: bot }));
    for (const ws of open.slice(-2)) expect(await ws.ok("question.list", {})).toMatchObject({ questions: [] });
    // Closing sockets gives their places back (three of the first agent's: below the reserved places again).
    for (const ws of open.slice(0, 3)) ws.close();
    await until(async () => {
      try {
        open.push(await RawWs.open(gateway.wsUrl, { bearer: agents[0]! }));
        return true;
      } catch {
        return false;
      }
    }, "the agent's place back");
    for (const ws of open) ws.close();
  }, 60_000);
});
