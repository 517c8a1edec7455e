/**
 * When nobody answers (issue 20), over the real WebSocket with short timeouts: a reminder fires once at its moment,
 * an escalation step once with its targets added, and an expired question takes one late answer within its window
 * (status still expired) and none after it. Each case asks its own question, so they run concurrently.
 */
import { afterAll, describe, expect, it } from "vitest";
import { hashToken, newScopedToken } from "../../../src/gateway/auth/principal.ts";
import { RawWs, cleanup, oneQuestion, startTestGateway, twoQuestions, useTestGateway, type EventFrame } from "../../helpers/gateway.ts";

const gateway = useTestGateway();
afterAll(() => cleanup());

async function connect(): Promise<RawWs> {
  return RawWs.connect(gateway.wsUrl);
}

const eventsFor = (ws: RawWs, event: string, id: string): EventFrame[] => ws.events.filter((e) => e.event === event && e.payload.id === id);

async function waitForEvent(ws: RawWs, event: string, id: string, timeoutMs = 6_000): Promise<EventFrame> {
  return ws.waitFor(() => eventsFor(ws, event, id)[0], timeoutMs, `${event} for ${id}`);
}

describe.concurrent("when nobody answers, over the WebSocket", () => {
  it("fires a reminder once, at its moment before expiry, with the record", async () => {
    const ws = await connect();
    const { id, expiresAtMs } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 3, reminders: [1] }));
    const reminded = await waitForEvent(ws, "question.reminded", id);
    const receivedAt = Date.now();
    expect(receivedAt).toBeGreaterThanOrEqual(expiresAtMs - 1_000);
    expect(reminded.payload).toMatchObject({ id, status: "pending", reminders: [1], remindersSent: [{ offsetSeconds: 1 }] });
    expect(reminded.payload.remindersSent[0].atMs).toBeGreaterThanOrEqual(expiresAtMs - 1_000);
    expect(reminded.payload.remindersSent[0].atMs).toBeLessThan(expiresAtMs - 500);
    await waitForEvent(ws, "question.resolved", id);
    expect(eventsFor(ws, "question.reminded", id)).toHaveLength(1);
    expect((await ws.ok("question.get", { id })).remindersSent).toHaveLength(1);
    ws.close();
  });

  it("defaults: no reminder under 2 minutes, one at a third of the timeout otherwise, and a 24 h late window", async () => {
    const ws = await connect();
    const short = await ws.ok("question.get", { id: (await ws.ok("question.request", oneQuestion({ timeoutSeconds: 60 }))).id });
    expect(short).toMatchObject({ reminders: [], lateAnswerSeconds: 86_400 });
    const long = await ws.ok("question.get", { id: (await ws.ok("question.request", oneQuestion({ timeoutSeconds: 900 }))).id });
    expect(long.reminders).toEqual([300]);
    const off = await ws.ok("question.get", { id: (await ws.ok("question.request", oneQuestion({ timeoutSeconds: 900, reminders: [], lateAnswerSeconds: 0 }))).id });
    expect(off.reminders).toEqual([]);
    expect(off).not.toHaveProperty("lateAnswerSeconds");
    const sorted = await ws.ok("question.get", { id: (await ws.ok("question.request", oneQuestion({ timeoutSeconds: 900, reminders: [60, 600, 60, 120] }))).id });
    expect(sorted.reminders).toEqual([600, 120, 60]);
    ws.close();
  });

  it("refuses reminders and escalation steps that do not fit the timeout, naming each", async () => {
    const ws = await connect();
    const res = await ws.request(
      "question.request",
      oneQuestion({ timeoutSeconds: 60, reminders: [60, 10], escalate: [{ afterSeconds: 90, targets: [{ surface: "slack", chat: "C1" }] }] }),
    );
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.error.code).toBe("INVALID_PARAMS");
    expect(res.error.issues?.map((i) => i.path)).toEqual(["reminders[0]", "escalate[0].afterSeconds"]);
    const tooMany = await ws.request("question.request", oneQuestion({ reminders: [1, 2, 3, 4, 5, 6] }));
    expect(tooMany.ok).toBe(false);
    const zero = await ws.request("question.request", oneQuestion({ reminders: [0] }));
    expect(zero.ok).toBe(false);
    const steps = await ws.request("question.request", oneQuestion({ escalate: [1, 2, 3, 4].map((s) => ({ afterSeconds: s, targets: [{ surface: "web" }] })) }));
    expect(steps.ok).toBe(false);
    ws.close();
  });

  it("takes an escalation step once after its time, adding its targets, and announces it", async () => {
    const ws = await connect();
    const { id } = await ws.ok(
      "question.request",
      oneQuestion({
        timeoutSeconds: 4,
        reminders: [],
        targets: [{ surface: "telegram", chat: "100" }],
        escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C0123ABCD" }, { surface: "telegram", chat: "100" }] }],
      }),
    );
    const asked = Date.now();
    const escalated = await waitForEvent(ws, "question.escalated", id);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(900);
    expect(escalated.payload).toMatchObject({
      status: "pending",
      targets: [{ surface: "telegram", chat: "100" }, { surface: "slack", chat: "C0123ABCD" }],
      escalated: [{ step: 0, afterSeconds: 1, targets: [{ surface: "slack", chat: "C0123ABCD" }, { surface: "telegram", chat: "100" }] }],
    });
    // The new copy can be claimed and delivered like the first.
    expect(await ws.ok("question.claimDelivery", { id, surface: "slack", chat: "C0123ABCD", claimant: "bot" })).toMatchObject({ ok: true });
    await ws.ok("question.delivered", { id, surface: "slack", chat: "C0123ABCD", messageRef: "1.2" });
    expect((await ws.ok("question.list", { surface: "slack", chat: "C0123ABCD" })).questions.map((r: { id: string }) => r.id)).toContain(id);
    await ws.ok("question.resolve", { id, answers: { deploy_target: "Production" }, by: { surface: "slack", chat: "C0123ABCD", via: "button" } });
    expect(eventsFor(ws, "question.escalated", id)).toHaveLength(1);
    ws.close();
  });

  it("a failed escalation target never ends a question already delivered elsewhere", async () => {
    const ws = await connect();
    const { id } = await ws.ok(
      "question.request",
      oneQuestion({ timeoutSeconds: 4, reminders: [], targets: [{ surface: "telegram", chat: "200" }], escalate: [{ afterSeconds: 1, targets: [{ surface: "discord", chat: "300" }] }] }),
    );
    await ws.ok("question.delivered", { id, surface: "telegram", chat: "200", messageRef: "1" });
    await waitForEvent(ws, "question.escalated", id);
    const failed = await ws.ok("question.deliveryFailed", { id, surface: "discord", chat: "300", reason: "Missing Access" });
    expect(failed).toMatchObject({ status: "pending", targetStates: [{ surface: "discord", chat: "300", state: "failed" }] });
    await ws.ok("question.resolve", { id, cancel: true });
    ws.close();
  });

  it("lets a bot report reminder replies for its own surface only, and an agent not at all", async () => {
    const token = async (role: string) => {
      const { id, token: secret } = newScopedToken();
      await gateway.credentials.add({ id, name: role, role: role as never, createdAtMs: Date.now() }, hashToken(secret));
      return secret;
    };
    const admin = await connect();
    const { id } = await admin.ok("question.request", oneQuestion({ timeoutSeconds: 60, reminders: [20], targets: [{ surface: "telegram", chat: "9" }, { surface: "slack", chat: "C9" }] }));
    const bot = await RawWs.connect(gateway.wsUrl, await token("bot:telegram"));
    const agent = await RawWs.connect(gateway.wsUrl, await token("agent"));
    const report = (surface: string, chat: string) => ({ id, surface, chat, offsetSeconds: 20, messageRef: "r" });
    expect(await bot.ok("question.reminderSent", report("telegram", "9"))).toMatchObject({ reminderCopies: [{ surface: "telegram", chat: "9" }] });
    expect(await bot.request("question.reminderSent", report("slack", "C9"))).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(await agent.request("question.reminderSent", report("telegram", "9"))).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(await admin.request("question.reminderSent", report("discord", "1"))).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS" } });
    expect(await admin.request("question.reminderSent", { ...report("telegram", "9"), offsetSeconds: 21 })).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS", issues: [{ path: "offsetSeconds" }] } });
    await admin.ok("question.resolve", { id, cancel: true });
    for (const ws of [admin, bot, agent]) ws.close();
  });

  it("lets a bot claim and record a reminder copy once per chat and offset", async () => {
    const ws = await connect();
    const { id } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 3, reminders: [2], targets: [{ surface: "telegram", chat: "7" }] }));
    await ws.ok("question.delivered", { id, surface: "telegram", chat: "7", messageRef: "70" });
    const early = await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "7", claimant: "bot-a", copy: "reminder:2" });
    expect(early).toEqual({ ok: false, reason: "not_pending" });
    await waitForEvent(ws, "question.reminded", id);
    expect(await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "7", claimant: "bot-a", copy: "reminder:2" })).toMatchObject({ ok: true });
    expect(await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "7", claimant: "bot-b", copy: "reminder:2" })).toMatchObject({ ok: false, reason: "claimed" });
    const updatesBefore = eventsFor(ws, "question.updated", id).length;
    const sent = await ws.ok("question.reminderSent", { id, surface: "telegram", chat: "7", offsetSeconds: 2, messageRef: "71" });
    expect(sent.reminderCopies).toEqual([{ surface: "telegram", chat: "7", offsetSeconds: 2, messageRef: "71", sentAtMs: expect.any(Number) }]);
    await ws.waitFor(() => eventsFor(ws, "question.updated", id).length > updatesBefore || undefined, 2_000, "question.updated");
    const again = await ws.ok("question.reminderSent", { id, surface: "telegram", chat: "7", offsetSeconds: 2, messageRef: "72" });
    expect(again.reminderCopies).toHaveLength(1);
    expect(await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "7", claimant: "bot-b", copy: "reminder:2" })).toEqual({ ok: false, reason: "delivered" });
    const badCopy = await ws.request("question.claimDelivery", { id, surface: "telegram", chat: "7", claimant: "bot-b", copy: "banner" });
    expect(badCopy.ok).toBe(false);
    ws.close();
  });

  it("takes one late answer within the window (status stays expired), announces it, and lists it", async () => {
    const ws = await connect();
    const { id } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 2, sessionKey: "late-session" }));
    const expired = await waitForEvent(ws, "question.resolved", id);
    expect(expired.payload).toMatchObject({ status: "expired", lateUntilMs: expired.payload.resolvedAtMs + 2_000 });
    expect(await ws.ok("question.waitAnswer", { id, timeoutMs: 100 })).toMatchObject({ status: "no_answer", reason: "expired" });

    const skip = await ws.request("question.resolve", { id, cancel: true, reason: "skipped" });
    expect(skip.ok ? undefined : skip.error.code).toBe("QUESTION_ALREADY_TERMINAL");
    const invalid = await ws.request("question.resolve", { id, answers: { nope: "x" } });
    expect(invalid.ok ? undefined : invalid.error.code).toBe("QUESTION_INVALID_ANSWER");

    const record = await ws.ok("question.resolve", { id, answers: { deploy_target: "production" }, by: { surface: "telegram", user: "42", chat: "1", via: "button" } });
    expect(record).toMatchObject({ status: "expired", reason: "expired", lateAnswer: { answers: { deploy_target: ["Production"] }, by: { surface: "telegram", user: "42" } } });
    const announced = await waitForEvent(ws, "question.lateAnswered", id);
    expect(announced.payload.lateAnswer).toEqual(record.lateAnswer);
    const second = await ws.request("question.resolve", { id, answers: { deploy_target: "Staging (Recommended)" } });
    expect(second.ok ? undefined : second.error).toMatchObject({ code: "QUESTION_ALREADY_TERMINAL", message: expect.stringContaining("late answer") });
    expect((await ws.ok("question.list", { late: true, sessionKey: "late-session" })).questions.map((r: { id: string }) => r.id)).toEqual([id]);
    expect((await ws.ok("question.list", { late: true, sessionKey: "someone-else" })).questions).toEqual([]);
    expect(await ws.ok("question.waitAnswer", { id, timeoutMs: 100 })).toMatchObject({ status: "no_answer", reason: "expired" });
    expect(eventsFor(ws, "question.lateAnswered", id)).toHaveLength(1);
    ws.close();
  });

  it("takes a typed late reply (a partial one held until the rest), and refuses a late skip", async () => {
    const ws = await connect();
    const { id } = await ws.ok("question.request", twoQuestions({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 5 }));
    await waitForEvent(ws, "question.resolved", id);
    const skip = await ws.request("question.reply", { id, text: "skip" });
    expect(skip.ok ? undefined : skip.error.code).toBe("QUESTION_ALREADY_TERMINAL");
    const partial = await ws.ok("question.reply", { id, text: "1: production" });
    expect(partial).toMatchObject({ kind: "partial", record: { status: "expired", partialAnswers: { env: ["Production"] } } });
    const done = await ws.ok("question.reply", { id, text: "2: lint, unit" });
    expect(done).toMatchObject({ kind: "answered", record: { status: "expired", lateAnswer: { answers: { env: ["Production"], checks: ["Lint", "Unit"] } } } });
    expect(done.record).not.toHaveProperty("partialAnswers");
    await waitForEvent(ws, "question.lateAnswered", id);
    ws.close();
  });

  it("refuses answers after the late window, and announces its end once as question.updated", async () => {
    const ws = await connect();
    const { id } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 1 }));
    const expired = await waitForEvent(ws, "question.resolved", id);
    const ended = await waitForEvent(ws, "question.updated", id, 4_000);
    expect(Date.now()).toBeGreaterThanOrEqual(expired.payload.lateUntilMs);
    expect(ended.payload).toMatchObject({ status: "expired", lateUntilMs: expired.payload.lateUntilMs });
    expect(ended.payload).not.toHaveProperty("lateAnswer");
    const late = await ws.request("question.resolve", { id, answers: { deploy_target: "Production" } });
    expect(late.ok ? undefined : late.error).toMatchObject({ code: "QUESTION_ALREADY_TERMINAL", message: expect.stringContaining("window closed") });
    await new Promise((r) => setTimeout(r, 1_200));
    expect(eventsFor(ws, "question.updated", id)).toHaveLength(1);
    ws.close();
  });

  it("lets a connection subscribe to the new events alone", async () => {
    const ws = await connect();
    expect(await ws.ok("events.subscribe", { events: ["question.lateAnswered", "question.reminded", "question.escalated"] })).toEqual({
      events: ["question.lateAnswered", "question.reminded", "question.escalated"],
    });
    // Until its response, the connection received every event (another test's question may have ended meanwhile).
    const before = ws.events.length;
    const { id } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 5 }));
    const asker = await connect();
    await asker.ok("question.waitAnswer", { id, timeoutMs: 3_000 });
    await asker.ok("question.resolve", { id, answers: { deploy_target: "Production" } });
    await waitForEvent(ws, "question.lateAnswered", id);
    expect(ws.events.filter((e) => e.payload.id === id).map((e) => e.event)).toEqual(["question.lateAnswered"]);
    expect(ws.events.slice(before).every((e) => e.event !== "question.requested" && e.event !== "question.resolved")).toBe(true);
    ws.close();
    asker.close();
  });

  it("without a late window, an answer after expiry is refused as before", async () => {
    const ws = await connect();
    const { id } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 0 }));
    const expired = await waitForEvent(ws, "question.resolved", id);
    expect(expired.payload).not.toHaveProperty("lateUntilMs");
    const late = await ws.request("question.resolve", { id, answers: { deploy_target: "Production" } });
    expect(late.ok ? undefined : late.error.code).toBe("QUESTION_ALREADY_TERMINAL");
    ws.close();
  });
});

