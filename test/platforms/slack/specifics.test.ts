import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk, sleep, ROOT } from "../../helpers/gateway.ts";
import { createSlackHarness, SLACK_TEST_TOKENS, type SlackHarness } from "./harness.ts";
import { postSigned, slackRequestBody, slackSignature } from "./slack-signing.ts";
import { scenarioTools, waitUntil } from "../../scenarios/tools.ts";
import type { PromptCopy } from "../../scenarios/harness.ts";
import { readFileSync } from "node:fs";
import { startSlackBot } from "../../../bots/slack/index.ts";
import { decodeSlackMessageRef, encodeSlackMessageRef } from "../../../bots/slack/adapter.ts";
import { loadConfig } from "../../../src/runtime/config.ts";

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
};

/** The Slack bot in HTTP mode: Bolt's own receiver on a port, verifying every request's signature. */
describe("slack: HTTP mode with signed requests", () => {
  let h: SlackHarness;
  beforeAll(async () => {
    h = await createSlackHarness("http");
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const { result, status, summaryOf } = scenarioTools(() => h);

  /** Everything a forged or stale request could have changed. */
  const snapshot = (copy: PromptCopy) => ({
    calls: h.fake.calls.length,
    ephemerals: h.fake.ephemerals.length,
    views: h.fake.views.length,
    edits: h.message(copy).edits,
  });

  it("listens on the port it was given (0 picks one) and answers Slack's URL verification", async () => {
    expect(h.eventsUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/slack\/events$/);
    const { body, contentType } = slackRequestBody("events_api", { token: "t", challenge: "c-123", type: "url_verification" });
    const res = await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType);
    expect(res.status).toBe(200);
    expect(res.text).toContain("c-123");
  });

  it("a tap answers", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    expect(copy.buttons).toEqual(["Staging (Recommended)", "Production", "Other…", "Skip"]);
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    await summaryOf(copy, /Production — answered in Slack by Ada/);
  });

  it("a typed reply in the prompt's thread answers, and the bot replies in that thread", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.type(h.chat, h.person, "staging", { replyTo: copy });
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    const reply = await waitUntil(() => h.fake.botMessages(h.chat).find((m) => !m.prompt && /Recorded: Staging/.test(m.text)), "the confirmation");
    expect(reply.thread_ts).toBe(h.message(copy).ts);
  });

  it("Other… opens the modal and its submission answers", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.answerOther(copy, h.person, "Canary in eu-west first");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Canary in eu-west first"] } } });
    await summaryOf(copy, /Canary in eu-west first/);
  });

  it("a bad signature gets 401 and changes nothing", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await sleep(100);
    const before = snapshot(copy);
    const press = slackRequestBody("interactive", h.fake.pressPayload(h.message(copy), h.message(copy).sentBlocks![1].elements[0].action_id, h.person).payload);
    const typed = slackRequestBody("events_api", h.fake.typePayload(h.chat, h.person, "2", h.message(copy).ts).payload);
    for (const { body, contentType } of [press, typed]) {
      expect((await postSigned(h.eventsUrl(), "not-the-signing-secret", body, contentType)).status).toBe(401);
      expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType, { signature: "v0=" + "0".repeat(64) })).status).toBe(401);
      // Signed correctly, but for another body (the request was tampered with on the way).
      const ts = Math.floor(Date.now() / 1000);
      const other = slackSignature(SLACK_TEST_TOKENS.signingSecret, ts, body.replace("U0ADA", "U0GRACE"));
      expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType, { timestampSec: ts, signature: other })).status).toBe(401);
    }
    await sleep(300);
    expect(snapshot(copy)).toEqual(before);
    expect(await status(id)).toBe("pending");
    // The same requests, signed properly, go through.
    expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, press.body, press.contentType)).status).toBe(200);
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
  });

  it("a timestamp more than 5 minutes old gets 401 and changes nothing, even when signed", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await sleep(100);
    const before = snapshot(copy);
    const stale = Math.floor(Date.now() / 1000) - 5 * 60 - 10;
    const press = slackRequestBody("interactive", h.fake.pressPayload(h.message(copy), h.message(copy).sentBlocks![1].elements[1].action_id, h.person).payload);
    const typed = slackRequestBody("events_api", h.fake.typePayload(h.chat, h.person, "2", h.message(copy).ts).payload);
    for (const { body, contentType } of [press, typed]) {
      expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType, { timestampSec: stale })).status).toBe(401);
    }
    await sleep(300);
    expect(snapshot(copy)).toEqual(before);
    expect(await status(id)).toBe("pending");
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("acknowledges a press at once even while the gateway is down, then says it was not submitted", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.stopGateway();
    try {
      const before = h.fake.ephemeralsTo(h.person.id).length;
      const started = Date.now();
      const { status } = await h.fake.press(h.message(copy), 0, h.person);
      expect(status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1_000); // Slack allows 3 s
      expect((await h.fake.waitForEphemeral(h.person.id, before, 15_000)).text).toMatch(/^Not submitted: the answer service is unreachable/);
    } finally {
      await h.startGateway();
    }
    expect(await h.press(copy, 0, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered" });
    await summaryOf(copy, /Staging/);
  });
});

