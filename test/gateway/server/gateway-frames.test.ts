/**
 * Authentication (UNAUTHORIZED on the WebSocket and the HTTP mirror), malformed frames (INVALID_FRAME,
 * UNKNOWN_METHOD) that leave the connection working, frames over the limit (which drop the connection; over HTTP,
 * FRAME_TOO_LARGE), and events with a per-connection seq.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_FRAME_BYTES } from "../../../src/protocol/methods.ts";
import { oneQuestion, RawWs, rpc, TOKEN, WRONG_TOKEN, useTestGateway } from "../../helpers/gateway.ts";

const gateway = useTestGateway();

/** A normal request still works on this connection. */
async function stillServes(ws: RawWs): Promise<void> {
  const res = await ws.request("question.list", { limit: 1 });
  expect(res).toMatchObject({ type: "res", ok: true, payload: { questions: expect.any(Array) } });
}

describe("authentication", () => {
  it("a WebSocket upgrade with a wrong bearer token is refused with 401", async () => {
    await expect(RawWs.open(gateway.wsUrl, { bearer: WRONG_TOKEN })).rejects.toMatchObject({ status: 401 });
  });

  it("a WebSocket with the right bearer token is authenticated at once", async () => {
    const ws = await RawWs.open(gateway.wsUrl, { bearer: TOKEN });
    await stillServes(ws);
    ws.close();
  });

  it("a request before connect gets UNAUTHORIZED, and a connect with the right token then works", async () => {
    const ws = await RawWs.open(gateway.wsUrl);
    expect(await ws.request("question.list", {}, "early")).toMatchObject({ id: "early", ok: false, error: { code: "UNAUTHORIZED" } });
    expect(await ws.request("question.request", oneQuestion(), "early2")).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
    expect(await ws.request("connect", { token: TOKEN })).toMatchObject({ ok: true });
    await stillServes(ws);
    ws.close();
  });

  it.each([
    ["a wrong token", { token: WRONG_TOKEN }],
    ["no token", {}],
    ["a token of the wrong type", { token: 12345 }],
  ])("a connect frame with %s gets UNAUTHORIZED and the socket is closed", async (_what, params) => {
    const ws = await RawWs.open(gateway.wsUrl);
    expect(await ws.request("connect", params, "c1")).toMatchObject({ id: "c1", ok: false, error: { code: "UNAUTHORIZED" } });
    expect((await ws.closed).code).toBe(4401);
  });

  it.each([
    ["no Authorization header", null],
    ["a wrong bearer token", WRONG_TOKEN],
    ["an empty token", ""],
  ])("the HTTP mirror refuses %s with 401 and changes nothing", async (_what, token) => {
    const before = (await rpc(gateway.url, "question.list", {})).body;
    const res = await rpc(gateway.url, "question.request", oneQuestion(), { token });
    expect(res).toMatchObject({ status: 401, body: { ok: false, error: { code: "UNAUTHORIZED" } } });
    expect((await rpc(gateway.url, "question.list", {})).body).toEqual(before);
  });
});

