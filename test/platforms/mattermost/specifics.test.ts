import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeMattermostMessageRef, encodeMattermostMessageRef } from "../../../bots/mattermost/adapter.ts";
import { startMattermostBot } from "../../../bots/mattermost/index.ts";
import { createSigner, deriveActionKey } from "../../../bots/mattermost/signing.ts";
import { BotStopError } from "../../../src/kernel/errors.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { decodeMattermostDialogState } from "../../../src/platforms/mattermost/modal.ts";
import { encodeMattermostCallback } from "../../../src/platforms/mattermost/callback-data.ts";
import { toMattermostText } from "../../../src/platforms/mattermost/escaping.ts";
import { rpcOk, sleep, spawnCli, startTestGateway, TOKEN } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { startFakeMattermost } from "./fake-api.ts";
import { createMattermostHarness, MATTERMOST_TEST_TOKEN, shown, type MattermostHarness } from "./harness.ts";

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};

describe("mattermost: specifics", () => {
  let h: MattermostHarness;
  beforeAll(async () => {
    // The System Admin role: the dialog's notes below are ephemeral (default-role.test.ts has a bot without it).
    h = await createMattermostHarness({ systemAdmin: true });
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
      return pattern.test(now.text) && now.buttons.length === 0 && (h.post(now).props.attachments ?? []).length === 0 && now;
    }, `the copy to read ${pattern}`);
  const userOf = (who: { id: string }) => h.fake.user(who.id)!;

  it("the prompt: one attachment of actions calling the actions URL, each with a signed context naming the question, never the label", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const post = h.post(copy);
    expect(post.props.ask_user_question).toBe(id);
    expect(post.props.attachments).toHaveLength(1);
    const actions = post.props.attachments[0].actions;
    expect(actions.map((a: any) => [a.id, a.name])).toEqual([
      ["opt0", "Staging (Recommended)"],
      ["opt1", "Production"],
      ["other", "Other…"],
      ["skip", "Skip"],
    ]);
    for (const action of actions) {
      expect(action.integration.url).toBe(`http://127.0.0.1:${h.bot().port}/mattermost/actions`);
      expect(action.integration.context).toEqual({ d: expect.stringContaining(`|${id}|`), c: h.chat, s: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(JSON.stringify(action.integration.context)).not.toContain("Staging");
    }
    expect(shown(post.message)).toContain("In this channel, a typed answer counts only in this message's thread.");
    await cancel(id);
  });

  it("a press whose context is forged or altered, moved to another post, or on a post that is not the prompt is refused and changes nothing", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const elsewhere = await h.ask([single], { chat: h.otherChat });
    const otherCopy = await h.promptOf(elsewhere, h.otherChat);
    const [first, second] = h.fake.actionsOf(h.post(copy));
    const refused = "This button is no longer valid.";
    const press = async (postId: string, context: unknown, postIdSent?: string) =>
      (await h.fake.press(postId, 0, userOf(h.person), { context, ...(postIdSent ? { postId: postIdSent } : {}) })).ephemeral;

    // The option changed under the first option's signature.
    expect(await press(h.post(copy).id, { ...first.integration.context, d: second.integration.context.d })).toBe(refused);
    // Another chat named under its signature.
    expect(await press(h.post(copy).id, { ...first.integration.context, c: h.otherChat })).toBe(refused);
    // Signed with another key (a bot with another token).
    const stranger = createSigner(deriveActionKey("someoneelsestoken000000000"));
    const d = first.integration.context.d;
    expect(await press(h.post(copy).id, { d, c: h.chat, s: stranger.text(stranger.pressText(d, h.chat, h.chat)) })).toBe(refused);
    // A valid context of one channel's prompt, pressed on the other channel's prompt.
    expect(await press(h.post(otherCopy).id, first.integration.context)).toBe(refused);
    // A valid context sent with a post id that is not the prompt: a person's message in the same channel.
    const { post: chatter } = h.fake.type(h.chat, userOf(h.person), "hello");
    expect(await press(h.post(copy).id, first.integration.context, chatter.id)).toBe(refused);
    await sleep(200);
    expect((await record(id)).status).toBe("pending");
    expect((await record(elsewhere)).status).toBe("pending");
    expect(h.post(copy).edits).toBe(0);

    // The genuine press still answers, and tells the presser in the action's response.
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
    await cancel(elsewhere);
  });

  it("a post the bot sent before a restart is checked against the server: the prompt's post passes, a look-alike does not", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.restartBot();
    const before = h.fake.calls.filter((c) => c.method === "GET" && c.path === `/api/v4/posts/${h.post(copy).id}`).length;
    expect(await h.press(copy, 0, h.person)).toBe("Answer submitted.");
    expect(h.fake.calls.filter((c) => c.method === "GET" && c.path === `/api/v4/posts/${h.post(copy).id}`).length).toBe(before + 1);
    await summaryOf(copy, /Staging/);
  });

  it("Other… opens a one-field dialog with the trigger id; submitting it answers; another person's submission of it is refused", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const notices = h.privateNotices(h.person).length;
    const pressed = await h.fake.press(h.post(copy).id, copy.buttons.indexOf("Other…"), userOf(h.person));
    expect(pressed.ephemeral).toBeUndefined(); // opening the dialog says nothing
    const opened = await waitUntil(() => h.fake.dialogs.find((d) => d.trigger_id === pressed.triggerId), "dialogs/open");
    expect(opened.url).toBe(`http://127.0.0.1:${h.bot().port}/mattermost/dialog`);
    expect(opened.dialog).toMatchObject({ callback_id: "ask_user_other", submit_label: "Submit", elements: [{ type: "textarea", name: "answer", help_text: "Where should I deploy?" }] });
    expect(decodeMattermostDialogState(opened.dialog.state)).toMatchObject({ questionId: id, chat: h.chat, channel: h.chat, user: h.person.id });

    // The same dialog submitted as someone else, or with its state altered, records nothing.
    expect(await h.fake.submitDialog(opened, userOf(h.colleague), "Hijacked")).toBe(200);
    const altered = { ...opened, dialog: { ...opened.dialog, state: opened.dialog.state.replace(h.person.id, h.colleague.id) } };
    expect(await h.fake.submitDialog(altered, userOf(h.colleague), "Hijacked")).toBe(200);
    await sleep(200);
    expect((await record(id)).status).toBe("pending");

    // An empty submission is refused privately and changes nothing.
    await h.fake.submitDialog(opened, userOf(h.person), "   ");
    expect(await waitUntil(() => h.privateNotices(h.person)[notices], "the refusal")).toMatch(/Please reply/);
    expect((await record(id)).status).toBe("pending");

    expect(await h.fake.submitDialog(opened, userOf(h.person), "Blue-green, then canary")).toBe(200);
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Blue-green, then canary"] } } });
    expect(await record(id)).toMatchObject({ by: { surface: "mattermost", user: h.person.id, userName: "Ada", via: "modal", chat: h.chat } });
    expect(await waitUntil(() => h.privateNotices(h.person)[notices + 1], "the confirmation")).toBe(toMattermostText("✅ Recorded: “Blue-green, then canary” (your own words)"));
    await summaryOf(copy, /Blue-green, then canary/);
  });

  it("in a channel only a reply in the prompt's thread answers, and the confirmation goes in that thread", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.type(h.chat, h.person, "2"); // top level: chatter
    await sleep(300);
    expect((await record(id)).status).toBe("pending");
    await h.type(h.chat, h.person, "2", { replyTo: copy });
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
    const reply = await waitUntil(() => h.fake.botPosts(h.chat).find((p) => p.root_id === h.post(copy).id && /Recorded: Production/.test(p.message)), "the confirmation in the thread");
    expect(reply.root_id).toBe(h.post(copy).id);
  });

  it("mattermost:@username is the DM: opened once, no thread hint, any message there answers, the confirmation stays top level", async () => {
    const id = await h.ask([single], { chat: "@ada" });
    const copy = await h.promptOf(id, "@ada");
    const dm = h.fake.dmOf(h.person.id);
    expect(copy.ref.startsWith(`${dm}:`)).toBe(true);
    expect(h.fake.calls.some((c) => c.path === "/api/v4/users/username/ada")).toBe(true);
    expect(copy.text).not.toMatch(/thread/);
    await h.type("@ada", h.person, "staging");
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    const reply = await waitUntil(() => h.fake.botPosts(dm).find((p) => /Recorded/.test(p.message)), "the DM confirmation");
    expect(reply.root_id).toBe("");

    // After a restart a DM message still finds an @username question.
    const second = await h.ask([single], { chat: "@ada" });
    await h.promptOf(second, "@ada");
    await h.restartBot();
    await h.type("@ada", h.person, "2");
    expect(await result(second)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
    expect(h.fake.calls.filter((c) => c.path === "/api/v4/channels/direct").length).toBeGreaterThanOrEqual(1);
  });

  it("a DM targeted by the person's id: after a restart its copy keeps the DM's text, and a typed reply there still answers", async () => {
    const id = await h.ask([single], { chat: h.person.id });
    const copy = await h.promptOf(id, h.person.id);
    expect(copy.text).not.toMatch(/thread/);
    await h.restartBot();
    await sleep(500);
    expect(h.copy(copy.chat, copy.ref).text).not.toMatch(/thread/);
    await h.type(h.person.id, h.person, "2");
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
  });

  it("a dropped WebSocket is reconnected (with its authentication challenge), and typed replies arrive again", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    h.fake.dropSockets();
    await waitUntil(() => h.fake.socketCount() > 0, "the bot to reconnect");
    await h.type(h.chat, h.person, "2", { replyTo: copy });
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
  });

  it("@channel, @here, @all and mentions in quoted text are inert, and Markdown stays literal", async () => {
    const question = "Ping @channel @here @all @grace about **prod** [x](https://e.x) <b>?";
    const id = await h.ask([{ ...single, question, options: [{ label: "@grace & co" }, { label: "B" }] }], { chat: h.chat });
    const copy = await h.promptOf(id);
    const message = h.post(copy).message;
    for (const word of ["channel", "here", "all", "grace"]) {
      expect(message).toContain(`@\u200B${word}`);
      expect(message).not.toMatch(new RegExp(`@${word}`));
    }
    expect(message).toContain("\\*\\*prod\\*\\*");
    expect(message).toContain("\\[x\\](https://e.x)");
    expect(message).toContain("\\<b\\>");
    expect(toMattermostText("ada@example.com")).toBe("ada@example.com");
    // Own words with mentions are recorded as typed; the confirmation and the summary defuse them.
    await h.answerOther(copy, h.person, "@channel ship it, @grace");
    expect((await result(id)).answers.answers.deploy_target).toEqual(["@channel ship it, @grace"]);
    const summary = await summaryOf(copy, /ship it/);
    expect(h.post(summary).message).not.toMatch(/@(channel|grace)/);
  });

  it("a stale press gets an ephemeral 'already answered'; once edited the post holds no actions, so the server has nothing to press", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    expect(await h.press(copy, 0, h.person)).toBe("Answer submitted.");
    await summaryOf(copy, /Staging/);
    const edits = h.post(copy).edits;
    expect(await h.press(copy, 1, h.colleague)).toBe("This question was already answered.");
    expect((await h.fake.press(h.post(copy).id, 1, userOf(h.colleague), { strict: true })).called).toBe(false);
    await sleep(200);
    expect(h.post(copy).edits).toBe(edits);
  });

  it("a target that can never receive fails at once: a channel the bot is not in, an unknown @username, an unknown id", async () => {
    const started = Date.now();
    const closed = await h.ask([single], { chat: "closedchan0000000000000000" });
    const nobody = await h.ask([single], { chat: "@nobody" });
    const unknown = await h.ask([single], { chat: "unknownid00000000000000000" });
    for (const q of [closed, nobody, unknown]) expect(await result(q)).toMatchObject({ status: "delivery_failed" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a 429 waits for its Retry-After inside the call, then the prompt goes out once", async () => {
    h.rateLimitNextSend(1);
    const id = await h.ask([single], { chat: h.chat });
    await h.promptOf(id);
    const sends = h.fake.calls.filter((c) => c.method === "POST" && c.path === "/api/v4/posts" && c.body?.props?.ask_user_question === id);
    expect(sends.map((c) => c.failed)).toEqual([true, false]);
    expect(sends[1]!.atMs - sends[0]!.atMs).toBeGreaterThanOrEqual(990);
    expect(h.promptSends(id)).toBe(1);
    await cancel(id);
  });

  it("the client keeps to the server's rate limit from its X-RateLimit headers: a burst arrives whole, each prompt once", async () => {
    h.fake.setRateLimit({ perSecond: 20, burst: 5 });
    try {
      const refusedBefore = h.fake.refused();
      const ids = await Promise.all(Array.from({ length: 15 }, () => h.ask([single], { chat: h.otherChat })));
      await Promise.all(ids.map((id) => h.promptOf(id, h.otherChat)));
      for (const id of ids) expect(h.promptSends(id)).toBe(1);
      // The first responses teach the limit; after them the client waits instead of being refused.
      expect(h.fake.refused() - refusedBefore).toBeLessThanOrEqual(5);
      await Promise.all(ids.map(cancel));
    } finally {
      h.fake.setRateLimit({ perSecond: 10, burst: 100 });
    }
  });
});

