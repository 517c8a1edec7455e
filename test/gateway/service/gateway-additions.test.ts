/**
 * Protocol additions made for speed (issue 11, docs/BENCHMARKS.md), and the guarantee the group commit must keep:
 * - `events.subscribe {events}` narrows the events a WebSocket connection receives;
 * - `question.request {waitMs}` asks and waits in one request, answering with question.waitAnswer's payload;
 * - `question.list {chat}` lists one chat's questions;
 * - with the writes of one event-loop turn committed together, nothing is acknowledged before it is committed:
 *   another SQLite connection already sees every question a response or an event announced.
 */
import { EventEmitter } from "node:events";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { connectGateway } from "../../../src/client/index.ts";
import { ADMIN } from "../../../src/gateway/auth/principal.ts";
import { createDispatcher } from "../../../src/gateway/server/dispatch.ts";
import { createQuestionService } from "../../../src/gateway/service/service.ts";
import { createMemoryStore, SQLITE_FILE_NAME, type QuestionStore } from "../../../src/gateway/store/index.ts";
import { createConnection } from "../../../src/gateway/server/ws-connection.ts";
import { cleanup, oneQuestion, RawWs, rpc, sleep, startTestGateway, TOKEN, type TestGateway } from "../../helpers/gateway.ts";

const gateways: TestGateway[] = [];
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await cleanup();
});

async function gateway(): Promise<TestGateway> {
  const started = await startTestGateway();
  gateways.push(started);
  return started;
}

describe("events.subscribe", () => {
  it("receives only the events subscribed to, and refuses unknown ones", async () => {
    const gw = await gateway();
    const agent = await RawWs.connect(gw.wsUrl);
    const bot = await RawWs.connect(gw.wsUrl);
    expect(await agent.ok("events.subscribe", { events: [] })).toEqual({ events: [] });
    expect(await bot.ok("events.subscribe", { events: ["question.resolved", "question.resolved"] })).toEqual({ events: ["question.resolved"] });
    const bad = await bot.request("events.subscribe", { events: ["question.nope"] });
    expect(bad).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS", issues: [expect.objectContaining({ path: "events[0]" })] } });
    const missing = await bot.request("events.subscribe", {});
    expect(missing).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS" } });

    const { id } = await agent.ok("question.request", oneQuestion());
    await agent.ok("question.resolve", { id, answers: { deploy_target: "Production" } });
    const resolved = await bot.waitFor(() => bot.events.find((e) => e.event === "question.resolved"), 5_000, "question.resolved");
    expect(resolved.payload).toMatchObject({ id, status: "answered" });
    await sleep(50);
    expect(bot.events.map((e) => e.event)).toEqual(["question.resolved"]);
    expect(bot.events[0]?.seq).toBe(1);
    expect(agent.events).toEqual([]);
    agent.close();
    bot.close();
  });

  it("is what the client's events option sends", async () => {
    const gw = await gateway();
    const quiet = await connectGateway({ url: gw.url, token: TOKEN, events: [] });
    const all = await connectGateway({ url: gw.url, token: TOKEN });
    const heard = { quiet: 0, all: 0 };
    quiet.on("question.requested", () => heard.quiet++);
    all.on("question.requested", () => heard.all++);
    const { id } = await quiet.request(oneQuestion());
    expect(await quiet.get(id)).toMatchObject({ id });
    await sleep(50);
    expect(heard).toEqual({ quiet: 0, all: 1 });
    quiet.close();
    all.close();
  });

  it("is refused before authentication", async () => {
    const gw = await gateway();
    const ws = await RawWs.open(gw.wsUrl);
    expect(await ws.request("events.subscribe", { events: [] })).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
    ws.close();
  });
});

describe("question.request with waitMs", () => {
  it("answers with the waitAnswer payload once the question resolves", async () => {
    const gw = await gateway();
    const agent = await RawWs.connect(gw.wsUrl);
    const bot = await RawWs.connect(gw.wsUrl);
    const answered = agent.request("question.request", oneQuestion({ waitMs: 10_000 }));
    const requested = await bot.waitFor(() => bot.events.find((e) => e.event === "question.requested"), 5_000, "question.requested");
    await bot.ok("question.resolve", { id: requested.payload.id, answers: { deploy_target: "production" } });
    const res = await answered;
    expect(res).toMatchObject({
      ok: true,
      payload: { id: requested.payload.id, status: "answered", answers: { answers: { deploy_target: ["Production"] } }, record: { status: "answered" } },
    });
    agent.close();
    bot.close();
  });

  it("answers pending after waitMs, over HTTP too, and validates waitMs", async () => {
    const gw = await gateway();
    const { body } = await rpc(gw.url, "question.request", oneQuestion({ waitMs: 0 }));
    expect(body).toMatchObject({ ok: true, payload: { status: "pending", id: expect.stringMatching(/^q[0-9a-f]{20}$/), expiresAtMs: expect.any(Number) } });
    const bad = await rpc(gw.url, "question.request", oneQuestion({ waitMs: -1 }));
    expect(bad.body).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS", issues: [expect.objectContaining({ path: "waitMs" })] } });
  });
});

