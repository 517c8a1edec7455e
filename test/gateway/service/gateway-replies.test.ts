/**
 * A reply is recorded once, and never late (issue 18, §1): a platform message (surface, chat, messageRef) is taken
 * as a reply once, across questions and gateway restarts; an answer at or past expiresAtMs expires the question and
 * is refused. Over the real WebSocket protocol, plus the service with an injected clock and a failing store.
 */
import { realClock } from "../../../src/kernel/clock.ts";
import { afterAll, describe, expect, it } from "vitest";
import { REPLY_KEY_TTL_MS } from "../../../src/gateway/service/reply-keys.ts";
import { createQuestionService } from "../../../src/gateway/service/service.ts";
import { createMemoryStore } from "../../../src/gateway/store/memory/memory-store.ts";
import { StoreUnavailableError } from "../../../src/gateway/store/kit/errors.ts";
import type { QuestionStore } from "../../../src/gateway/store/kit/types.ts";
import { GatewayError } from "../../../src/kernel/errors.ts";
import { cleanup, oneQuestion, RawWs, startTestGateway, tempDir, twoQuestions, type ResFrame } from "../../helpers/gateway.ts";

afterAll(() => cleanup());

const by = (chat: string) => ({ surface: "telegram", chat, user: "42", via: "text" });
const errorOf = (res: ResFrame) => (res.ok ? undefined : res.error);