describe("mattermost: configuration and start", () => {
  const base = { GATEWAY_URL: "http://127.0.0.1:9", GATEWAY_TOKEN: "x".repeat(32) };
  it("requires the server URL and the bot token", async () => {
    await expect(startMattermostBot(loadConfig(base), { log: () => {} })).rejects.toThrow(/MATTERMOST_URL/);
    await expect(startMattermostBot(loadConfig({ ...base, MATTERMOST_URL: "http://127.0.0.1:9" }), { log: () => {} })).rejects.toThrow(/MATTERMOST_BOT_TOKEN/);
  });

  it("a rejected token stops the bot for good, by name", async () => {
    const fake = await startFakeMattermost({ token: MATTERMOST_TEST_TOKEN, people: [], channels: [] });
    try {
      const started = startMattermostBot(loadConfig({ ...base, MATTERMOST_URL: fake.url, MATTERMOST_BOT_TOKEN: "wrongtoken0000000000000000" }), { log: () => {} });
      await expect(started).rejects.toBeInstanceOf(BotStopError);
      await expect(started).rejects.toThrow(/token was rejected \(401\): check MATTERMOST_BOT_TOKEN/);
    } finally {
      await fake.close();
    }
  });
});

describe("mattermost: the CLI's bot", () => {
  it("`ask-user-bridge bot mattermost` loads the bot under plain Node and exits 78 with one line when the token is rejected", async () => {
    const gateway = await startTestGateway();
    const fake = await startFakeMattermost({ token: MATTERMOST_TEST_TOKEN, people: [], channels: [] });
    try {
      const run = await spawnCli(["bot", "mattermost"], { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, MATTERMOST_URL: fake.url, MATTERMOST_BOT_TOKEN: "revokedtoken00000000000000" }, { timeoutMs: 30_000 }).exited;
      expect({ code: run.code, fatal: run.stdout.match(/"level":"fatal".*"msg":"([^"]+)"/u)?.[1] }).toEqual({ code: 78, fatal: "mattermost: the token was rejected (401): check MATTERMOST_BOT_TOKEN" });
      expect(run.stdout + run.stderr).not.toContain("revokedtoken00000000000000");
    } finally {
      await Promise.all([fake.close(), gateway.close()]);
    }
  });
});

describe("mattermost: pure helpers", () => {
  it("message refs round-trip", () => {
    expect(decodeMattermostMessageRef(encodeMattermostMessageRef("chan", "post"))).toEqual({ channel: "chan", postId: "post" });
    for (const bad of ["", ":p", "c:", "nocolon"]) expect(decodeMattermostMessageRef(bad)).toBeNull();
  });

  it("the signing key is derived from the token: the same for the same token, another for another", () => {
    const d = encodeMattermostCallback({ questionId: "q1", action: { kind: "skip" } });
    const a = createSigner(deriveActionKey("tokena"));
    const again = createSigner(deriveActionKey("tokena"));
    const b = createSigner(deriveActionKey("tokenb"));
    const text = a.pressText(d, "chat", "chan");
    expect(again.verify(text, a.text(text))).toBe(true);
    expect(b.verify(text, a.text(text))).toBe(false);
    expect(a.verify(text, undefined)).toBe(false);
    expect(a.verify(text, "short")).toBe(false);
  });

  it("dialog state decodes to null for anything off", () => {
    for (const bad of [undefined, 3, "", "{", "[]", JSON.stringify({ q: "q", c: "c", ch: "ch", u: "u" }), "x".repeat(4000)]) expect(decodeMattermostDialogState(bad)).toBeNull();
  });

  it("escaping: Markdown and mentions are made literal; plain text stays readable", () => {
    expect(toMattermostText("@channel hi @ada_b")).toBe("@\u200Bchannel hi @\u200Bada\\_b");
    expect(toMattermostText("# h\n- a\n1. b\n> q")).toBe("\\# h\n\\- a\n1\\. b\n\\> q");
    expect(toMattermostText("Answer submitted.")).toBe("Answer submitted.");
  });
});