describe("question.list with chat", () => {
  it("lists the questions targeted at one chat (on one surface)", async () => {
    const gw = await gateway();
    const ws = await RawWs.connect(gw.wsUrl);
    const ask = async (targets: unknown) => (await ws.ok("question.request", oneQuestion({ targets }))).id as string;
    const a = await ask([{ surface: "telegram", chat: "42" }]);
    const b = await ask([{ surface: "discord", chat: "42" }, { surface: "web" }]);
    await ask([{ surface: "telegram", chat: "43" }]);
    const ids = async (filter: object) => (await ws.ok("question.list", filter)).questions.map((q: { id: string }) => q.id);
    expect(await ids({ chat: "42" })).toEqual([b, a]);
    expect(await ids({ surface: "telegram", chat: "42" })).toEqual([a]);
    expect(await ids({ status: "answered", chat: "42" })).toEqual([]);
    ws.close();
  });
});

describe("group commit", () => {
  it("acknowledges nothing another connection cannot already read", async () => {
    const gw = await gateway();
    const reader = new Database(path.join(gw.dataDir, SQLITE_FILE_NAME), { readonly: true });
    const statusOf = reader.prepare<[string], { status: string }>("SELECT status FROM questions WHERE id = ?");
    const agent = await RawWs.connect(gw.wsUrl);
    const bot = await RawWs.connect(gw.wsUrl);
    const seenAtEvent: Array<string | undefined> = [];
    bot.socket.on("message", (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === "event") seenAtEvent.push(statusOf.get(frame.payload.id)?.status);
    });

    // 40 requests in one burst: one turn, one transaction.
    const asked = await Promise.all(Array.from({ length: 40 }, () => agent.request("question.request", oneQuestion())));
    const ids = asked.map((res) => (res.ok ? (res.payload.id as string) : ""));
    for (const id of ids) expect(statusOf.get(id)?.status).toBe("pending");

    const resolved = await Promise.all(
      ids.map(async (id) => {
        const res = await bot.request("question.resolve", { id, answers: { deploy_target: "Production" } });
        return { ok: res.ok, status: statusOf.get(id)?.status };
      }),
    );
    expect(resolved.every((r) => r.ok && r.status === "answered")).toBe(true);
    await sleep(50);
    expect(seenAtEvent.length).toBeGreaterThanOrEqual(80);
    expect(seenAtEvent.every((status) => status !== undefined)).toBe(true);
    reader.close();
    agent.close();
    bot.close();
  });
});

/** A memory store with a hand-driven commit: a write's promise settles only at `commit()` (with its error, if any). */
function manualCommitStore() {
  const inner = createMemoryStore();
  let waiting: Array<(error?: unknown) => void> = [];
  const write =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await fn(...args);
      await new Promise<void>((resolve, reject) => waiting.push((error) => (error === undefined ? resolve() : reject(error))));
      return result;
    };
  const store: QuestionStore = {
    ...inner,
    create: write(inner.create),
    resolve: write(inner.resolve),
    expireDue: write(inner.expireDue),
    addDelivery: write(inner.addDelivery),
    mergePartial: write(inner.mergePartial),
  };
  const commit = (error?: unknown) => {
    const callbacks = waiting;
    waiting = [];
    for (const callback of callbacks) callback(error);
  };
  return { store, commit };
}

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("group commit, step by step", () => {
  it("answers a request, and sends its events, only after the commit", async () => {
    const { store, commit } = manualCommitStore();
    const service = createQuestionService({ store, minTimeoutSeconds: 1 });
    const dispatch = createDispatcher(service);
    const socket = Object.assign(new EventEmitter(), { OPEN: 1, readyState: 1, bufferedAmount: 0, sent: [] as string[] });
    Object.assign(socket, { send: (text: string) => socket.sent.push(text), close: () => {}, terminate: () => {} });
    const connection = createConnection({ socket: socket as unknown as WebSocket, dispatch, principal: ADMIN, checkToken: () => ({ ok: true, principal: ADMIN }), log: () => {} });
    service.subscribe((event, record) => connection.event(event, record));

    socket.emit("message", Buffer.from(JSON.stringify({ type: "req", id: 1, method: "question.request", params: oneQuestion() })), false);
    await ticks();
    expect(socket.sent).toEqual([]);
    commit();
    await ticks();
    expect(socket.sent.map((text) => JSON.parse(text))).toEqual([
      expect.objectContaining({ type: "event", event: "question.requested", seq: 1 }),
      expect.objectContaining({ type: "res", id: 1, ok: true }),
    ]);

    // A failed commit acknowledges nothing: the request gets an INTERNAL error and the event is not sent.
    socket.sent.length = 0;
    socket.emit("message", Buffer.from(JSON.stringify({ type: "req", id: 2, method: "question.request", params: oneQuestion() })), false);
    await ticks();
    commit(new Error("disk full"));
    await ticks();
    expect(socket.sent.map((text) => JSON.parse(text))).toEqual([{ type: "res", id: 2, ok: false, error: { code: "INTERNAL", message: "internal error" } }]);
  });
});