describe("re-delivered replies over the WebSocket (SQLite)", () => {
  it("refuses a message already taken, on the next question pending in the chat, and changes nothing", async () => {
    const gateway = await startTestGateway();
    try {
      const ws = await RawWs.connect(gateway.wsUrl);
      const target = [{ surface: "telegram", chat: "700" }];
      const first = await ws.ok("question.request", twoQuestions({ targets: target }));
      const second = await ws.ok("question.request", twoQuestions({ targets: target }));
      const reply = (id: string, text: string, messageRef: string) => ws.request("question.reply", { id, text, by: by("700"), messageRef });

      const answered = await reply(first.id, "env: Production\nchecks: Lint", "m-1");
      expect(answered).toMatchObject({ ok: true, payload: { kind: "answered", record: { status: "answered" } } });
      // Telegram re-delivers the same update: it must not answer the next question pending in the chat.
      const again = await reply(second.id, "env: Production\nchecks: Lint", "m-1");
      expect(errorOf(again)).toMatchObject({ code: "DUPLICATE_REPLY", message: expect.stringContaining("already taken as a reply") });
      const untouched = await ws.ok("question.get", { id: second.id });
      expect(untouched.status).toBe("pending");
      expect(untouched.partialAnswers).toBeUndefined();

      // A partial reply is a taken message too; the same id in another chat, or on another surface, is another message.
      expect(await reply(second.id, "env: Staging", "m-2")).toMatchObject({ ok: true, payload: { kind: "partial" } });
      expect(errorOf(await reply(second.id, "checks: Unit", "m-2"))).toMatchObject({ code: "DUPLICATE_REPLY" });
      const third = await ws.ok("question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "701" }] }));
      expect(await ws.request("question.resolve", { id: third.id, answers: { deploy_target: "Production" }, by: { ...by("701"), via: "button" }, messageRef: "m-2" })).toMatchObject({ ok: true });

      // question.resolve with a messageRef is keyed the same way.
      const fourth = await ws.ok("question.request", oneQuestion({ targets: target }));
      expect(errorOf(await ws.request("question.resolve", { id: fourth.id, answers: { deploy_target: "Production" }, by: by("700"), messageRef: "m-1" }))).toMatchObject({ code: "DUPLICATE_REPLY" });
      expect((await ws.ok("question.get", { id: fourth.id })).status).toBe("pending");

      // An invalid reply keeps its key: the re-delivered copy is refused too.
      expect(await reply(fourth.id, "   ", "m-3")).toMatchObject({ ok: true, payload: { kind: "invalid", reason: "empty" } });
      expect(errorOf(await reply(fourth.id, "Production", "m-3"))).toMatchObject({ code: "DUPLICATE_REPLY" });

      // A messageRef is a key only with the chat it was written in.
      expect(errorOf(await ws.request("question.reply", { id: fourth.id, text: "Production", by: { surface: "telegram", via: "text" }, messageRef: "m-4" }))).toMatchObject({
        code: "INVALID_PARAMS",
        issues: [{ path: "by.chat" }],
      });
      // Without a messageRef nothing is keyed (the API and the web UI).
      expect(await ws.request("question.reply", { id: fourth.id, text: "Production", by: by("700") })).toMatchObject({ ok: true, payload: { kind: "answered" } });
      ws.close();
    } finally {
      await gateway.close();
    }
  });

  it("refuses a message taken before the gateway restarted", async () => {
    const dataDir = tempDir();
    const before = await startTestGateway({ dataDir });
    let id: string;
    try {
      const ws = await RawWs.connect(before.wsUrl);
      const target = [{ surface: "telegram", chat: "800" }];
      const first = await ws.ok("question.request", oneQuestion({ targets: target }));
      id = (await ws.ok("question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "801" }] }))).id;
      expect(await ws.request("question.reply", { id: first.id, text: "2", by: by("800"), messageRef: "update-9" })).toMatchObject({ ok: true, payload: { kind: "answered" } });
      ws.close();
    } finally {
      await before.close();
    }
    const after = await startTestGateway({ dataDir });
    try {
      const ws = await RawWs.connect(after.wsUrl);
      const next = await ws.ok("question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "800" }] }));
      expect(errorOf(await ws.request("question.reply", { id: next.id, text: "2", by: by("800"), messageRef: "update-9" }))).toMatchObject({ code: "DUPLICATE_REPLY" });
      expect((await ws.ok("question.get", { id: next.id })).status).toBe("pending");
      // Another chat's message with the same id is its own.
      expect(await ws.request("question.reply", { id, text: "2", by: by("801"), messageRef: "update-9" })).toMatchObject({ ok: true, payload: { kind: "answered" } });
      ws.close();
    } finally {
      await after.close();
    }
  });
});

describe("re-delivered replies when the store fails mid-reply", () => {
  it("gives the key back, so the retry of that message is taken", async () => {
    const inner = createMemoryStore();
    let failResolve = 1;
    const store: QuestionStore = {
      ...inner,
      resolve: async (id, resolution) => {
        if (failResolve-- > 0) throw new StoreUnavailableError("PostgreSQL is unreachable");
        return inner.resolve(id, resolution);
      },
    };
    const service = createQuestionService({ store });
    const { id } = await service.request({ questions: oneQuestion().questions, targets: [{ surface: "telegram", chat: "9" }] });
    const reply = () => service.reply({ id, text: "Production", by: { surface: "telegram", chat: "9", via: "text" }, messageRef: "m-1" });
    await expect(reply()).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
    expect(await reply()).toMatchObject({ kind: "answered", record: { status: "answered" } });
    await expect(reply()).rejects.toMatchObject({ code: "DUPLICATE_REPLY" });
    service.stop();
  });
});

describe("reply keys in the service", () => {
  it("takes one of two copies of a message arriving at once, on two questions", async () => {
    const service = createQuestionService({ store: createMemoryStore() });
    const ask = async () => (await service.request({ questions: oneQuestion().questions, targets: [{ surface: "telegram", chat: "5" }] })).id;
    const [a, b] = [await ask(), await ask()];
    const by = { surface: "telegram", chat: "5", via: "text" as const };
    const outcomes = await Promise.allSettled([a, b].map((id) => service.reply({ id, text: "Production", by, messageRef: "same" })));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(outcomes.find((o) => o.status === "rejected")).toMatchObject({ reason: { code: "DUPLICATE_REPLY" } });
    expect([(await service.get(a)).status, (await service.get(b)).status].sort()).toEqual(["answered", "pending"]);
    service.stop();
  });

  it("keeps keys as long as a reply could count (the longest timeout and late window: 7 days 1 hour), pruning older ones on a keyed reply, at most once an hour", async () => {
    const inner = createMemoryStore();
    const prunes: number[] = [];
    const store: QuestionStore = { ...inner, pruneRepliesSeen: async (beforeMs) => (prunes.push(beforeMs), inner.pruneRepliesSeen(beforeMs)) };
    expect(REPLY_KEY_TTL_MS).toBe((3_600 + 7 * 24 * 3_600) * 1000);
    let nowMs = 1_000 * 3_600_000;
    const service = createQuestionService({ store, clock: { ...realClock, now: () => nowMs } });
    const by = { surface: "telegram", chat: "5", via: "text" as const };
    // Each reply goes to a fresh question (the clock moves past the last one's expiry).
    const reply = async (messageRef: string) => {
      const { id } = await service.request({ questions: oneQuestion().questions, targets: [{ surface: "web" }] });
      return service.reply({ id, text: "   ", by, messageRef });
    };
    await store.markReplySeen({ surface: "telegram", chat: "5", messageRef: "ancient" }, nowMs - REPLY_KEY_TTL_MS - 1);
    // Past the old 48 hours, but a late answer could still come: kept (issue 37 §5).
    await store.markReplySeen({ surface: "telegram", chat: "5", messageRef: "two-days-old" }, nowMs - 49 * 3_600_000);
    await expect(reply("r1")).resolves.toMatchObject({ kind: "invalid" });
    expect(prunes).toEqual([nowMs - REPLY_KEY_TTL_MS]);
    nowMs += 30 * 60_000;
    await reply("r2");
    expect(prunes).toHaveLength(1);
    nowMs += 31 * 60_000;
    await reply("r3");
    expect(prunes).toHaveLength(2);
    // The pruned key is free again; the recent ones are not.
    expect(await store.markReplySeen({ surface: "telegram", chat: "5", messageRef: "ancient" }, nowMs)).toBe(true);
    expect(await store.markReplySeen({ surface: "telegram", chat: "5", messageRef: "r1" }, nowMs)).toBe(false);
    expect(await store.markReplySeen({ surface: "telegram", chat: "5", messageRef: "two-days-old" }, nowMs)).toBe(false);
    service.stop();
  });
});

describe("expiry at the moment of the answer", () => {
  /** A service whose clock the test moves; its schedule is never armed, as if its timer were late (a suspend). */
  async function lateClock(lateAnswerSeconds = 0) {
    let nowMs = 1_000_000;
    const service = createQuestionService({ store: createMemoryStore(), clock: { ...realClock, now: () => nowMs }, minTimeoutSeconds: 1 });
    const events: Array<{ event: string; id: string; status: string }> = [];
    service.subscribe((event, record) => events.push({ event, id: record.id, status: record.status }));
    // Without a late window (issue 20's late answers are tested below and in gateway-follow-ups.test.ts).
    const ask = async () =>
      (await service.request({ questions: oneQuestion().questions, timeoutSeconds: 1, targets: [{ surface: "web" }], lateAnswerSeconds })).record;
    return { service, events, ask, set: (ms: number) => (nowMs = ms) };
  }

  it.each([
    ["an answer", (s: Awaited<ReturnType<typeof lateClock>>["service"], id: string) => s.resolve({ id, answers: { deploy_target: "Production" }, by: { surface: "web", via: "web" } })],
    ["a cancel", (s: Awaited<ReturnType<typeof lateClock>>["service"], id: string) => s.resolve({ id, cancel: true, reason: "skipped" })],
    ["a typed reply", (s: Awaited<ReturnType<typeof lateClock>>["service"], id: string) => s.reply({ id, text: "Production" })],
  ])("%s 30 ms after expiresAtMs is refused, and the question expires then, announced", async (_name, answer) => {
    const { service, events, ask, set } = await lateClock();
    const record = await ask();
    const waiting = service.waitAnswer(record.id, 60_000);
    set(record.expiresAtMs + 30);
    const refusal = await answer(service, record.id).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ code: "QUESTION_ALREADY_TERMINAL", message: expect.stringMatching(/expired 30 ms before this answer/) });
    expect(await service.get(record.id)).toMatchObject({ status: "expired", reason: "expired", resolvedAtMs: record.expiresAtMs + 30 });
    expect(events.filter((e) => e.event === "question.resolved")).toEqual([{ event: "question.resolved", id: record.id, status: "expired" }]);
    expect(await waiting).toMatchObject({ id: record.id, status: "no_answer", reason: "expired" });
    service.stop();
  });

  it("takes an answer 1 ms before expiresAtMs, and refuses one at expiresAtMs exactly", async () => {
    const { service, ask, set } = await lateClock();
    const early = await ask();
    set(early.expiresAtMs - 1);
    await expect(service.resolve({ id: early.id, answers: { deploy_target: "Production" } })).resolves.toMatchObject({ status: "answered" });
    const exact = await ask();
    set(exact.expiresAtMs);
    await expect(service.resolve({ id: exact.id, answers: { deploy_target: "Production" } })).rejects.toMatchObject({ code: "QUESTION_ALREADY_TERMINAL" });
    expect((await service.get(exact.id)).status).toBe("expired");
    service.stop();
  });

  it.each([
    ["an answer", (s: Awaited<ReturnType<typeof lateClock>>["service"], id: string) => s.resolve({ id, answers: { deploy_target: "Production" }, by: { surface: "web", via: "web" } })],
    ["a typed reply", (s: Awaited<ReturnType<typeof lateClock>>["service"], id: string) => s.reply({ id, text: "Production" })],
  ])("with a late window, %s 30 ms after expiresAtMs expires the question (announced) and is then taken late", async (_name, answer) => {
    const { service, events, ask, set } = await lateClock(60);
    const record = await ask();
    const waiting = service.waitAnswer(record.id, 60_000);
    set(record.expiresAtMs + 30);
    await answer(service, record.id);
    expect(await waiting).toMatchObject({ id: record.id, status: "no_answer", reason: "expired" });
    expect(await service.get(record.id)).toMatchObject({
      status: "expired",
      resolvedAtMs: record.expiresAtMs + 30,
      lateUntilMs: record.expiresAtMs + 30 + 60_000,
      lateAnswer: { answers: { deploy_target: ["Production"] }, atMs: record.expiresAtMs + 30 },
    });
    expect(events.filter((e) => e.id === record.id).map((e) => e.event)).toEqual(["question.requested", "question.resolved", "question.lateAnswered"]);
    await expect(service.resolve({ id: record.id, cancel: true, reason: "skipped" })).rejects.toMatchObject({ code: "QUESTION_ALREADY_TERMINAL" });
    service.stop();
  });
});

describe("keyed lines after a partial answer (issue 18 §1)", () => {
  it("numbers keep their original meaning, and a line naming an answered question is refused with the open ones named", async () => {
    const gateway = await startTestGateway();
    try {
      const ws = await RawWs.connect(gateway.wsUrl);
      const options = (a: string, b: string) => [{ label: a }, { label: b }];
      const { id } = await ws.ok("question.request", {
        questions: [
          { id: "env", header: "Target", question: "Where should we deploy?", options: options("Staging", "Production") },
          { id: "db", header: "Database", question: "Which database?", options: options("Postgres", "SQLite") },
          { id: "ci", header: "CI", question: "Which CI?", options: options("GitHub", "GitLab") },
        ],
        targets: [{ surface: "telegram", chat: "701" }],
      });
      const reply = (text: string) => ws.ok("question.reply", { id, text, by: by("701") });
      expect(await reply("1: Staging")).toMatchObject({ kind: "partial", answers: { env: ["Staging"] }, missing: ["db", "ci"] });
      // Before the fix the follow-up renumbered the open questions, and "3: GitHub" became question 2's free text.
      expect(await reply("3: GitHub")).toMatchObject({ kind: "partial", answers: { env: ["Staging"], ci: ["GitHub"] }, missing: ["db"] });
      const refused = await reply("1: Production");
      expect(refused).toMatchObject({ kind: "invalid", reason: "not_open", message: expect.stringContaining("Still open: question 2 (Database)") });
      expect((await ws.ok("question.get", { id })).partialAnswers).toEqual({ env: ["Staging"], ci: ["GitHub"] });
      expect(await reply("2")).toMatchObject({ kind: "answered", record: { status: "answered", answers: { env: ["Staging"], db: ["SQLite"], ci: ["GitHub"] } } });
      ws.close();
    } finally {
      await gateway.close();
    }
  });
});
