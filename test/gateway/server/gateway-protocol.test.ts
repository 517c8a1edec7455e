/**
 * Every protocol method against the real server, once over a WebSocket and once over the HTTP mirror
 * (PRODUCT.md §3). Error codes are in gateway-errors, auth and malformed frames in gateway-frames,
 * delivery and expiry in gateway-delivery.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oneQuestion, openTransport, sleep, type ResFrame, type Transport, useTestGateway } from "../../helpers/gateway.ts";

const gateway = useTestGateway();

let unique = 0;
const uid = (prefix: string) => `${prefix}_${process.pid}_${++unique}`;

function payloadOf(res: ResFrame): any {
  if (!res.ok) throw new Error(`expected ok, got ${res.error.code}: ${res.error.message}`);
  return res.payload;
}
function errorOf(res: ResFrame) {
  if (res.ok) throw new Error(`expected an error, got ${JSON.stringify(res.payload).slice(0, 200)}`);
  return res.error;
}

describe.each(["ws", "http"] as const)("methods over %s", (kind) => {
  let t: Transport;
  /** The other transport, to show that any client may answer. */
  let other: Transport;
  beforeAll(async () => {
    t = await openTransport(kind, gateway);
    other = await openTransport(kind === "ws" ? "http" : "ws", gateway);
  });
  afterAll(() => {
    t.close();
    other.close();
  });
  const ask = async (extra: Record<string, unknown> = {}) => payloadOf(await t.call("question.request", oneQuestion(extra))) as { id: string; expiresAtMs: number };

  it("question.request returns {id, expiresAtMs}; question.get returns the full record", async () => {
    const before = Date.now();
    const runId = uid("run");
    const sessionKey = uid("session");
    const created = await ask({ runId, sessionKey });
    expect(created).toEqual({ id: expect.stringMatching(/^q[0-9a-f]+$/), expiresAtMs: expect.any(Number) });
    const record = payloadOf(await t.call("question.get", { id: created.id }));
    expect(record).toMatchObject({
      id: created.id,
      status: "pending",
      timeoutSeconds: 900,
      expiresAtMs: created.expiresAtMs,
      runId,
      sessionKey,
      targets: [{ surface: "web" }],
      deliveries: [],
    });
    expect(record.questions[0]).toMatchObject({ id: "deploy_target", header: "Deployment t", options: [{ label: "Staging (Recommended)" }, { label: "Production" }] });
    expect(record.createdAtMs).toBeGreaterThanOrEqual(before);
    expect(record.expiresAtMs).toBe(record.createdAtMs + 900_000);
  });

  it("question.request keeps explicit targets and clamps timeoutSeconds", async () => {
    const { id } = await ask({ timeoutSeconds: 99_999, targets: [{ surface: "web" }, { surface: "slack", chat: "C0123ABCD", users: ["U1"] }] });
    const record = payloadOf(await t.call("question.get", { id }));
    expect(record.timeoutSeconds).toBe(3600);
    expect(record.targets).toEqual([{ surface: "web" }, { surface: "slack", chat: "C0123ABCD", users: ["U1"] }]);
  });

  it("question.resolve answers, storing a case-insensitive label as the exact label; the first resolution wins", async () => {
    const { id } = await ask();
    const resolved = payloadOf(await t.call("question.resolve", { id, answers: { deploy_target: "staging (RECOMMENDED)" }, by: { surface: "web", user: "ada", via: "web" } }));
    expect(resolved).toMatchObject({ id, status: "answered", answers: { deploy_target: ["Staging (Recommended)"] }, by: { surface: "web", user: "ada", via: "web" } });
    expect(resolved.resolvedAtMs).toEqual(expect.any(Number));
    const again = errorOf(await other.call("question.resolve", { id, cancel: true, reason: "skipped" }));
    expect(again.code).toBe("QUESTION_ALREADY_TERMINAL");
    expect(payloadOf(await t.call("question.get", { id }))).toEqual(resolved);
    expect(payloadOf(await t.call("question.waitAnswer", { id }))).toMatchObject({
      id,
      status: "answered",
      answers: { answers: { deploy_target: ["Staging (Recommended)"] } },
      answeredBy: { surface: "web", user: "ada", via: "web" },
    });
  });

  it.each([
    [{ reason: "skipped" }, "skipped"],
    [{ reason: "aborted" }, "aborted"],
    [{ reason: "cancelled" }, "cancelled"],
    [{}, "cancelled"],
  ])("question.resolve cancels with %j", async (extra, reason) => {
    const { id } = await ask();
    const record = payloadOf(await t.call("question.resolve", { id, cancel: true, ...extra }));
    expect(record).toMatchObject({ id, status: "cancelled", reason, by: { surface: "api", via: "api" } });
    expect(payloadOf(await t.call("question.waitAnswer", { id, timeoutMs: 5_000 }))).toMatchObject({ id, status: "no_answer", reason });
  });

  it("question.waitAnswer long-polls until another connection answers", async () => {
    const { id } = await ask();
    let settled = false;
    const started = Date.now();
    const waiting = t.call("question.waitAnswer", { id, timeoutMs: 10_000 }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    payloadOf(await other.call("question.resolve", { id, answers: { deploy_target: "Production" } }));
    const outcome = payloadOf(await waiting);
    expect(outcome).toMatchObject({ id, status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    expect(outcome.record).toMatchObject({ id, status: "answered" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("question.waitAnswer returns status pending after its timeoutMs", async () => {
    const { id, expiresAtMs } = await ask();
    const started = Date.now();
    const outcome = payloadOf(await t.call("question.waitAnswer", { id, timeoutMs: 400 }));
    const elapsed = Date.now() - started;
    expect(outcome).toEqual({ id, status: "pending", expiresAtMs });
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(3_000);
    expect(payloadOf(await t.call("question.waitAnswer", { id, timeoutMs: 0 }))).toEqual({ id, status: "pending", expiresAtMs });
  });

  it("question.list filters by status, runId and surface, newest first", async () => {
    const runId = uid("list");
    // Newest first is by creation time; questions created in the same millisecond are in id order, so space them.
    const web = await ask({ runId });
    await sleep(3);
    const discord = await ask({ runId, targets: [{ surface: "discord", chat: "42" }] });
    await sleep(3);
    payloadOf(await t.call("question.delivered", { id: discord.id, surface: "discord", chat: "42", messageRef: "m-1" }));
    const answered = await ask({ runId, targets: [{ surface: "web" }, { surface: "slack", chat: "C1" }] });
    payloadOf(await t.call("question.resolve", { id: answered.id, answers: { deploy_target: "Production" } }));

    const ids = async (filter: Record<string, unknown>) => (payloadOf(await t.call("question.list", filter)).questions as Array<{ id: string }>).map((r) => r.id);
    expect(await ids({ runId })).toEqual([answered.id, discord.id, web.id]);
    expect(await ids({ runId, status: "pending" })).toEqual([discord.id, web.id]);
    expect(await ids({ runId, status: "answered" })).toEqual([answered.id]);
    expect(await ids({ runId, status: "expired" })).toEqual([]);
    expect(await ids({ runId, surface: "discord" })).toEqual([discord.id]);
    expect(await ids({ runId, surface: "web" })).toEqual([answered.id, web.id]);
    expect(await ids({ runId, surface: "slack", status: "answered" })).toEqual([answered.id]);
    expect(await ids({ runId, limit: 1 })).toEqual([answered.id]);
    expect(await ids({ runId: uid("nobody") })).toEqual([]);
    const all = payloadOf(await t.call("question.list", {})).questions as Array<{ id: string }>;
    expect(all.map((r) => r.id)).toEqual(expect.arrayContaining([web.id, discord.id, answered.id]));
  });

  it("question.delivered records each copy once, only for the question's own targets", async () => {
    const { id } = await ask({ targets: [{ surface: "telegram", chat: "123" }, { surface: "slack", chat: "C9" }] });
    const first = payloadOf(await t.call("question.delivered", { id, surface: "telegram", chat: "123", messageRef: "123:77" }));
    expect(first.deliveries).toEqual([{ surface: "telegram", chat: "123", messageRef: "123:77", deliveredAtMs: expect.any(Number) }]);
    const repeat = payloadOf(await t.call("question.delivered", { id, surface: "telegram", chat: "123", messageRef: "123:78" }));
    expect(repeat.deliveries).toEqual(first.deliveries);
    const second = payloadOf(await t.call("question.delivered", { id, surface: "slack", chat: "C9", messageRef: "ts-1" }));
    expect(second.deliveries.map((d: { messageRef: string }) => d.messageRef)).toEqual(["123:77", "ts-1"]);
    const stranger = errorOf(await t.call("question.delivered", { id, surface: "telegram", chat: "999", messageRef: "x" }));
    expect(stranger).toMatchObject({ code: "INVALID_PARAMS", issues: [{ path: "chat", message: expect.any(String) }] });
    expect(payloadOf(await t.call("question.get", { id })).deliveries).toHaveLength(2);
  });

  it("question.deliveryFailed records a failed send; the question stays pending while another chat target remains", async () => {
    const { id } = await ask({ targets: [{ surface: "telegram", chat: "1" }, { surface: "discord", chat: "2" }] });
    const record = payloadOf(await t.call("question.deliveryFailed", { id, surface: "telegram", chat: "1", reason: "chat not found" }));
    expect(record).toMatchObject({ id, status: "pending" });
    payloadOf(await t.call("question.delivered", { id, surface: "discord", chat: "2", messageRef: "d-1" }));
  });

  it("run.abort cancels that run's pending questions with reason aborted, and nothing else", async () => {
    const runId = uid("abort");
    const a = await ask({ runId });
    const b = await ask({ runId });
    const done = await ask({ runId });
    const bystander = await ask({ runId: uid("other") });
    payloadOf(await t.call("question.resolve", { id: done.id, answers: { deploy_target: "Production" } }));
    const waiting = other.call("question.waitAnswer", { id: a.id, timeoutMs: 10_000 });
    const result = payloadOf(await t.call("run.abort", { runId }));
    expect([...result.cancelled].sort()).toEqual([a.id, b.id].sort());
    expect(payloadOf(await waiting)).toMatchObject({ id: a.id, status: "no_answer", reason: "aborted" });
    for (const id of [a.id, b.id]) expect(payloadOf(await t.call("question.get", { id }))).toMatchObject({ status: "cancelled", reason: "aborted" });
    expect(payloadOf(await t.call("question.get", { id: done.id }))).toMatchObject({ status: "answered" });
    expect(payloadOf(await t.call("question.get", { id: bystander.id }))).toMatchObject({ status: "pending" });
    expect(payloadOf(await t.call("run.abort", { runId }))).toEqual({ cancelled: [] });
  });
});
