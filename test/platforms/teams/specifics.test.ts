import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTeamsBot } from "../../../bots/teams/index.ts";
import { TEAMS_REFERENCES_DIR } from "../../../bots/teams/references.ts";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/bot-scenarios.ts";
import { cardButtons, createTeamsHarness, TEAMS_GROUP_CHAT, TEAMS_TEST_PACE, teamsTestLog, type TeamsHarness } from "./harness.ts";

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};

describe("teams: specifics", () => {
  let h: TeamsHarness;
  beforeAll(async () => {
    h = await createTeamsHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const result = (id: string) => rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 });
  const status = async (id: string) => (await rpcOk(h.gatewayUrl(), "question.get", { id })).status as string;
  const cancel = (id: string) => rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });

  it.each([
    ["unsigned", "none"],
    ["signed with a key the tenant never published", "forged"],
    ["for another app", "wrong-audience"],
    ["expired", "expired"],
  ] as const)("an activity %s is refused with 401: nothing is answered, no reference kept", async (_what, signing) => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const data = h.message(copy).card.actions[1].data;
    expect(await h.fake.submit(h.message(copy), h.person.id, data, signing)).toBe(401);
    const typed = await h.fake.type(h.chat, h.person.id, "1", { threadRoot: copy.ref, signing });
    expect(typed.status).toBe(401);
    // A new conversation, installed with a bad token: the bot keeps no reference, so it cannot be targeted.
    h.fake.addConversation({ id: `19:sneaky-${signing}@thread.tacv2`, type: "channel" });
    expect(await h.fake.install(`19:sneaky-${signing}@thread.tacv2`, signing)).toBe(401);
    await sleep(200);
    expect(await status(id)).toBe("pending");
    const sneaky = await h.ask([single], { chat: `19:sneaky-${signing}@thread.tacv2` });
    expect(await result(sneaky)).toMatchObject({ status: "delivery_failed" });
    await cancel(id);
  });

  it("an activity whose serviceUrl is on another host than the one its token was issued for is refused (400), and its conversation is not kept", async () => {
    const rogue = "19:rogue@thread.tacv2";
    h.fake.addConversation({ id: rogue, type: "channel" });
    const install = { type: "conversationUpdate", id: "9990001", channelId: "msteams", serviceUrl: "http://localhost:9/elsewhere/", from: { id: `29:${h.person.id}`, aadObjectId: h.person.id }, recipient: h.fake.botAccount, conversation: { id: rogue, conversationType: "channel", tenantId: h.fake.tenantId }, membersAdded: [h.fake.botAccount] };
    expect(await h.fake.deliver(install, "valid", { serviceUrlClaim: h.fake.origin })).toBe(400);
    expect(await result(await h.ask([single], { chat: rogue }))).toMatchObject({ status: "delivery_failed", reason: expect.stringMatching(/no conversation reference/) });
  });

  it("an activity from another tenant is ignored: no reference is kept", async () => {
    const foreign = "19:other-tenant@thread.tacv2";
    const install = { type: "conversationUpdate", id: "9990002", channelId: "msteams", serviceUrl: h.fake.origin, from: { id: `29:${h.person.id}`, aadObjectId: h.person.id }, recipient: h.fake.botAccount, conversation: { id: foreign, conversationType: "channel", tenantId: "11111111-2222-3333-4444-555555555555" }, membersAdded: [h.fake.botAccount] };
    expect(await h.fake.deliver(install)).toBe(200);
    await sleep(100);
    expect(await result(await h.ask([single], { chat: foreign }))).toMatchObject({ status: "delivery_failed" });
  });

  it("a target without a conversation reference fails at once, saying to install the app or message the bot first", async () => {
    const started = Date.now();
    const nowhere = await h.ask([single], { chat: "19:never-installed@thread.tacv2" });
    const nobody = await h.ask([single], { chat: "0d0d0d0d-0000-4000-8000-00000000dead" });
    for (const [id, chat] of [
      [nowhere, "19:never-installed@thread.tacv2"],
      [nobody, "0d0d0d0d-0000-4000-8000-00000000dead"],
    ] as const) {
      const answer = await result(id);
      expect(answer.status).toBe("delivery_failed");
      expect(answer.reason).toContain(chat);
      expect(answer.reason).toMatch(/no conversation reference.*Install the app.*message the bot first/su);
    }
    expect(Date.now() - started).toBeLessThan(5_000); // not the 30 s delivery timeout
    expect(h.fake.calls.filter((c) => c.path.includes("never-installed"))).toEqual([]);
  });

  it("a personal chat is targeted by the person's object id; its conversation id is refused with a hint", async () => {
    const id = await h.ask([single], { chat: h.person.id });
    const copy = await h.promptOf(id, h.person.id);
    expect(h.message(copy).conversation).toBe(h.fake.personalOf(h.person.id));
    // No hint in a personal chat: any message of the person's answers there.
    expect(copy.text).not.toMatch(/In this (channel|group)/u);
    await h.type(h.person.id, h.person, "Production");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });

    const byConversation = await h.ask([single], { chat: h.fake.personalOf(h.person.id) });
    expect(await result(byConversation)).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining(`teams:${h.person.id}`) });
  });

  it("references survive a restart, and a second bot process on the same DATA_DIR finds what the first captured", async () => {
    const files = readdirSync(join(h.config.DATA_DIR, TEAMS_REFERENCES_DIR));
    expect(files.length).toBeGreaterThanOrEqual(4); // two channels, a group chat, personal chats (and their people)
    for (const file of files) expect(statSync(join(h.config.DATA_DIR, TEAMS_REFERENCES_DIR, file)).mode & 0o077).toBe(0);
    expect(statSync(join(h.config.DATA_DIR, TEAMS_REFERENCES_DIR)).mode & 0o077).toBe(0);
    expect(files.every((f) => f.endsWith(".json"))).toBe(true); // no temporary file left behind

    // While the bot is down, a new channel installs the app… to a second bot process sharing DATA_DIR.
    const late = "19:installed-later@thread.tacv2";
    h.fake.addConversation({ id: late, type: "channel" });
    await h.restartBot(async () => {
      const second = await startTeamsBot(h.config, { log: teamsTestLog(), pace: TEAMS_TEST_PACE });
      h.fake.useBot(`http://127.0.0.1:${second.port}/api/messages`);
      expect(await h.fake.install(late)).toBe(200);
      await second.stop();
    });
    // The restarted bot delivers to the old chats (from disk) and to the one the other process captured.
    const old = await h.ask([single], { chat: h.chat });
    const fresh = await h.ask([single], { chat: late });
    const oldCopy = await h.promptOf(old);
    const freshCopy = await h.promptOf(fresh, late);
    expect(freshCopy.buttons).toEqual(["Staging (Recommended)", "Production", "Other…", "Skip"]);
    expect(await h.press(freshCopy, 0, h.person)).toBe("Answer submitted.");
    expect(await result(fresh)).toMatchObject({ status: "answered" });
    await cancel(old);
    await waitUntil(() => h.copy(oldCopy.chat, oldCopy.ref).buttons.length === 0, "the old copy's summary");
  });

  it("in a channel: a reply in the prompt's thread answers, a new post does not, a new post that @mentions the bot does (mention stripped)", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.fake.type(h.chat, h.person.id, "2");
    await sleep(300);
    expect(await status(id)).toBe("pending");
    const mentioned = await h.fake.type(h.chat, h.person.id, "Production", { mention: true });
    expect(mentioned.activity.text).toBe("<at>Ask Bot</at> Production");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    // The confirmation is in the thread of the person's post.
    await waitUntil(() => h.fake.botMessages(h.chat).find((m) => m.threadRoot === mentioned.message.id && /Recorded: Production/.test(m.text ?? "")), "the confirmation in the post's thread");
    await waitUntil(() => h.copy(copy.chat, copy.ref).buttons.length === 0, "the summary");
  });

  it("in a group chat: a quoted reply to the prompt answers, chatter does not, an @mention does; the hint says so", async () => {
    const id = await h.ask([single], { chat: TEAMS_GROUP_CHAT });
    const copy = await h.promptOf(id, TEAMS_GROUP_CHAT);
    expect(copy.text).toContain("In this group, a typed answer counts only as a reply to this message. Or @mention me with it.");
    await h.fake.type(TEAMS_GROUP_CHAT, h.person.id, "1");
    await sleep(300);
    expect(await status(id)).toBe("pending");
    await h.fake.type(TEAMS_GROUP_CHAT, h.person.id, "Staging", { replyToId: copy.ref });
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });

    const second = await h.ask([single], { chat: TEAMS_GROUP_CHAT });
    await h.promptOf(second, TEAMS_GROUP_CHAT);
    await h.fake.type(TEAMS_GROUP_CHAT, h.person.id, "own words from a mention", { mention: true });
    expect(await result(second)).toMatchObject({ answers: { answers: { deploy_target: ["own words from a mention"] } } });
  });

  it("a stranger's press and message record nothing; their message gets no mark (a Teams bot cannot react)", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    expect(await h.press(copy, 0, h.stranger)).toBe("This question is for someone else.");
    const before = h.botReplies(h.chat).length;
    await h.fake.type(h.chat, h.stranger.id, "2", { threadRoot: copy.ref });
    await h.fake.type(h.chat, h.stranger.id, "2", { mention: true });
    await sleep(400);
    expect(h.botReplies(h.chat).length).toBe(before);
    expect(await status(id)).toBe("pending");
    await cancel(id);
  });

  it("Other… is a ShowCard with one text field submitted in the card; an empty one is refused and changes nothing", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const other = h.message(copy).card.actions[2];
    expect(other).toMatchObject({ type: "Action.ShowCard", title: "Other…", card: { type: "AdaptiveCard", body: [{ type: "Input.Text", id: "ask_user_answer", isMultiline: true }] } });
    expect(other.card.actions).toEqual([{ type: "Action.Submit", title: "Send", data: { ask_user: `a1|${id}|o` } }]);
    expect(await h.submitAndWait(copy, { ask_user: `a1|${id}|o`, ask_user_answer: "   " }, h.person)).toMatch(/Please reply/);
    expect(await status(id)).toBe("pending");
    expect(await h.submitAndWait(copy, { ask_user: `a1|${id}|o`, ask_user_answer: "Blue-green" }, h.person)).toBe("✅ Recorded: “Blue-green” (your own words)");
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Blue-green"] } } });
    expect(await h.submitAndWait(copy, { ask_user: `a1|${id}|o`, ask_user_answer: "again" }, h.person)).toBe("This question was already answered.");
  });

  it("issue 37 §11: the Other… field's label breaks a broadcast mention as the card's text does (it was the raw question)", async () => {
    const loud = { ...single, question: "Deploy now? @channel @everyone say *yes*" };
    const id = await h.ask([loud], { chat: h.chat });
    const copy = await h.promptOf(id);
    const card = h.message(copy).card;
    const label: string = card.actions[2].card.body[0].label;
    // What Teams shows above the field: no @channel or @everyone left to highlight, and no markdown escapes to read.
    expect(label).toBe("Deploy now? @\u200Bchannel @\u200Beveryone say *yes*");
    expect(label).not.toMatch(/@(channel|everyone)/u);
    expect(JSON.stringify(card)).not.toMatch(/@(channel|everyone)/u);
    await cancel(id);
  });

  it("a credential typed into Other…'s field is refused; the words were never posted, so nothing is left to delete", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const told = await h.submitAndWait(copy, { ask_user: `a1|${id}|o`, ask_user_answer: "sk-live_abcdefghijklmnopqrstuvwx1234" }, h.person);
    expect(told).toMatch(/secrets flow/);
    expect(told).not.toMatch(/still visible/);
    expect(await status(id)).toBe("pending");
    expect(JSON.stringify(await rpcOk(h.gatewayUrl(), "question.get", { id }))).not.toContain("abcdefghijklmnop");
    await cancel(id);
  });

  it("a token the bot cannot get is said at start, by what to check, and the bot keeps running", async () => {
    const logged: string[] = [];
    const broken = await startTeamsBot({ ...h.config, TEAMS_TOKEN_SIDECAR_URL: "http://127.0.0.1:9" }, { log: (m, e) => logged.push(`${m}: ${e instanceof Error ? e.message : ""}`), pace: TEAMS_TEST_PACE });
    try {
      await waitUntil(() => logged.find((m) => /could not get a token for the Bot Connector \(check TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID/.test(m)), "the token warning", 45_000);
      expect((await fetch(`http://127.0.0.1:${broken.port}/api/messages`, { method: "POST" })).status).toBe(401);
    } finally {
      await broken.stop();
    }
  }, 60_000);

  it("the card is updated in place (PUT) into the summary, with no actions left", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    expect(cardButtons(h.message(copy).card)).toHaveLength(4);
    await h.press(copy, 0, h.person);
    await waitUntil(() => h.message(copy).updates > 0 && !h.message(copy).card.actions, "the card updated");
    const put = h.fake.calls.find((c) => c.method === "PUT" && c.path.endsWith(`/activities/${copy.ref}`));
    expect(put?.body.attachments[0]).toMatchObject({ contentType: "application/vnd.microsoft.card.adaptive", content: { type: "AdaptiveCard", version: "1.4" } });
    expect(put?.body.attachments[0].content.actions).toBeUndefined();
  });
});
