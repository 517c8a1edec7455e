/** The Matrix pieces that need no homeserver: the reply fallback, the rate gate, the sync token file (the renderers: renderers.test.ts). */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { MatrixError } from "matrix-js-sdk";
import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { createRateGate } from "../../../bots/matrix/rate-gate.ts";
import { stripReplyFallback } from "../../../bots/matrix/inbound.ts";
import { createSyncTokenStore } from "../../../bots/matrix/sync-token.ts";
import { looksLikeCredential } from "../../../src/parse/credential.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";
import { join } from "node:path";
import { startMatrixBot } from "../../../bots/matrix/index.ts";
import { decodeMatrixAnswerId } from "../../../src/platforms/matrix/callback-data.ts";
import { MATRIX_POLL_START } from "../../../src/platforms/matrix/payload.ts";
import { parseTarget } from "../../../src/record/targets.ts";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import type { PromptCopy } from "../../scenarios/harness.ts";
import { scenarioTools, waitUntil } from "../../scenarios/tools.ts";
import { createMatrixHarness, type MatrixHarness } from "./harness.ts";

describe("matrix reply fallback", () => {
  it.each([
    ["> <@bot:x> Deploy?\n> 1. Staging\n\n2", "2"],
    ["2", "2"],
    ["> <@bot:x> only a quote", ""],
  ])("%j reads as %j", (body, typed) => {
    expect(stripReplyFallback(body)).toBe(typed);
  });
});

const limited = (ms: number) => new MatrixError({ errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms: ms }, 429);

