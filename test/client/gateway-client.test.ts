/**
 * The typed client (`connectGateway`) and the SDK (`askUser`, `createGatewayAsk` + `createAskUserTool`) against the
 * real gateway: answers, AbortSignal and run.abort, requests failing cleanly when the link drops, and reconnection
 * (with `resync`) after a gateway restart on the same port and DATA_DIR.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import { askUserResultSchema } from "../../src/contract/result.ts";
import { GatewayError } from "../../src/kernel/errors.ts";
import { askUser, createGatewayAsk } from "../../src/client/sdk.ts";
import { createAskUserTool } from "../../src/contract/tool.ts";
import { cleanup, freePort, oneQuestion, rpc, rpcOk, sleep, startTestGateway, TOKEN, WRONG_TOKEN, type TestGateway } from "../helpers/gateway.ts";

const clients: GatewayClient[] = [];
async function connect(gateway: { url: string }, extra: { offlineWaitMs?: number } = {}): Promise<GatewayClient> {
  const client = await connectGateway({ url: gateway.url, token: TOKEN, ...extra });
  clients.push(client);
  return client;
}

let gateway: TestGateway;
let client: GatewayClient;
beforeAll(async () => {
  gateway = await startTestGateway();
  client = await connect(gateway);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await gateway.close();
  await cleanup();
});

/** Polls until the record is terminal (the SDK's cancel may still be on its way). */
async function settled(url: string, id: string): Promise<Record<string, any>> {
  for (let i = 0; i < 50; i++) {
    const record = await rpcOk(url, "question.get", { id });
    if (record.status !== "pending") return record;
    await sleep(50);
  }
  throw new Error(`question ${id} is still pending`);
}

