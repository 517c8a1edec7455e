/**
 * No silent non-delivery, and wall-clock expiry (PRODUCT.md §1 and §3), over a WebSocket and over HTTP.
 * The gateway runs with DELIVERY_TIMEOUT_SECONDS=1 and the test-only ASK_TEST_MIN_TIMEOUT_SECONDS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, oneQuestion, openTransport, startTestGateway, type ResFrame, type TestGateway, type Transport } from "./helpers/gateway.ts";

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