const deployQuestion = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};

describe("slack: Socket Mode specifics", () => {
  let h: SlackHarness;
  beforeAll(async () => {
    h = await createSlackHarness("socket");
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const result = (id: string) => rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 });
  const record = (id: string) => rpcOk(h.gatewayUrl(), "question.get", { id });
  const cancel = (id: string) => rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  const summaryOf = (copy: { chat: string; ref: string }, pattern: RegExp) =>
    waitUntil(() => {
      const now = h.copy(copy.chat, copy.ref);
      return pattern.test(now.text) && now.buttons.length === 0 && h.message(now).blocks?.every((b) => b.type !== "actions") && now;
    }, `the copy to read ${pattern}`);

  it("the modal flow: Other… opens a one-field modal with the trigger id, and its submission answers", async () => {
    const id = await h.ask([deployQuestion], { chat: h.chat });
    const copy = await h.promptOf(id);
    const notices = h.privateNotices(h.person).length;
    const { triggerId, status } = await h.fake.press(h.message(copy), copy.buttons.indexOf("Other…"), h.person);
    expect(status).toBe(200);
    const opened = await waitUntil(() => h.fake.views.find((v) => v.trigger_id === triggerId), "views.open");
    expect(opened.view).toMatchObject({ type: "modal", callback_id: "ask_user_other", title: { type: "plain_text" } });
    expect(opened.view.blocks).toHaveLength(1);
    expect(opened.view.blocks[0]).toMatchObject({ type: "input", element: { type: "plain_text_input" }, label: { text: "Where should I deploy?" } });
    expect(JSON.parse(opened.view.private_metadata)).toMatchObject({ q: id, c: h.chat });
    expect((await record(id)).status).toBe("pending");
    expect(h.privateNotices(h.person).length).toBe(notices); // opening the modal says nothing

    // An empty submission is refused privately and changes nothing.
    await h.fake.submitView(opened.view, h.person, "   ");
    expect((await h.fake.waitForEphemeral(h.person.id, notices)).text).toMatch(/Please reply/);
    expect((await record(id)).status).toBe("pending");

    expect(await h.fake.submitView(opened.view, h.person, "Blue-green, then canary")).toBe(200);
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Blue-green, then canary"] } } });
    expect(await record(id)).toMatchObject({ by: { surface: "slack", user: h.person.id, userName: "Ada", via: "modal", chat: h.chat } });
    expect((await h.fake.waitForEphemeral(h.person.id, notices + 1)).text).toBe("✅ Recorded: “Blue-green, then canary” (your own words)");
    await summaryOf(copy, /Blue-green, then canary/);

    // The same modal submitted again (a second tab) is refused.
    await h.fake.submitView(opened.view, h.person, "Production");
    expect((await h.fake.waitForEphemeral(h.person.id, notices + 2)).text).toBe("This question was already answered.");
    expect((await result(id)).answers.answers.deploy_target).toEqual(["Blue-green, then canary"]);
  });

  it("a DM target opens the DM with conversations.open; presses and typed replies there answer", async () => {
    const id = await h.ask([deployQuestion], { chat: h.person.id });
    const copy = await h.promptOf(id, h.person.id);
    const dm = h.fake.dmOf(h.person.id);
    expect(h.fake.calls.some((c) => c.method === "conversations.open" && c.body.users === h.person.id)).toBe(true);
    expect(copy.ref.startsWith(`${dm}:`)).toBe(true);
    expect(copy.buttons).toEqual(["Staging (Recommended)", "Production", "Other…", "Skip"]);
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    await summaryOf(copy, /Production — answered in Slack by Ada/);

    // A second question in the same DM: a plain message (no thread) answers it; the reply stays top-level.
    const second = await h.ask([deployQuestion], { chat: h.person.id });
    await h.promptOf(second, h.person.id);
    await h.type(h.person.id, h.person, "staging");
    expect(await result(second)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    const reply = await waitUntil(() => h.fake.botMessages(dm).find((m) => !m.prompt && /Recorded/.test(m.text)), "the DM confirmation");
    expect(reply.thread_ts).toBeUndefined();
    expect(h.fake.calls.filter((c) => c.method === "conversations.open").length).toBe(1); // the DM channel is remembered
  });

  it("a target that can never receive the prompt fails delivery at once", async () => {
    const started = Date.now();
    const nobody = await h.ask([deployQuestion], { chat: "U0NOBODY" });
    const nowhere = await h.ask([deployQuestion], { chat: "C0NOWHERE" });
    expect(await result(nobody)).toMatchObject({ status: "delivery_failed", reason: expect.stringMatching(/U0NOBODY: (failed: )?user_not_found/) });
    expect(await result(nowhere)).toMatchObject({ status: "delivery_failed", reason: expect.stringMatching(/C0NOWHERE: (failed: )?channel_not_found/) });
    expect(Date.now() - started).toBeLessThan(5_000); // not the 30 s delivery timeout
  });

  it("refusals are ephemeral (chat.postEphemeral to the presser) and change nothing", async () => {
    const id = await h.ask([deployQuestion], { chat: h.chat });
    const copy = await h.promptOf(id);
    const posts = () => h.fake.calls.filter((c) => c.method === "chat.postMessage").length;
    const before = { posts: posts(), edits: h.message(copy).edits };

    expect(await h.press(copy, 0, h.stranger)).toBe("This question is for someone else.");
    expect(await h.pressForged(copy, "garbage", h.person)).toBe("This button is no longer valid.");
    expect(await h.pressForged(copy, { questionId: id, optionIndex: 3 }, h.person)).toBe("This button is no longer valid.");
    const refusals = h.fake.calls.filter((c) => c.method === "chat.postEphemeral").slice(-3);
    expect(refusals.map((c) => [c.body.channel, c.body.user])).toEqual([
      [h.chat, h.stranger.id],
      [h.chat, h.person.id],
      [h.chat, h.person.id],
    ]);
    expect(posts()).toBe(before.posts);
    expect(h.message(copy).edits).toBe(before.edits);
    expect((await record(id)).status).toBe("pending");

    expect(await h.press(copy, 0, h.person)).toBe("Answer submitted.");
    await result(id);
    await summaryOf(copy, /Staging/);
    const edits = h.message(copy).edits;
    expect(await h.press(copy, 1, h.colleague)).toBe("This question was already answered.");
    await sleep(200);
    expect(h.message(copy).edits).toBe(edits);
    expect((await result(id)).answers.answers.deploy_target).toEqual(["Staging (Recommended)"]);
  });

  it("mentions and markup in question text arrive escaped in text and blocks, and never notify", async () => {
    const question = "Ping <!channel> <!here> <@U0GRACE> & <script>alert(1)</script> @channel?";
    const id = await h.ask(
      [{ ...single, question, options: [{ label: "<@U0GRACE> & co", description: "<https://evil.example|click> <!everyone>" }, { label: "B>A" }] }],
      { chat: h.chat },
    );
    const copy = await h.promptOf(id);
    const sent = h.fake.calls.find((c) => c.method === "chat.postMessage" && JSON.stringify(c.body.blocks ?? "").includes(`|${id}|`))!;
    const blocks = JSON.stringify(sent.body.blocks);
    for (const payload of [sent.body.text as string, blocks]) {
      expect(payload).not.toMatch(/<!channel>|<!here>|<!everyone>|<@U0GRACE>|<script>|<https:/);
      expect(payload).toContain("&lt;!channel&gt;");
      expect(payload).toContain("&lt;@U0GRACE&gt;");
      expect(payload).toContain("&amp;");
      expect(payload).toContain("&lt;script&gt;");
      expect(payload).not.toMatch(/(^|[^\u200B])@channel\?/u);
    }
    expect(sent.body.text).not.toMatch(/[<>]/);
    for (const block of sent.body.blocks.filter((b: any) => b.type === "section")) expect(block.text).toMatchObject({ type: "mrkdwn", verbatim: true });
    expect(sent.body.link_names).toBeUndefined();

    // Own words with markup are recorded as typed, and the summary and confirmation escape them.
    await h.answerOther(copy, h.person, "<!channel> go & <b>ship</b>");
    expect((await result(id)).answers.answers.deploy_target).toEqual(["<!channel> go & <b>ship</b>"]);
    const summary = await summaryOf(copy, /go &amp; &lt;b&gt;ship/);
    expect(summary.text).not.toMatch(/<!channel>|<b>/);
    expect(h.privateNotices(h.person).at(-1)).toBe("✅ Recorded: “&lt;!channel&gt; go &amp; &lt;b&gt;ship&lt;/b&gt;” (your own words)");
  });

  it("typed text arrives in Slack's markup and is read as the person wrote it", async () => {
    const id = await h.ask([deployQuestion], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.type(h.chat, h.person, "Blue & <green>, see <https://x.example|the plan>", { replyTo: copy });
    expect((await result(id)).answers.answers.deploy_target).toEqual(["Blue & <green>, see <https://x.example|the plan>"]);
    // The fake escapes `<` like Slack, so the link markup above stays literal text; a real link decodes to its label:
    const second = await h.ask([deployQuestion], { chat: h.chat });
    const secondCopy = await h.promptOf(second);
    const { payload } = h.fake.typePayload(h.chat, h.person, "");
    (payload.event as any).text = "Canary via <https://plan.example/x|the plan> for <@U0GRACE>";
    (payload.event as any).thread_ts = h.message(secondCopy).ts;
    await h.fake.deliver("events_api", payload);
    expect((await result(second)).answers.answers.deploy_target).toEqual(["Canary via the plan for @U0GRACE"]);
    const reply = await waitUntil(() => h.botReplies(h.chat).find((t) => t.includes("Canary via")), "the confirmation");
    expect(reply).not.toMatch(/[<>]/);
  });

  it("ignores bot messages, edits and other subtypes", async () => {
    const id = await h.ask([deployQuestion], { chat: h.chat });
    const copy = await h.promptOf(id);
    const ts = h.message(copy).ts;
    const base = { type: "message", channel: h.chat, text: "2", thread_ts: ts, channel_type: "channel" };
    await h.fake.deliver("events_api", h.fake.eventCallback({ ...base, user: h.person.id, ts: "1.000001", subtype: "message_changed" }));
    await h.fake.deliver("events_api", h.fake.eventCallback({ ...base, user: "U0OTHERBOT", bot_id: "B0OTHER", ts: "1.000002" }));
    await h.fake.deliver("events_api", h.fake.eventCallback({ ...base, user: h.person.id, ts: "1.000003", subtype: "channel_join" }));
    await sleep(300);
    expect((await record(id)).status).toBe("pending");
    expect(h.botReplies(h.chat).filter((t) => /Recorded/.test(t) && t.includes("Production"))).toEqual([]);
    await cancel(id);
  });

  it("a credential the bot may not delete is refused, and the person told privately that it is still visible, to delete it and rotate it", async () => {
    h.fake.allowDeletingOthers(false);
    try {
      const id = await h.ask([deployQuestion], { chat: h.chat });
      const copy = await h.promptOf(id);
      const replies = h.botReplies(h.chat).length;
      const notices = h.privateNotices(h.person).length;
      const sent = await h.type(h.chat, h.person, "xoxb-1234567890-abcdefghijklmnopqrstuv", { replyTo: copy });
      const note = (await h.fake.waitForEphemeral(h.person.id, notices)).text;
      expect(note).toMatch(/still visible/);
      expect(note).toMatch(/delete it/);
      expect(note).toMatch(/rotate/);
      expect(note).toMatch(/secrets flow/);
      expect(h.fake.calls.some((c) => c.method === "chat.delete")).toBe(true);
      expect(sent.deleted()).toBe(false);
      await sleep(200);
      expect(h.botReplies(h.chat).length).toBe(replies); // nothing said in the channel
      expect(JSON.stringify(await record(id))).not.toContain("abcdefghijklmnop");
      await cancel(id);
    } finally {
      h.fake.allowDeletingOthers(true);
    }
  });

  it("a 429 waits for Retry-After before the web client retries", async () => {
    h.rateLimitNextSend(1);
    const id = await h.ask([deployQuestion], { chat: h.chat });
    await h.promptOf(id);
    const sends = h.fake.calls.filter((c) => c.method === "chat.postMessage" && JSON.stringify(c.body.blocks ?? "").includes(`|${id}|`));
    expect(sends.map((c) => Boolean(c.failed))).toEqual([true, false]);
    expect(sends[1]!.atMs - sends[0]!.atMs).toBeGreaterThanOrEqual(1_000);
    await cancel(id);
  });
});

describe("slack: configuration", () => {
  const base = { GATEWAY_URL: "http://127.0.0.1:9", GATEWAY_TOKEN: "x".repeat(32) };
  it("requires the bot token, and the signing secret without an app token", async () => {
    await expect(startSlackBot(loadConfig(base), { log: () => {} })).rejects.toThrow(/SLACK_BOT_TOKEN/);
    await expect(startSlackBot(loadConfig({ ...base, SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot }), { log: () => {} })).rejects.toThrow(/SLACK_SIGNING_SECRET/);
  });

  it("the app manifest asks for the scopes and events the bot uses, with interactivity and Socket Mode", () => {
    const manifest = readFileSync(`${ROOT}/slack-app-manifest.yaml`, "utf8");
    /** The `- item` lines right under `section:`. */
    const listed = (section: string) => {
      const lines = manifest.split("\n");
      const start = lines.findIndex((l) => l.trim() === `${section}:`);
      const items: string[] = [];
      for (const line of lines.slice(start + 1)) {
        const item = /^\s+- ([\w.:]+)/.exec(line);
        if (!item) break;
        items.push(item[1]!);
      }
      return items;
    };
    expect(listed("bot")).toEqual(["chat:write", "im:write", "im:history", "channels:history", "groups:history", "users:read", "reactions:write"]);
    expect(listed("bot_events")).toEqual(["message.channels", "message.groups", "message.im"]);
    expect(manifest).toMatch(/interactivity:\n\s+is_enabled: true/);
    expect(manifest).toMatch(/^\s+socket_mode_enabled: true$/m);
    expect(manifest).toMatch(/messages_tab_enabled: true/);
  });
});

describe("slack: pure helpers", () => {
  it("message refs round-trip", () => {
    expect(decodeSlackMessageRef(encodeSlackMessageRef("D0ADA", "1700000000.000100"))).toEqual({ channel: "D0ADA", ts: "1700000000.000100" });
    for (const bad of ["", ":1.2", "C1:", "nocolon"]) expect(decodeSlackMessageRef(bad)).toBeNull();
  });
});