describe("connectGateway", () => {
  it("refuses a wrong token with UNAUTHORIZED, and a missing gateway with DISCONNECTED", async () => {
    await expect(connectGateway({ url: gateway.url, token: WRONG_TOKEN })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(connectGateway({ url: `http://127.0.0.1:${await freePort()}`, token: TOKEN })).rejects.toMatchObject({ code: "DISCONNECTED" });
  });

  it("gives typed methods and events", async () => {
    const seen: string[] = [];
    const off = client.on("question.requested", (record) => seen.push(record.id));
    const { id } = await client.request(oneQuestion({ runId: "typed" }));
    expect((await client.get(id)).status).toBe("pending");
    expect((await client.list({ runId: "typed" })).map((r) => r.id)).toEqual([id]);
    await expect(client.get("q_missing")).rejects.toMatchObject({ code: "QUESTION_NOT_FOUND" });
    await expect(client.request({ questions: [] })).rejects.toMatchObject({ code: "INVALID_PARAMS", issues: [expect.objectContaining({ path: "questions" })] });
    expect((await client.resolve({ id, answers: { deploy_target: "production" } })).answers).toEqual({ deploy_target: ["Production"] });
    expect(seen).toContain(id);
    off();
  });
});

describe("askUser", () => {
  it("resolves to the answered result", async () => {
    const result = await askUser(client, oneQuestion(), {
      onRequested: ({ id }) => void rpc(gateway.url, "question.resolve", { id, answers: { deploy_target: "staging (recommended)" }, by: { surface: "web", user: "ada", via: "web" } }),
    });
    expect(result).toEqual({ status: "answered", answers: { answers: { deploy_target: ["Staging (Recommended)"] } }, answeredBy: { surface: "web", user: "ada", via: "web" } });
    expect(askUserResultSchema.safeParse(result).success).toBe(true);
  });

  it("onUpdate reports each target's delivery and retrying state while the question is pending", async () => {
    const updates: Array<{ delivered: string[]; states: string[] }> = [];
    const targets = [{ surface: "telegram" as const, chat: "1" }, { surface: "telegram" as const, chat: "2" }];
    const result = await askUser(client, oneQuestion(), {
      targets,
      onRequested: ({ id }) =>
        void (async () => {
          await rpc(gateway.url, "question.delivered", { id, surface: "telegram", chat: "1", messageRef: "10" });
          await rpc(gateway.url, "question.deliveryFailed", { id, surface: "telegram", chat: "2", reason: "502 Bad Gateway", permanent: false, retryAtMs: Date.now() + 1_000 });
          await rpc(gateway.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
        })(),
      onUpdate: (record) =>
        updates.push({ delivered: record.deliveries.map((d) => d.chat), states: (record.targetStates ?? []).map((s) => `${s.chat}:${s.state}:${s.reason}`) }),
    });
    expect(result.status).toBe("answered");
    // No bot is connected (the copies are reported by hand): both chats say so at once, until a copy or a report.
    expect(updates).toEqual([
      { delivered: [], states: ["1:waiting:no Telegram bot is connected", "2:waiting:no Telegram bot is connected"] },
      { delivered: ["1"], states: ["2:waiting:no Telegram bot is connected"] },
      { delivered: ["1"], states: ["2:retrying:502 Bad Gateway"] },
    ]);
  });

  it("an AbortSignal gives no_answer/aborted and cancels the record with reason aborted", async () => {
    const controller = new AbortController();
    let id = "";
    const result = await askUser(client, oneQuestion(), {
      signal: controller.signal,
      onRequested: (q) => {
        id = q.id;
        setTimeout(() => controller.abort(), 100);
      },
    });
    expect(result).toEqual({ status: "no_answer", reason: "aborted" });
    expect(await settled(gateway.url, id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });

  it("a signal aborted while question.request is in flight still cancels the record", async () => {
    const controller = new AbortController();
    // The question.requested event reaches this client before the request's own response.
    const off = client.on("question.requested", (record) => {
      if (record.runId === "abort_in_flight") controller.abort();
    });
    const result = await askUser(client, oneQuestion(), { signal: controller.signal, runId: "abort_in_flight" });
    off();
    expect(result).toEqual({ status: "no_answer", reason: "aborted" });
    const [record] = await client.list({ runId: "abort_in_flight" });
    expect(await settled(gateway.url, record!.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });

  it("an already-aborted signal asks nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await askUser(client, oneQuestion({ runId: "pre_aborted" }), { signal: controller.signal })).toEqual({ status: "no_answer", reason: "aborted" });
    expect(await client.list({ runId: "pre_aborted" })).toEqual([]);
  });

  it("run.abort from another client gives the waiter no_answer/aborted", async () => {
    const other = await connect(gateway);
    let id = "";
    const result = await askUser(client, oneQuestion(), {
      runId: "run_to_abort",
      onRequested: (q) => {
        id = q.id;
        setTimeout(() => void other.abortRun("run_to_abort"), 100);
      },
    });
    expect(result).toEqual({ status: "no_answer", reason: "aborted" });
    expect(await client.get(id)).toMatchObject({ status: "cancelled", reason: "aborted", runId: "run_to_abort" });
  });

  it("passes sessionKey and targets, and reports SESSION_HAS_PENDING_QUESTION as an error", async () => {
    const controller = new AbortController();
    const first = askUser(client, oneQuestion(), { sessionKey: "one_at_a_time", targets: [{ surface: "slack", chat: "C1" }], signal: controller.signal });
    await sleep(100);
    const [pending] = await client.list({ sessionKey: "one_at_a_time" });
    expect(pending).toMatchObject({ sessionKey: "one_at_a_time", targets: [{ surface: "slack", chat: "C1" }] });
    await expect(askUser(client, oneQuestion(), { sessionKey: "one_at_a_time" })).rejects.toMatchObject({ code: "SESSION_HAS_PENDING_QUESTION" });
    controller.abort();
    expect(await first).toEqual({ status: "no_answer", reason: "aborted" });
  });
});

describe("createAskUserTool + createGatewayAsk", () => {
  it("asks through the gateway end to end", async () => {
    const tool = createAskUserTool({ session: { kind: "main", key: "tool_session", runId: "tool_run" }, ask: createGatewayAsk(client, { targets: [{ surface: "web" }] }) })!;
    const off = client.on("question.requested", (record) => {
      if (record.sessionKey === "tool_session") void client.resolve({ id: record.id, answers: { deploy_target: ["Production"] }, by: { surface: "web", via: "web" } });
    });
    const result = await tool.execute(oneQuestion());
    off();
    expect(result).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    const [record] = await client.list({ sessionKey: "tool_session" });
    expect(record).toMatchObject({ runId: "tool_run", targets: [{ surface: "web" }], status: "answered" });
    expect(await tool.execute({ questions: [] })).toMatchObject({ status: "invalid_input" });
  });

  it("an aborted tool call cancels the question", async () => {
    const tool = createAskUserTool({ session: { kind: "main", key: "tool_abort" }, ask: createGatewayAsk(client) })!;
    const controller = new AbortController();
    const off = client.on("question.requested", (record) => {
      if (record.sessionKey === "tool_abort") controller.abort();
    });
    expect(await tool.execute(oneQuestion(), { signal: controller.signal })).toEqual({ status: "no_answer", reason: "aborted" });
    off();
    const [record] = await client.list({ sessionKey: "tool_abort" });
    expect(await settled(gateway.url, record!.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });
});

describe("when the gateway goes away", () => {
  it("in-flight requests fail with DISCONNECTED instead of hanging, and offline calls fail after offlineWaitMs", async () => {
    const own = await startTestGateway();
    const c = await connect(own, { offlineWaitMs: 300 });
    const { id } = await c.request(oneQuestion());
    const inFlight = c.waitAnswer({ id, timeoutMs: 60_000 });
    const list = c.call("question.waitAnswer", { id, timeoutMs: 60_000 });
    await sleep(100);
    const closedAt = Date.now();
    await own.close();
    await expect(inFlight).rejects.toMatchObject({ code: "DISCONNECTED" });
    await expect(list).rejects.toBeInstanceOf(GatewayError);
    expect(Date.now() - closedAt).toBeLessThan(2_000);
    await expect(c.get(id)).rejects.toMatchObject({ code: "DISCONNECTED" });
    c.close();
    await expect(c.get(id)).rejects.toMatchObject({ code: "DISCONNECTED" });
  });

  it("reconnects after a restart on the same port and DATA_DIR, emits resync with the pending questions, and askUser still gets the answer", async () => {
    const first = await startTestGateway();
    const c = await connect(first);
    const events: string[] = [];
    const resyncs: string[][] = [];
    c.on("disconnected", () => events.push("disconnected"));
    c.on("connected", () => events.push("connected"));
    c.on("resync", (pending) => resyncs.push(pending.map((r) => r.id)));
    const other = await c.request(oneQuestion());
    let asked = "";
    const result = askUser(c, oneQuestion(), { onRequested: (q) => void (asked = q.id) });
    await sleep(150);
    expect(asked).not.toBe("");

    await first.close();
    await sleep(200);
    const second = await startTestGateway({ GATEWAY_PORT: first.port, dataDir: first.dataDir });
    try {
      for (let i = 0; i < 100 && resyncs.length === 0; i++) await sleep(50);
      expect(events).toEqual(["disconnected", "connected"]);
      expect([...resyncs[0]!].sort()).toEqual([other.id, asked].sort());
      expect(c.connected).toBe(true);
      await sleep(300); // let askUser's waiter re-attach to the new gateway
      await rpcOk(second.url, "question.resolve", { id: asked, answers: { deploy_target: "Production" } });
      await expect(result).resolves.toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    } finally {
      c.close();
      await second.close();
    }
  });
});
