/**
 * No silent non-delivery, and wall-clock expiry (PRODUCT.md §1 and §3), over a WebSocket and over HTTP.
 * The gateway runs with DELIVERY_TIMEOUT_SECONDS=1 and the test-only ASK_TEST_MIN_TIMEOUT_SECONDS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, oneQuestion, openTransport, startTestGateway, type ResFrame, type TestGateway, type Transport } from "../../helpers/gateway.ts";

let gateway: TestGateway;
/** DELIVERY_TIMEOUT_SECONDS=30: anything that fails delivery here within a test was failed by reports, not the timer. */
let patient: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 1, ASK_TEST_MIN_TIMEOUT_SECONDS: 1 });
  patient = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
});
afterAll(async () => {
  await gateway.close();
  await patient.close();
  await cleanup();
});

function payloadOf(res: ResFrame): any {
  if (!res.ok) throw new Error(`expected ok, got ${res.error.code}: ${res.error.message}`);
  return res.payload;
}

describe.concurrent.each(["ws", "http"] as const)("delivery and expiry over %s", (kind) => {
  let t: Transport;
  beforeAll(async () => {
    t = await openTransport(kind, gateway);
  });
  afterAll(() => t.close());
  const ask = async (extra: Record<string, unknown>, via = t) => payloadOf(await via.call("question.request", oneQuestion(extra))) as { id: string; expiresAtMs: number };
  const wait = async (id: string, timeoutMs: number, via = t) => payloadOf(await via.call("question.waitAnswer", { id, timeoutMs }));

  it("a chat-only question no bot delivers fails within DELIVERY_TIMEOUT_SECONDS; web, mixed and delivered ones never do", async () => {
    // Delivered first: its report must beat the 1 s timer.
    const delivered = await ask({ targets: [{ surface: "telegram", chat: "123" }, { surface: "slack", chat: "C1" }] });
    payloadOf(await t.call("question.delivered", { id: delivered.id, surface: "slack", chat: "C1", messageRef: "ts-1" }));
    const started = Date.now();
    const undelivered = await ask({ targets: [{ surface: "telegram", chat: "123" }] });
    const webOnly = await ask({ targets: [{ surface: "web" }] });
    const byDefault = await ask({});
    const mixed = await ask({ targets: [{ surface: "telegram", chat: "123" }, { surface: "web" }] });

    const [failed, ...others] = await Promise.all([
      wait(undelivered.id, 5_000).then((outcome) => ({ outcome, elapsed: Date.now() - started })),
      ...[webOnly, byDefault, mixed, delivered].map((q) => wait(q.id, 1_600)),
    ]);
    expect(failed.outcome).toMatchObject({ id: undelivered.id, status: "delivery_failed", reason: expect.stringContaining("telegram:123") });
    expect(failed.elapsed).toBeGreaterThanOrEqual(900);
    expect(failed.elapsed).toBeLessThan(2_500);
    for (const outcome of others) expect(outcome).toMatchObject({ status: "pending" });

    const record = payloadOf(await t.call("question.get", { id: undelivered.id }));
    expect(record).toMatchObject({ status: "cancelled", reason: "delivery_failed", detail: expect.stringContaining("telegram:123") });
    expect(record.resolvedAtMs - record.createdAtMs).toBeGreaterThanOrEqual(1_000);
    expect(record.resolvedAtMs - record.createdAtMs).toBeLessThan(2_000);
    // The delivered one can still be answered; the failed one is terminal.
    payloadOf(await t.call("question.resolve", { id: delivered.id, answers: { deploy_target: "Production" } }));
    expect(await t.call("question.resolve", { id: undelivered.id, answers: { deploy_target: "Production" } })).toMatchObject({ ok: false, error: { code: "QUESTION_ALREADY_TERMINAL" } });
  });

  it("question.deliveryFailed for every chat target fails the question at once, naming each reason", async () => {
    const p = await openTransport(kind, patient);
    const q = await ask({ targets: [{ surface: "telegram", chat: "1" }, { surface: "discord", chat: "2" }] }, p);
    const started = Date.now();
    const waiting = wait(q.id, 20_000, p);
    const partly = payloadOf(await p.call("question.deliveryFailed", { id: q.id, surface: "telegram", chat: "1", reason: "chat not found" }));
    expect(partly.status).toBe("pending");
    const failed = payloadOf(await p.call("question.deliveryFailed", { id: q.id, surface: "discord", chat: "2", reason: "missing access" }));
    expect(failed).toMatchObject({ status: "cancelled", reason: "delivery_failed", detail: expect.stringMatching(/^every send failed.*chat not found.*missing access/) });
    const outcome = await waiting;
    expect(outcome).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining("missing access") });
    expect(Date.now() - started).toBeLessThan(10_000); // not the 30 s delivery timeout
    p.close();
  });

  it("question.deliveryFailed changes nothing for a web-reachable or already delivered question", async () => {
    const p = await openTransport(kind, patient);
    const mixed = await ask({ targets: [{ surface: "telegram", chat: "1" }, { surface: "web" }] }, p);
    expect(payloadOf(await p.call("question.deliveryFailed", { id: mixed.id, surface: "telegram", chat: "1", reason: "blocked" }))).toMatchObject({ status: "pending" });
    const sent = await ask({ targets: [{ surface: "telegram", chat: "1" }, { surface: "discord", chat: "2" }] }, p);
    payloadOf(await p.call("question.delivered", { id: sent.id, surface: "discord", chat: "2", messageRef: "d1" }));
    expect(payloadOf(await p.call("question.deliveryFailed", { id: sent.id, surface: "telegram", chat: "1", reason: "blocked" }))).toMatchObject({ status: "pending" });
    p.close();
  });

  it("question.deliveryFailed with sent: true withdraws a refused copy: that target fails, the other copy stands", async () => {
    const p = await openTransport(kind, patient);
    const q = await ask({ targets: [{ surface: "telegram", chat: "1" }, { surface: "discord", chat: "2" }] }, p);
    payloadOf(await p.call("question.delivered", { id: q.id, surface: "telegram", chat: "1", messageRef: "t1" }));
    payloadOf(await p.call("question.delivered", { id: q.id, surface: "discord", chat: "2", messageRef: "d1" }));
    // Another message's refusal, or one without `sent`, leaves the delivered copy alone.
    expect(payloadOf(await p.call("question.deliveryFailed", { id: q.id, surface: "telegram", chat: "1", reason: "old", sent: true, messageRef: "t0" })).deliveries).toHaveLength(2);
    expect(payloadOf(await p.call("question.deliveryFailed", { id: q.id, surface: "telegram", chat: "1", reason: "blocked" })).deliveries).toHaveLength(2);
    const record = payloadOf(await p.call("question.deliveryFailed", { id: q.id, surface: "telegram", chat: "1", reason: "refused after it was taken", sent: true, messageRef: "t1" }));
    expect(record.status).toBe("pending");
    expect(record.deliveries).toEqual([expect.objectContaining({ surface: "discord", chat: "2", messageRef: "d1" })]);
    expect(record.targetStates).toEqual([expect.objectContaining({ surface: "telegram", chat: "1", state: "failed", reason: "refused after it was taken" })]);
    expect(payloadOf(await p.call("question.get", { id: q.id }))).toMatchObject({ deliveries: record.deliveries, targetStates: record.targetStates });
    payloadOf(await p.call("question.resolve", { id: q.id, answers: { deploy_target: "Production" } }));
    p.close();
  });

  it("question.deliveryFailed with sent: true for the last chat target ends the question delivery_failed at once", async () => {
    const p = await openTransport(kind, patient);
    const q = await ask({ targets: [{ surface: "telegram", chat: "1" }, { surface: "discord", chat: "2" }] }, p);
    const waiting = wait(q.id, 20_000, p);
    payloadOf(await p.call("question.delivered", { id: q.id, surface: "telegram", chat: "1", messageRef: "t1" }));
    payloadOf(await p.call("question.deliveryFailed", { id: q.id, surface: "discord", chat: "2", reason: "missing access" }));
    const failed = payloadOf(await p.call("question.deliveryFailed", { id: q.id, surface: "telegram", chat: "1", reason: "undeliverable (error 131026)", sent: true }));
    expect(failed).toMatchObject({ status: "cancelled", reason: "delivery_failed", deliveries: [], detail: expect.stringMatching(/^every send failed.*undeliverable \(error 131026\).*missing access/) });
    expect(await waiting).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining("131026") });
    p.close();
  });

  it("a question whose only copy was withdrawn is watched for delivery again: its other target gets DELIVERY_TIMEOUT_SECONDS", async () => {
    const q = await ask({ targets: [{ surface: "telegram", chat: "1" }, { surface: "discord", chat: "2" }] });
    payloadOf(await t.call("question.delivered", { id: q.id, surface: "telegram", chat: "1", messageRef: "t1" }));
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // past the first delivery deadline: delivered, so nothing fired
    expect(payloadOf(await t.call("question.get", { id: q.id })).status).toBe("pending");
    const started = Date.now();
    payloadOf(await t.call("question.deliveryFailed", { id: q.id, surface: "telegram", chat: "1", reason: "refused later", sent: true }));
    const outcome = await wait(q.id, 5_000);
    expect(outcome).toMatchObject({ status: "delivery_failed", reason: expect.stringMatching(/discord:2: waiting: no Discord bot is connected/) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
  });

  it("a question with timeoutSeconds 1 expires within ±1 s of expiresAtMs", async () => {
    const created = Date.now();
    const q = await ask({ timeoutSeconds: 1 });
    expect(q.expiresAtMs - created).toBeGreaterThanOrEqual(1_000);
    expect(q.expiresAtMs - created).toBeLessThan(1_500);
    const outcome = await wait(q.id, 5_000);
    const returned = Date.now();
    expect(outcome).toMatchObject({ id: q.id, status: "no_answer", reason: "expired" });
    expect(Math.abs(returned - q.expiresAtMs)).toBeLessThanOrEqual(1_000);
    const record = payloadOf(await t.call("question.get", { id: q.id }));
    expect(record).toMatchObject({ status: "expired", reason: "expired" });
    expect(record.resolvedAtMs).toBeGreaterThanOrEqual(q.expiresAtMs);
    expect(record.resolvedAtMs - q.expiresAtMs).toBeLessThanOrEqual(1_000);
  });
});

describe("ASK_DEFAULT_TARGETS", () => {
  it("is where a question without targets goes, and chat-only defaults are watched for delivery", async () => {
    const own = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 1, ASK_DEFAULT_TARGETS: [{ surface: "telegram", chat: "5" }, { surface: "slack", chat: "C1", users: ["U1"] }] });
    try {
      const t = await openTransport("http", own);
      const { id } = payloadOf(await t.call("question.request", oneQuestion()));
      expect(payloadOf(await t.call("question.get", { id })).targets).toEqual([{ surface: "telegram", chat: "5" }, { surface: "slack", chat: "C1", users: ["U1"] }]);
      const explicit = payloadOf(await t.call("question.request", oneQuestion({ targets: [{ surface: "web" }] })));
      expect(payloadOf(await t.call("question.get", { id: explicit.id })).targets).toEqual([{ surface: "web" }]);
      expect(payloadOf(await t.call("question.waitAnswer", { id, timeoutMs: 5_000 }))).toMatchObject({ status: "delivery_failed" });
    } finally {
      await own.close();
    }
  });
});