describe("malformed frames get an error response, and the same connection keeps working", () => {
  let ws: RawWs;
  beforeAll(async () => {
    ws = await RawWs.connect(gateway.wsUrl);
  });
  afterAll(() => ws.close());

  it.each<[string, string, unknown, string]>([
    ["not JSON", "{not json", null, "INVALID_FRAME"],
    ["a JSON string", '"hello"', null, "INVALID_FRAME"],
    ["an array", "[1,2,3]", null, "INVALID_FRAME"],
    ["a wrong type", JSON.stringify({ type: "event", id: 7, method: "question.list" }), 7, "INVALID_FRAME"],
    ["an id of the wrong type", JSON.stringify({ type: "req", id: { x: 1 }, method: "question.list" }), null, "INVALID_FRAME"],
    ["a method of the wrong type", JSON.stringify({ type: "req", id: "m", method: 42 }), "m", "INVALID_FRAME"],
    ["no method", JSON.stringify({ type: "req", id: "n" }), "n", "INVALID_FRAME"],
    ["an unknown method", JSON.stringify({ type: "req", id: "u", method: "question.destroy", params: {} }), "u", "UNKNOWN_METHOD"],
    ["params of the wrong type", JSON.stringify({ type: "req", id: "p", method: "question.get", params: "q1" }), "p", "INVALID_PARAMS"],
  ])("%s", async (_what, data, id, code) => {
    const res = await ws.sendRaw(data, { id });
    expect(res).toMatchObject({ type: "res", id, ok: false, error: { code, message: expect.any(String) } });
    await stillServes(ws);
  });

  it("a binary frame", async () => {
    const res = await ws.sendRaw(Buffer.from(JSON.stringify({ type: "req", id: "b", method: "question.list" })), { binary: true });
    expect(res).toMatchObject({ ok: false, error: { code: "INVALID_FRAME", message: expect.stringMatching(/binary/) } });
    await stillServes(ws);
  });

  it("a frame over 1 MiB drops its connection unread (it cannot be answered: its id is in the part never read); others keep working", async () => {
    const other = await RawWs.connect(gateway.wsUrl);
    other.socket.on("error", () => {}); // the gateway resets the connection
    const big = JSON.stringify({ type: "req", id: "big", method: "question.request", params: { pad: "x".repeat(MAX_FRAME_BYTES) } });
    other.socket.send(big);
    expect([1006, 1009]).toContain((await other.closed).code);
    expect(other.responses).toEqual([expect.objectContaining({ ok: true })]); // the connect, nothing after
    await stillServes(ws);
  });

  it("before connect, a frame over 4 KiB drops the connection; one of 4 KiB is answered", async () => {
    const early = await RawWs.open(gateway.wsUrl);
    early.socket.on("error", () => {});
    const frame = (pad: string) => JSON.stringify({ type: "req", id: "early", method: "question.list", params: { pad } });
    expect(await early.sendRaw(frame("x".repeat(4096 - frame("").length)), { id: "early" })).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
    early.socket.send(frame("x".repeat(4097 - frame("").length)));
    expect([1006, 1009]).toContain((await early.closed).code);
  });

  it("a frame of just under 1 MiB is read normally", async () => {
    const frame = (pad: string) => JSON.stringify({ type: "req", id: "edge", method: "question.get", params: { id: "q1", pad } });
    const pad = "x".repeat(MAX_FRAME_BYTES - frame("").length);
    expect(Buffer.byteLength(frame(pad))).toBe(MAX_FRAME_BYTES);
    expect(await ws.sendRaw(frame(pad), { id: "edge" })).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS" } });
    await stillServes(ws);
  });

  it("over HTTP: a body that is not JSON → 400 INVALID_FRAME, over 1 MiB → 413 FRAME_TOO_LARGE; the server keeps serving", async () => {
    expect(await rpc(gateway.url, "question.list", undefined, { body: "{nope" })).toMatchObject({ status: 400, body: { ok: false, error: { code: "INVALID_FRAME" } } });
    const big = await rpc(gateway.url, "question.request", undefined, { body: JSON.stringify({ pad: "x".repeat(MAX_FRAME_BYTES + 10) }) });
    expect(big).toMatchObject({ status: 413, body: { ok: false, error: { code: "FRAME_TOO_LARGE" } } });
    expect((await rpc(gateway.url, "question.list", {})).status).toBe(200);
    await stillServes(ws);
  });
});

describe("events", () => {
  it("question.requested / updated / resolved reach other authenticated connections, with seq 1, 2, 3… per connection", async () => {
    const listenerA = await RawWs.connect(gateway.wsUrl);
    const listenerB = await RawWs.open(gateway.wsUrl, { bearer: TOKEN });
    const unauthenticated = await RawWs.open(gateway.wsUrl);
    const asker = await RawWs.connect(gateway.wsUrl);

    const { id } = await asker.ok("question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "5" }] }));
    await asker.ok("question.delivered", { id, surface: "telegram", chat: "5", messageRef: "5:1" });
    await rpcResolve(id);
    const { id: second } = await asker.ok("question.request", oneQuestion());
    await asker.ok("question.resolve", { id: second, cancel: true, reason: "skipped" });

    for (const listener of [listenerA, listenerB, asker]) {
      const events = await listener.waitFor(() => (listener.events.length >= 6 ? listener.events : undefined), 5_000, "6 events");
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(events.map((e) => [e.event, e.payload.id])).toEqual([
        ["question.requested", id],
        ["question.updated", id], // no bot is connected: the chat target waits for one
        ["question.updated", id],
        ["question.resolved", id],
        ["question.requested", second],
        ["question.resolved", second],
      ]);
      expect(events[0]!.payload).toMatchObject({ status: "pending", questions: [{ id: "deploy_target" }], targets: [{ surface: "telegram", chat: "5" }] });
      expect(events[1]!.payload.targetStates).toEqual([expect.objectContaining({ chat: "5", state: "waiting" })]);
      expect(events[2]!.payload.deliveries).toEqual([expect.objectContaining({ messageRef: "5:1" })]);
      expect(events[3]!.payload).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
      expect(events[5]!.payload).toMatchObject({ status: "cancelled", reason: "skipped" });
    }
    // A later connection starts its own count at 1.
    const late = await RawWs.connect(gateway.wsUrl);
    await asker.ok("run.abort", { runId: "none" });
    await asker.ok("question.request", oneQuestion());
    expect((await late.waitFor(() => late.events[0])).seq).toBe(1);
    expect(unauthenticated.events).toEqual([]);
    for (const ws of [listenerA, listenerB, unauthenticated, asker, late]) ws.close();
  });
});

async function rpcResolve(id: string): Promise<void> {
  const res = await rpc(gateway.url, "question.resolve", { id, answers: { deploy_target: "production" } });
  expect(res.status).toBe(200);
}
