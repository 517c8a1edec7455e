/**
 * Per-target delivery states and the delivery watch (issue 18, §2 and §4), over the real WebSocket protocol: a
 * permanent failure is immediate, a retrying target never ends a question by itself, a question queued behind a
 * bot's live claim is not failed at the deadline, and a failure names each target's state and reason.
 * `quick` runs with DELIVERY_TIMEOUT_SECONDS=1; `patient` with 30 (nothing there fails by the timer).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayError } from "../../../src/kernel/errors.ts";
import { authorizeCall } from "../../../src/gateway/auth/policy.ts";
import { ADMIN, WEB, type Principal } from "../../../src/gateway/auth/principal.ts";
import { parseParams } from "../../../src/protocol/methods.ts";
import { cleanup, oneQuestion, RawWs, sleep, startTestGateway, tempDir, type TestGateway } from "../../helpers/gateway.ts";

let quick: TestGateway;
let patient: TestGateway;
beforeAll(async () => {
  quick = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 1 });
  patient = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
});
afterAll(async () => {
  await quick.close();
  await patient.close();
  await cleanup();
});

const ask = async (ws: RawWs, chats: string[]) =>
  (await ws.ok("question.request", oneQuestion({ targets: chats.map((chat) => ({ surface: "telegram", chat })) }))) as { id: string };

describe("target states", () => {
  it("a permanent failure of the only target ends the question delivery_failed at once", async () => {
    const ws = await RawWs.connect(patient.wsUrl);
    const { id } = await ask(ws, ["10"]);
    const started = Date.now();
    const failed = await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "10", reason: "Forbidden: bot was blocked by the user", permanent: true });
    expect(failed).toMatchObject({
      status: "cancelled",
      reason: "delivery_failed",
      detail: expect.stringContaining("telegram:10: failed: Forbidden: bot was blocked by the user"),
      targetStates: [{ surface: "telegram", chat: "10", state: "failed", reason: "Forbidden: bot was blocked by the user" }],
    });
    expect(await ws.ok("question.waitAnswer", { id, timeoutMs: 5_000 })).toMatchObject({ status: "delivery_failed" });
    expect(Date.now() - started).toBeLessThan(2_000);
    ws.close();
  });

  it("a permanent failure beside a delivered copy marks that target failed; the question stays pending", async () => {
    const ws = await RawWs.connect(patient.wsUrl);
    const { id } = await ask(ws, ["11", "12"]);
    await ws.ok("question.delivered", { id, surface: "telegram", chat: "12", messageRef: "m12" });
    const record = await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "11", reason: "Bad Request: chat not found" });
    expect(record).toMatchObject({ status: "pending", targetStates: [{ surface: "telegram", chat: "11", state: "failed", reason: "Bad Request: chat not found" }] });
    ws.close();
  });

  it("a retrying target shows its reason, never ends the question, and a delivered copy supersedes it", async () => {
    const ws = await RawWs.connect(patient.wsUrl);
    const { id } = await ask(ws, ["13"]);
    const retryAtMs = Date.now() + 2_000;
    const retrying = await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "13", reason: "502 Bad Gateway", permanent: false, retryAtMs });
    expect(retrying).toMatchObject({ status: "pending", targetStates: [{ surface: "telegram", chat: "13", state: "retrying", reason: "502 Bad Gateway", retryAtMs }] });
    await ws.waitFor(() => ws.events.find((e) => e.event === "question.updated" && e.payload.id === id && e.payload.targetStates), 2_000, "question.updated with the state");
    // Reported again and again, it is still only retrying.
    for (let i = 0; i < 3; i++) await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "13", reason: `attempt ${i}: 502`, permanent: false });
    expect(await ws.ok("question.get", { id })).toMatchObject({ status: "pending", targetStates: [{ state: "retrying", reason: "attempt 2: 502" }] });
    const delivered = await ws.ok("question.delivered", { id, surface: "telegram", chat: "13", messageRef: "m13", rendered: "prompt:1" });
    expect(delivered.targetStates).toBeUndefined();
    expect(delivered.deliveries).toEqual([expect.objectContaining({ chat: "13", messageRef: "m13", rendered: "prompt:1" })]);
    ws.close();
  });

  it("keeps target states across a restart (SQLite), and the restarted gateway fails the question when the rest fail", async () => {
    const dataDir = tempDir();
    const before = await startTestGateway({ dataDir, DELIVERY_TIMEOUT_SECONDS: 30 });
    let id: string;
    try {
      const ws = await RawWs.connect(before.wsUrl);
      id = (await ask(ws, ["14", "15"])).id;
      await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "14", reason: "Forbidden: bot was kicked" });
      ws.close();
    } finally {
      await before.close();
    }
    const after = await startTestGateway({ dataDir, DELIVERY_TIMEOUT_SECONDS: 30 });
    try {
      const ws = await RawWs.connect(after.wsUrl);
      expect(await ws.ok("question.get", { id })).toMatchObject({ status: "pending", targetStates: [{ chat: "14", state: "failed" }, { chat: "15", state: "waiting" }] });
      const failed = await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "15", reason: "Bad Request: chat not found" });
      expect(failed).toMatchObject({ status: "cancelled", reason: "delivery_failed", detail: expect.stringMatching(/telegram:14: failed: Forbidden: bot was kicked; telegram:15: failed: Bad Request: chat not found/) });
      ws.close();
    } finally {
      await after.close();
    }
  });
});

describe("the delivery watch: queued is not cannot-send", () => {
  it("a target retrying behind a live claim is not failed at the deadline; it is delivered later", async () => {
    const ws = await RawWs.connect(quick.wsUrl);
    const { id } = await ask(ws, ["20"]);
    const claim = () => ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "20", claimant: "bot-a", leaseMs: 2_000 });
    await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "20", reason: "429 Too Many Requests: retry after 3", permanent: false });
    await sleep(5);
    expect(await claim()).toMatchObject({ ok: true });
    // The bot renews its claim while its send waits behind the platform's limit, past the 1 s deadline.
    for (let i = 0; i < 4; i++) {
      await sleep(500);
      expect(await claim()).toMatchObject({ ok: true });
    }
    expect(await ws.ok("question.get", { id })).toMatchObject({ status: "pending" });
    await ws.ok("question.delivered", { id, surface: "telegram", chat: "20", messageRef: "m20" });
    await sleep(1_300); // past the last lease: the re-check finds the copy delivered
    expect(await ws.ok("question.get", { id })).toMatchObject({ status: "pending", deliveries: [{ chat: "20" }] });
    ws.close();
  });

  it("a claim whose bot stops renewing is re-checked when its lease ends, and the question then fails", async () => {
    const ws = await RawWs.connect(quick.wsUrl);
    const { id } = await ask(ws, ["21"]);
    const started = Date.now();
    expect(await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "21", claimant: "bot-a", leaseMs: 2_000 })).toMatchObject({ ok: true });
    const outcome = await ws.ok("question.waitAnswer", { id, timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining("telegram:21: no bot reported on it") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900); // not at the 1 s deadline: the lease held it
    expect(Date.now() - started).toBeLessThan(3_500);
    ws.close();
  });

  it("a deadline with only retrying targets (no live claim, or trouble reported after the claim) fails, naming each reason", async () => {
    const ws = await RawWs.connect(quick.wsUrl);
    const { id } = await ask(ws, ["22", "23"]);
    await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "22", reason: "cannot reach the Bot API: ECONNREFUSED", permanent: false });
    await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "23", claimant: "bot-a", leaseMs: 10_000 });
    await sleep(5);
    await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "23", reason: "502 Bad Gateway", permanent: false, retryAtMs: Date.now() + 60_000 });
    const started = Date.now();
    const outcome = await ws.ok("question.waitAnswer", { id, timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcome).toMatchObject({ status: "delivery_failed" });
    const record = await ws.ok("question.get", { id });
    expect(record.detail).toMatch(/^not delivered within 1 s/);
    expect(record.detail).toContain("telegram:22: retrying: cannot reach the Bot API: ECONNREFUSED");
    expect(record.detail).toContain("telegram:23: retrying: 502 Bad Gateway");
    ws.close();
  });
});

describe("copy rendered state", () => {
  it("question.copyRendered stores the copy's fingerprint and emits nothing", async () => {
    const ws = await RawWs.connect(patient.wsUrl);
    const { id } = await ask(ws, ["30"]);
    await ws.ok("question.delivered", { id, surface: "telegram", chat: "30", messageRef: "m30" });
    await ws.ok("question.resolve", { id, answers: { deploy_target: "Production" } });
    await sleep(50);
    const seen = ws.events.length;
    const record = await ws.ok("question.copyRendered", { id, surface: "telegram", chat: "30", rendered: "summary:v1:abc" });
    expect(record.deliveries).toEqual([expect.objectContaining({ chat: "30", messageRef: "m30", rendered: "summary:v1:abc" })]);
    expect((await ws.ok("question.get", { id })).deliveries[0].rendered).toBe("summary:v1:abc");
    await sleep(50);
    expect(ws.events.slice(seen)).toEqual([]);
    expect(await ws.request("question.copyRendered", { id, surface: "telegram", chat: "99", rendered: "x" })).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS" } });
    expect(await ws.request("question.copyRendered", { id, surface: "telegram", chat: "30", rendered: "x".repeat(129) })).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS" } });
    ws.close();
  });
});

describe("question.copyRendered: the same roles as question.delivered", () => {
  const params = parseParams("question.copyRendered", { id: "q1", surface: "telegram", chat: "1", rendered: "v1" });
  const outcome = (principal: Principal, p = params) => {
    try {
      authorizeCall(principal, "question.copyRendered", p);
      return "allowed";
    } catch (error) {
      return error instanceof GatewayError ? error.code : error;
    }
  };
  it.each<[string, Principal, string]>([
    ["the admin", ADMIN, "allowed"],
    ["a Telegram bot, for a Telegram copy", { kind: "bot", surface: "telegram", credentialId: "b1", name: "tg" }, "allowed"],
    ["a Slack bot, for a Telegram copy", { kind: "bot", surface: "slack", credentialId: "b2", name: "sl" }, "FORBIDDEN"],
    ["an agent", { kind: "agent", credentialId: "a1", name: "agent" }, "FORBIDDEN"],
    ["the Control UI", WEB, "FORBIDDEN"],
  ])("%s: %s", (_name, principal, expected) => expect(outcome(principal)).toBe(expected));
});