describe("gateway defaults and limits for follow-ups", () => {
  it("applies REMIND_BEFORE_SECONDS and LATE_ANSWER_SECONDS, and holds escalation targets to ASK_ALLOWED_TARGETS", async () => {
    const other = await startTestGateway({
      REMIND_BEFORE_SECONDS: [600, 120],
      LATE_ANSWER_SECONDS: 0,
      ASK_ALLOWED_TARGETS: [{ surface: "telegram", chat: "1" }, { surface: "web" }],
    });
    try {
      const ws = await RawWs.connect(other.wsUrl);
      const fits = await ws.ok("question.get", { id: (await ws.ok("question.request", oneQuestion({ timeoutSeconds: 300 }))).id });
      expect(fits.reminders).toEqual([120]);
      expect(fits).not.toHaveProperty("lateAnswerSeconds");
      const refused = await ws.request("question.request", oneQuestion({ escalate: [{ afterSeconds: 60, targets: [{ surface: "web" }, { surface: "slack", chat: "C9" }] }] }));
      expect(refused.ok ? undefined : refused.error.issues).toEqual([{ path: "escalate[0].targets.1", message: "slack:C9 is not in ASK_ALLOWED_TARGETS" }]);
      ws.close();
    } finally {
      await other.close();
    }
  });
});