describe("matrix rate gate", () => {
  it("waits the retry_after_ms asked for, then tries again; another error goes back at once", async () => {
    let clock = 0;
    const waits: number[] = [];
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (waits.push(ms), (clock += ms)) });
    let calls = 0;
    expect(await gate.run("send", async () => (++calls < 3 ? Promise.reject(limited(700)) : "ok"))).toBe("ok");
    expect(waits).toEqual([700, 700]);
    await expect(gate.run("send", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("a wait over 30 s, or refusals for over 5 minutes, go back to the caller (the bridge's retry)", async () => {
    let clock = 0;
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    await expect(gate.run("send", () => Promise.reject(limited(60_000)))).rejects.toBeInstanceOf(MatrixError);
    let tries = 0;
    await expect(gate.run("send", () => (tries++, Promise.reject(limited(20_000))))).rejects.toBeInstanceOf(MatrixError);
    expect(tries).toBe(17); // refused at 0, 20 s, … 320 s: past 5 minutes
  });

  it("after a refusal, calls go in single file", async () => {
    let clock = 0;
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    await gate.run("send", (() => {
      let first = true;
      return async () => (first ? ((first = false), Promise.reject(limited(5))) : "ok");
    })());
    let inFlight = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        gate.run("send", async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});

describe("matrix sync token", () => {
  it("survives a restart, is written whole (no temporary file left), and belongs to one account", () => {
    const dir = tempDir("aub-mx-token-");
    const store = createSyncTokenStore(dir, "https://hs.example", "@bot:example");
    expect(store.read()).toBeUndefined();
    store.write("s42");
    store.write("s43");
    expect(createSyncTokenStore(dir, "https://hs.example", "@bot:example").read()).toBe("s43");
    expect(readdirSync(dir)).toEqual([store.file.slice(dir.length + 1)]);
    expect(JSON.parse(readFileSync(store.file, "utf8"))).toMatchObject({ user_id: "@bot:example", next_batch: "s43" });
    // Another account (or homeserver) has its own file; a file naming another account is not taken.
    expect(createSyncTokenStore(dir, "https://hs.example", "@other:example").read()).toBeUndefined();
    writeFileSync(store.file, JSON.stringify({ user_id: "@other:example", next_batch: "s1" }));
    expect(store.read()).toBeUndefined();
    writeFileSync(store.file, "{not json");
    expect(store.read()).toBeUndefined();
  });
});

describe("matrix credential shapes", () => {
  it.each([
    ["syt_YWRh_abcdefghijklmnopqrst_0A1b2C", true],
    ["my token is syt_ YWRh_abcdefghijklmnopqrst _0A1b2C", true],
    ["mat_abcdefghijklmnopqrstuvwxyz0123_0A1b2C", true],
    ["sync the syt file", false],
  ])("%j looks like a credential: %s", (text, refused) => {
    expect(looksLikeCredential(text)).toBe(refused);
  });
});

/** The bot's sync token file in DATA_DIR. */
const tokenFile = (dataDir: string) => join(dataDir, readdirSync(dataDir).find((f) => /^matrix-sync-[0-9a-f]+\.json$/u.test(f))!);

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};
const multi = { id: "checks", header: "Checks", question: "Which checks should run?", multiSelect: true, options: [{ label: "Lint" }, { label: "Unit" }] };

describe("matrix: specifics", () => {
  let h: MatrixHarness;
  beforeAll(async () => {
    h = await createMatrixHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const ask = async (questions: unknown[] = [single], chat = h.chat, extra: Record<string, unknown> = {}) =>
    (await rpcOk(h.gatewayUrl(), "question.request", { questions, targets: [{ surface: "matrix", chat }], ...extra })).id as string;
  const { promptOf, result, status, summaryOf } = scenarioTools(() => h);
  const eventOf = (copy: PromptCopy) => h.fake.event(copy.ref.slice(copy.ref.lastIndexOf("|") + 1))!;

  it("the one single-select question is an MSC3381 poll: one answer per option, Other… and Skip, max_selections 1, the numbered text as its fallback", async () => {
    const id = await ask();
    const event = eventOf(await promptOf(id));
    expect(event.type).toBe(MATRIX_POLL_START);
    const poll = event.content[MATRIX_POLL_START];
    expect(poll.max_selections).toBe(1);
    expect(poll.kind).toBe("org.matrix.msc3381.poll.disclosed");
    expect(poll.question["org.matrix.msc1767.text"]).toContain("Where should I deploy?");
    expect(poll.answers.map((a: any) => a["org.matrix.msc1767.text"])).toEqual(["Staging (Recommended)", "Production", "Other…", "Skip"]);
    // The answer ids carry the question and the option index (the shared codec), never the label.
    expect(poll.answers.map((a: any) => decodeMatrixAnswerId(a.id))).toEqual([
      { questionId: id, action: { kind: "choice", optionIndex: 0 } },
      { questionId: id, action: { kind: "choice", optionIndex: 1 } },
      { questionId: id, action: { kind: "other" } },
      { questionId: id, action: { kind: "skip" } },
    ]);
    // Clients without polls show the fallback: the numbered text, which works by reply.
    for (const fallback of [event.content.body, event.content["org.matrix.msc1767.text"]]) {
      expect(fallback).toContain("1. Staging (Recommended) - safe to try");
      expect(fallback).toContain("Reply with a number, a label, or your own words.");
      expect(fallback).toContain("In this room, a typed answer counts only as a reply to this message or in its thread.");
    }
    expect(event.content["m.mentions"]).toEqual({});

    // Resolved: the poll is ended and the prompt edited (m.replace) into the summary.
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, answers: { deploy_target: ["Production"] } });
    await waitUntil(() => h.fake.pollEnded(event.event_id), "the poll ended");
    const edit = h.fake.botEvents(h.chat).find((e) => e.content["m.relates_to"]?.rel_type === "m.replace" && e.content["m.relates_to"].event_id === event.event_id)!;
    expect(edit.type).toBe(MATRIX_POLL_START);
    expect(edit.content["m.new_content"].body).toMatch(/✅ Deployment t: Production/u);
    const end = h.fake.botEvents(h.chat).find((e) => e.type === "org.matrix.msc3381.poll.end")!;
    expect(end.content["m.relates_to"]).toEqual({ rel_type: "m.reference", event_id: event.event_id });
  });

  it("several questions, or a multi-select one, are numbered text (an m.room.message), edited into the summary", async () => {
    const id = await ask([multi]);
    const copy = await promptOf(id);
    const event = eventOf(copy);
    expect(event.type).toBe("m.room.message");
    expect(event.content).toMatchObject({ msgtype: "m.text", format: "org.matrix.custom.html", "m.mentions": {} });
    expect(event.content.body).toContain("1. Lint");
    await h.type(h.chat, h.person, "1, 2", { replyTo: copy });
    expect(await result(id)).toMatchObject({ answers: { answers: { checks: ["Lint", "Unit"] } } });
    await summaryOf(copy, /✅ Checks: Lint, Unit/u);
  });

  it("@room and mentions are inert, and the HTML is escaped", async () => {
    const hostile = { ...single, question: "Ping @room and @ada:fake.test? <b>bold</b> <a href='https://x.example'>link</a> & more" };
    const id = await ask([hostile]);
    const event = eventOf(await promptOf(id));
    const text = JSON.stringify(event.content);
    expect(text).not.toMatch(/@room|@ada:/u);
    expect(event.content.body).toContain("@\u200Broom");
    expect(event.content["m.mentions"]).toEqual({});
    const multiId = await ask([{ ...multi, question: hostile.question }]);
    const message = eventOf(await promptOf(multiId));
    expect(message.content.formatted_body).toContain("&lt;b&gt;bold&lt;/b&gt; &lt;a href=&#39;https://x.example&#39;&gt;link&lt;/a&gt; &amp; more");
    expect(message.content.formatted_body).not.toMatch(/<(?!br>)/u);
    for (const q of [id, multiId]) await rpcOk(h.gatewayUrl(), "question.resolve", { id: q, cancel: true, reason: "cancelled" });
  });

  it("in a room only a reply to the prompt or a message in its thread answers; the reply fallback of older clients is not the answer", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    const prompt = eventOf(copy);
    h.fake.type(h.chat, h.person, "2");
    await sleep(300);
    expect(await status(id)).toBe("pending");
    h.fake.type(h.chat, h.person, "2", { thread: prompt.event_id });
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });

    const next = await ask();
    const nextPrompt = eventOf(await promptOf(next));
    h.fake.type(h.chat, h.person, "staging", { replyTo: nextPrompt.event_id, fallback: `> <${h.fake.botUserId}> Deployment target\n> Where should I deploy?` });
    expect(await result(next)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
  });

  it("a credential is redacted where the bot has the power level; where it has not, the person is told to redact it and rotate it", async () => {
    const id = await ask();
    const prompt = eventOf(await promptOf(id));
    const sent = h.fake.type(h.chat, h.person, "syt_YWRh_abcdefghijklmnopqrst_0A1b2C", { replyTo: prompt.event_id });
    await waitUntil(() => h.fake.event(sent.event_id)?.redactedContent, "the credential redacted");
    expect(h.fake.botEvents(h.chat).some((e) => e.type === "m.room.redaction" && e.redacts === sent.event_id)).toBe(true);
    expect(await status(id)).toBe("pending");

    h.fake.setPowerLevel(h.chat, h.fake.botUserId, 0);
    try {
      const before = h.botReplies(h.chat).length;
      const kept = h.fake.type(h.chat, h.person, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", { replyTo: prompt.event_id });
      const note = await waitUntil(() => h.botReplies(h.chat).slice(before).find((t) => /secrets flow/u.test(t)), "the note");
      expect(note).toMatch(/still visible/u);
      expect(note).toMatch(/rotate/u);
      expect(h.fake.event(kept.event_id)?.redactedContent).toBeUndefined();
    } finally {
      h.fake.setPowerLevel(h.chat, h.fake.botUserId, 50);
    }
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("an encrypted room is refused at once with a delivery_failed that says why", async () => {
    const secret = "!secret:fake.test";
    h.fake.addRoom(secret, [h.person, h.colleague], { encrypted: true });
    const started = Date.now();
    const id = await ask([single], secret);
    const answer = await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 10_000 });
    expect(answer.status).toBe("delivery_failed");
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(answer.reason).toMatch(/encrypted/u);
    const record = await rpcOk(h.gatewayUrl(), "question.get", { id });
    expect(record.targetStates).toEqual([expect.objectContaining({ chat: secret, state: "failed", reason: expect.stringMatching(/end-to-end encrypted room.*does not support encryption/u) })]);
    expect(h.fake.botEvents(secret).filter((e) => e.type !== "m.room.member")).toEqual([]);
  });

  it("a stale vote after the question resolved gets \"already answered\" and changes nothing", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    expect(await h.press(copy, 0, h.person)).toBe("Answer submitted.");
    await summaryOf(copy, /Staging/u);
    // The poll is ended, but a client that missed the end may still send a vote.
    const event = eventOf(copy);
    const vote = h.fake.vote(h.chat, h.colleague, event.event_id, [event.content[MATRIX_POLL_START].answers[1].id]);
    const told = await waitUntil(() => h.replyToEvent(h.chat, vote.event_id), "the answer to the stale vote");
    expect(told.content.body).toBe("This question was already answered.");
    expect((await result(id)).answers.answers.deploy_target).toEqual(["Staging (Recommended)"]);
  });

  it("M_LIMIT_EXCEEDED: the send waits the retry_after_ms the homeserver asks for, then goes through once", async () => {
    h.fake.failNext("send", { status: 429, body: { errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms: 1_500 } });
    const id = await ask();
    await promptOf(id);
    const sends = h.fake.calls.filter((c) => c.method === "PUT" && c.path.includes("/send/"));
    const refused = sends.findLast((c) => c.status === 429)!;
    const next = sends.find((c) => c.atMs >= refused.atMs && c.status === 200)!;
    expect(next.atMs - refused.atMs).toBeGreaterThanOrEqual(1_450);
    expect(h.promptSends(id)).toBe(1);
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("a restart neither loses nor replays: what came while the bot was down (past a limited batch) is handled once, from the saved sync token", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    const earlier = await ask([single], h.otherChat);
    const earlierCopy = await promptOf(earlier, h.otherChat);
    await h.type(h.otherChat, h.person, "1", { replyTo: earlierCopy });
    expect(await result(earlier)).toMatchObject({ status: "answered" });
    await waitUntil(() => h.botReplies(h.otherChat).some((t) => /Recorded: Staging/u.test(t)), "the confirmation");
    const confirmations = () => h.botReplies(h.otherChat).filter((t) => /Recorded: Staging/u.test(t)).length;
    expect(confirmations()).toBe(1);

    let savedToken = "";
    h.fake.setTimelineLimit(3);
    try {
      await h.restartBot(async () => {
        savedToken = JSON.parse(readFileSync(tokenFile(h.dataDir), "utf8")).next_batch;
        // While the bot is down: the answer, then more chatter than one batch holds (the batch comes back limited).
        await h.type(h.chat, h.person, "2", { replyTo: copy });
        for (let i = 0; i < 5; i++) h.fake.type(h.chat, h.colleague, `chatter ${i}`);
      });
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
    } finally {
      h.fake.setTimelineLimit(100);
    }
    const resumed = h.fake.calls.find((c) => c.path.endsWith("/sync") && c.query.since === savedToken);
    expect(resumed).toBeDefined();
    expect(h.fake.calls.some((c) => c.path.includes("/messages"))).toBe(true); // the gap was read back
    await sleep(500);
    // Nothing handled before the restart came again: one confirmation of the earlier answer, one of this one.
    expect(confirmations()).toBe(1);
    expect(h.botReplies(h.chat).filter((t) => /Recorded: Production \(option 2\)/u.test(t)).length).toBeGreaterThanOrEqual(1);
    const recordedHere = h.botReplies(h.chat).filter((t) => /Recorded: Production/u.test(t)).length;
    await h.restartBot();
    await sleep(500);
    expect(h.botReplies(h.chat).filter((t) => /Recorded: Production/u.test(t)).length).toBe(recordedHere);
  });

  it("a user id target is a DM: opened once (marked in m.direct), used again after a restart, any message there answers", async () => {
    const first = await ask([single], h.person.id);
    await promptOf(first, h.person.id);
    const dm = h.fake.dmRoomOf(h.person.id)!;
    expect(dm).toBeDefined();
    await h.restartBot();
    const second = await ask([multi], h.person.id);
    const copy = await promptOf(second, h.person.id);
    expect(copy.ref.startsWith(`${dm}|`)).toBe(true);
    expect(h.fake.calls.filter((c) => c.path.endsWith("/createRoom")).length).toBe(1);
    expect(h.fake.calls.some((c) => c.method === "PUT" && c.path.endsWith("/account_data/m.direct") && JSON.stringify(c.body).includes(dm))).toBe(true);
    // No room hint in a DM, and a plain message answers the latest question there.
    expect(copy.text).not.toContain("In this room");
    h.fake.type(dm, h.person, "lint");
    expect(await result(second)).toMatchObject({ answers: { answers: { checks: ["Lint"] } } });
    await rpcOk(h.gatewayUrl(), "question.resolve", { id: first, cancel: true, reason: "cancelled" });
  });

  it("joins a room an allowed person invites it to, and not one a stranger does", async () => {
    h.fake.invite("!invited:fake.test", h.person);
    h.fake.invite("!lured:fake.test", h.stranger);
    await waitUntil(() => h.fake.isJoined("!invited:fake.test"), "the bot to join the invited room");
    await sleep(300);
    expect(h.fake.isJoined("!lured:fake.test")).toBe(false);
  });

  it("a DM the person opened (an invite marked is_direct) is their DM target: no second room, and it goes into m.direct", async () => {
    const grace = h.colleague;
    h.fake.invite("!gracedm:fake.test", grace, { direct: true });
    await waitUntil(() => h.fake.isJoined("!gracedm:fake.test"), "the bot to join the DM");
    await waitUntil(
      () => h.fake.calls.some((c) => c.method === "PUT" && c.path.endsWith("/account_data/m.direct") && JSON.stringify(c.body).includes("!gracedm:fake.test")),
      "the DM marked in m.direct",
    );
    const rooms = h.fake.calls.filter((c) => c.path.endsWith("/createRoom")).length;
    const id = await ask([single], grace.id);
    const copy = await promptOf(id, grace.id);
    expect(copy.ref.startsWith("!gracedm:fake.test|")).toBe(true);
    expect(h.fake.calls.filter((c) => c.path.endsWith("/createRoom")).length).toBe(rooms);
    h.fake.type("!gracedm:fake.test", grace, "2");
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
  });

  it("Other… names the voter on purpose (a pill and m.mentions), the name made inert, and only the voter's reply to it counts", async () => {
    const room = "!named:fake.test";
    h.fake.addRoom(room, [h.person, { id: h.colleague.id, name: "@room" }, h.stranger]);
    const id = await ask([single], room);
    const prompt = eventOf(await promptOf(id, room));
    const other = prompt.content[MATRIX_POLL_START].answers[2].id;
    const vote = h.fake.vote(room, h.colleague, prompt.event_id, [other]);
    const asked = await waitUntil(() => h.replyToEvent(room, vote.event_id), "the request for own words");
    expect(asked.content.body).toBe("@\u200Broom, Reply with your own answer.");
    expect(asked.content["m.mentions"]).toEqual({ user_ids: [h.colleague.id] });
    expect(asked.content.formatted_body).toBe(`<a href="https://matrix.to/#/${encodeURIComponent(h.colleague.id)}">@\u200Broom</a>, Reply with your own answer.`);
    h.fake.type(room, h.person, "not mine to give", { replyTo: asked.event_id });
    await sleep(300);
    expect(await status(id)).toBe("pending");
    h.fake.type(room, h.colleague, "Canary first", { replyTo: asked.event_id });
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Canary first"] } } });
  });

  it("targets in text form: a room id and a user id with colons, and users", () => {
    expect(parseTarget("matrix:!AbCd:example.org")).toEqual({ ok: true, target: { surface: "matrix", chat: "!AbCd:example.org" } });
    expect(parseTarget("matrix:!AbCd:example.org:8448:@ada:example.org+@grace:example.org")).toEqual({
      ok: true,
      target: { surface: "matrix", chat: "!AbCd:example.org:8448", users: ["@ada:example.org", "@grace:example.org"] },
    });
    expect(parseTarget("matrix:@ada:example.org")).toEqual({ ok: true, target: { surface: "matrix", chat: "@ada:example.org" } });
    expect(parseTarget("matrix:general").ok).toBe(false);
    expect(parseTarget("telegram:-1001:42+77")).toEqual({ ok: true, target: { surface: "telegram", chat: "-1001", users: ["42", "77"] } });
  });

  it("a rejected access token stops the start with a line that says what to do", async () => {
    await expect(startMatrixBot({ ...h.config, MATRIX_ACCESS_TOKEN: "syt_wrong" }, { log: () => {} })).rejects.toThrow(/access token was rejected.*MATRIX_ACCESS_TOKEN/u);
  });
});
