import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDiscordBot } from "../../../bots/discord/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { decodeDiscordCustomId } from "../../../src/render/index.ts";
import { startFakeDiscord, type FakeDiscord } from "./discord-api.ts";
import { OP } from "./discord-gateway.ts";
import { CALLBACK_TYPE, INTENT, MESSAGE_FLAG_EPHEMERAL } from "./discord-payloads.ts";
import { CHANNEL, createDiscordHarness, discordDeliveryKit, DISCORD_TOKEN, OTHER_CHANNEL, type DiscordHarness } from "./harness.ts";
import { rpcOk, TOKEN } from "../../helpers/gateway.ts";
import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { scenarioTools, waitUntil } from "../../scenarios/tools.ts";

const scenarioFakes: FakeDiscord[] = [];
runBotScenarios("discord", async () => {
  const h = await createDiscordHarness();
  scenarioFakes.push(h.fake);
  return h;
});
runDeliveryScenarios("discord", discordDeliveryKit);
runFollowUpScenarios("discord", createDiscordHarness, "smoke");

describe("discord: the scenario suite ran against Discord's rules", () => {
  it("every interaction was acknowledged inside 3 s, and every bot message carried allowed_mentions with no parse", () => {
    const fake = scenarioFakes[0]!;
    expect(fake.interactions().length).toBeGreaterThan(10);
    for (const interaction of fake.interactions()) {
      expect(interaction.callback, `interaction ${interaction.id}`).toBeDefined();
      expect(interaction.callback!.atMs - interaction.createdAtMs).toBeLessThan(3_000);
    }
    const writes = fake.calls.filter((c) => /^\/(channels\/:id\/messages|webhooks\/:id\/:token)/.test(c.route) && c.method !== "DELETE" && !c.route.includes("/reactions/"));
    expect(writes.length).toBeGreaterThan(20);
    for (const call of writes) expect(call.body.allowed_mentions?.parse, `${call.method} ${call.path}`).toEqual([]);
    const replies = fake.calls.filter((c) => c.route === "/interactions/:id/:token/callback" && c.body.type === CALLBACK_TYPE.REPLY);
    expect(replies.length).toBeGreaterThan(0);
    for (const call of replies) expect(call.body.data.allowed_mentions?.parse, call.path).toEqual([]);
    // The rate-limited send was answered 429 once, and discord.js's queue sent it again.
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(1);
  });
});

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};

describe("discord: specifics", () => {
  let h: DiscordHarness;
  beforeAll(async () => {
    h = await createDiscordHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const ask = async (questions: unknown[], chat = h.chat) =>
    (await rpcOk(h.gatewayUrl(), "question.request", { questions, targets: [{ surface: "discord", chat }] })).id as string;
  const { deliveryOf, promptOf, result, status, summaryOf } = scenarioTools(() => h);

  it("the fake gateway behaves like Discord's: HELLO, IDENTIFY with the intents, READY, GUILD_CREATE, heartbeats and ACKs", async () => {
    const { gateway } = h.fake;
    expect(gateway.sent(OP.HELLO)[0]?.d).toEqual({ heartbeat_interval: 1_000 });
    const identify = gateway.received(OP.IDENTIFY);
    expect(identify).toHaveLength(1);
    const intents = Number(identify[0]!.d.intents);
    for (const bit of [INTENT.GUILDS, INTENT.GUILD_MESSAGES, INTENT.MESSAGE_CONTENT, INTENT.DIRECT_MESSAGES]) expect(intents & bit).toBe(bit);
    expect(identify[0]!.d.compress).toBe(false);
    expect(gateway.sent(OP.DISPATCH, "READY")).toHaveLength(1);
    const guild = gateway.sent(OP.DISPATCH, "GUILD_CREATE")[0]?.d;
    expect(guild.channels.map((c: any) => c.id)).toEqual([CHANNEL, OTHER_CHANNEL]);
    await waitUntil(() => gateway.sent(OP.HEARTBEAT_ACK).length >= 2 && true, "two heartbeat ACKs", 5_000);
    expect(gateway.received(OP.HEARTBEAT).length).toBeGreaterThanOrEqual(gateway.sent(OP.HEARTBEAT_ACK).length);
  });

  it("Other… opens a modal with one text input; submitting it answers in the person's words", async () => {
    const id = await ask([single]);
    const copy = await promptOf(id);
    const opened = h.pressRaw(copy, 2, h.person);
    const callback = await h.fake.acknowledged(opened);
    expect(callback.type).toBe(CALLBACK_TYPE.MODAL);
    expect(decodeDiscordCustomId(callback.data.custom_id)).toEqual({ questionId: id, action: { kind: "other" } });
    expect(callback.data.title.length).toBeLessThanOrEqual(45);
    expect(callback.data.components).toHaveLength(1);
    const [label] = callback.data.components;
    expect(label).toMatchObject({ type: 18, label: "Where should I deploy?", component: { type: 4, custom_id: "answer", required: true } });
    expect(await status(id)).toBe("pending"); // opening the modal records nothing
    const submitted = h.fake.submitModal(opened, "Canary in eu-west first");
    expect((await h.fake.acknowledged(submitted)).type).toBe(CALLBACK_TYPE.DEFERRED_UPDATE);
    expect(await h.fake.firstNotice(submitted)).toBe("✅ Recorded: “Canary in eu-west first” (your own words)");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Canary in eu-west first"] } } });
    await summaryOf(copy, /Canary in eu-west first/);
  });

  it("a modal submitted by someone not allowed, or after resolution, is refused ephemerally", async () => {
    const id = await ask([single]);
    const copy = await promptOf(id);
    const opened = h.pressRaw(copy, 2, h.person);
    await h.fake.acknowledged(opened);
    await h.press(copy, 0, h.person);
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    expect(await h.fake.firstNotice(h.fake.submitModal(opened, "too late"))).toBe("This question was already answered.");
    const stranger = h.pressRaw(copy, 2, h.stranger);
    expect(await h.fake.acknowledged(stranger)).toMatchObject({ type: CALLBACK_TYPE.REPLY, data: { flags: MESSAGE_FLAG_EPHEMERAL } });
    expect(await h.fake.firstNotice(stranger)).toBe("This question is for someone else.");
  });

  it("a user id target is delivered by DM, answered there, and edited in the DM channel", async () => {
    const id = await ask([single], h.person.id);
    const delivery = await deliveryOf(id, h.person.id);
    const dm = h.fake.dmChannelOf(h.fake.user(h.person.id)!);
    expect(delivery.messageRef).toMatch(new RegExp(`^${dm.id}/\\d+$`));
    expect(h.fake.calls.some((c) => c.method === "POST" && c.route === "/users/@me/channels" && c.body.recipient_id === h.person.id)).toBe(true);
    const copy = h.copy(h.person.id, delivery.messageRef);
    expect(copy.buttons).toEqual(["Staging (Recommended)", "Production", "Other…", "Skip"]);
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    await summaryOf(copy, /Production/);
    expect(h.fake.calls.some((c) => c.method === "PATCH" && c.path === `/channels/${dm.id}/messages/${copy.ref.split("/")[1]}`)).toBe(true);

    // A typed reply in the DM answers the next question there, even after a restart emptied the bot's channel
    // cache (DM messages then arrive for an uncached channel: Partials.Channel), with no second DM channel opened.
    const typed = await ask([single], h.person.id);
    const typedCopy = await promptOf(typed, h.person.id);
    await h.restartBot();
    await h.type(h.person.id, h.person, "staging", { replyTo: typedCopy });
    expect(await result(typed)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    await waitUntil(() => h.botReplies(h.person.id).find((t) => /Recorded: Staging/.test(t)), "the confirmation in the DM");
    expect(h.fake.calls.filter((c) => c.route === "/users/@me/channels")).toHaveLength(1);
  });

  it("a target that can never take the message fails delivery at once", async () => {
    h.fake.addTextChannel("700000000000000009", "secret", { hidden: true });
    h.fake.addUser("100000000000000777", "Closed");
    h.fake.blockDms("100000000000000777");
    for (const chat of ["700000000000000009", "100000000000000777", "123456789012345678", "general"]) {
      const started = Date.now();
      const id = await ask([single], chat);
      expect(await result(id), chat).toMatchObject({ status: "delivery_failed" });
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it("refusals are ephemeral (flags 64) and change nothing: a stranger, a forged button, a stale button", async () => {
    const id = await ask([single]);
    const copy = await promptOf(id);
    const before = h.message(copy).edits;
    const stranger = h.pressRaw(copy, 0, h.stranger);
    expect((await h.fake.acknowledged(stranger)).type).toBe(CALLBACK_TYPE.DEFERRED_UPDATE);
    expect(await h.fake.firstNotice(stranger)).toBe("This question is for someone else.");
    const followUp = h.fake.calls.find((c) => c.method === "POST" && c.path.startsWith(`/webhooks/`) && c.path.endsWith(stranger.token));
    expect(followUp?.body.flags & MESSAGE_FLAG_EPHEMERAL).toBe(MESSAGE_FLAG_EPHEMERAL);

    const garbage = h.fake.press(h.message(copy), "a1|zz|?|9", h.fake.user(h.person.id)!);
    const reply = await h.fake.acknowledged(garbage);
    expect(reply).toMatchObject({ type: CALLBACK_TYPE.REPLY, data: { content: "This button is no longer valid.", flags: MESSAGE_FLAG_EPHEMERAL } });
    expect(h.fake.privateNotices(h.stranger.id)).toContain("This question is for someone else.");
    expect(await status(id)).toBe("pending");
    expect(h.message(copy).edits).toBe(before);

    await h.press(copy, 0, h.person);
    await summaryOf(copy, /Staging/);
    const stale = h.pressRaw(copy, 1, h.colleague);
    expect(await h.fake.firstNotice(stale)).toBe("This question was already answered.");
    expect(h.fake.calls.find((c) => c.path.endsWith(stale.token))?.body.flags).toBe(MESSAGE_FLAG_EPHEMERAL);
    expect((await result(id)).answers.answers.deploy_target).toEqual(["Staging (Recommended)"]);
  });

  it("question text with @everyone is sent with allowed_mentions: { parse: [] }", async () => {
    const loud = { ...single, question: "@everyone @here <@&800000000000000001> where should I deploy?" };
    const id = await ask([loud]);
    const copy = await promptOf(id);
    const send = h.fake.calls.find((c) => c.method === "POST" && c.route === "/channels/:id/messages" && JSON.stringify(c.body).includes(`|${id}|`))!;
    expect(send.body.allowed_mentions).toEqual({ parse: [] });
    expect(send.body.content).toContain("everyone");
    await h.press(copy, 3, h.person);
    const edit = await waitUntil(() => h.fake.calls.find((c) => c.method === "PATCH" && c.path === `/channels/${CHANNEL}/messages/${copy.ref.split("/")[1]}`), "the summary edit");
    expect(edit.body.allowed_mentions).toEqual({ parse: [] });
  });

  it("an edit after the interaction token would have expired goes through PATCH /channels/:id/messages/:id", async () => {
    const id = await ask([single]);
    const copy = await promptOf(id);
    // The person opens the modal and walks away; 15 minutes later the token is dead.
    const opened = h.pressRaw(copy, 2, h.person);
    await h.fake.acknowledged(opened);
    h.fake.expireInteractionTokens();
    const from = h.fake.calls.length;
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, answers: { deploy_target: ["Production"] }, by: { surface: "web", via: "web", user: "ops", userName: "Grace" } });
    const summary = await summaryOf(copy, /Production — answered on the web by Grace/);
    expect(summary.buttons).toEqual([]);
    const later = h.fake.calls.slice(from);
    const edit = later.find((c) => c.method === "PATCH")!;
    expect(edit.route).toBe("/channels/:id/messages/:id");
    expect(edit.path).toBe(`/channels/${CHANNEL}/messages/${copy.ref.split("/")[1]}`);
    expect(edit.body.components).toEqual([]);
    expect(edit.status).toBe(200);
    expect(later.filter((c) => c.route.startsWith("/webhooks/") || c.route.startsWith("/interactions/"))).toEqual([]);
  });

  it("without Manage Messages a credential stays, but it is still refused and not recorded", async () => {
    const chat = "700000000000000003";
    h.fake.addTextChannel(chat, "no-manage", { noManageMessages: true });
    // A channel created after GUILD_CREATE is not in the bot's cache: it is fetched, and the prompt still goes out.
    const id = await ask([single], chat);
    const copy = await promptOf(id, chat);
    expect(copy.buttons).toHaveLength(4);
    const sent = await h.type(chat, h.person, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", { replyTo: copy });
    await waitUntil(() => h.botReplies(chat).find((t) => /secrets flow/.test(t)), "the credential refusal");
    expect(h.fake.calls.some((c) => c.method === "DELETE" && c.status === 403)).toBe(true);
    expect(sent.deleted()).toBe(false);
    expect(await status(id)).toBe("pending");
    expect(JSON.stringify(await rpcOk(h.gatewayUrl(), "question.get", { id }))).not.toContain("abcdefghijklmnop");
  });

  it("a bot whose application lacks the Message Content intent fails to start, saying what to enable", async () => {
    const fake = await startFakeDiscord({ token: DISCORD_TOKEN, disallowedIntents: INTENT.MESSAGE_CONTENT });
    try {
      const config = loadConfig({ GATEWAY_URL: h.gatewayUrl(), GATEWAY_TOKEN: TOKEN, DISCORD_BOT_TOKEN: DISCORD_TOKEN, DISCORD_API_URL: fake.apiUrl });
      await expect(startDiscordBot(config, { log: () => {} })).rejects.toThrow(/Message Content Intent/);
      expect(fake.gateway.received(OP.IDENTIFY)).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it("survives a dropped gateway socket: RESUME replays what it missed, and no question is lost", async () => {
    const { gateway } = h.fake;
    const before = await ask([single]);
    const beforeCopy = await promptOf(before);
    const identifies = gateway.received(OP.IDENTIFY).length;
    const session = gateway.liveSessions()[0]!;
    gateway.dropSockets();
    // Pressed while the socket is down: Discord keeps the dispatch for the RESUME.
    const pressed = h.pressRaw(beforeCopy, 1, h.person);
    expect(gateway.liveSessions()[0]!.connected).toBe(false);
    const during = await ask([single]);
    const duringCopy = await promptOf(during);
    expect(await h.fake.firstNotice(pressed)).toBe("Answer submitted.");
    await h.type(h.chat, h.person, "1", { replyTo: duringCopy });
    expect(await result(before)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
    expect(await result(during)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    const resume = gateway.received(OP.RESUME);
    expect(resume).toHaveLength(1);
    expect(resume[0]!.d).toMatchObject({ token: DISCORD_TOKEN, session_id: session.id });
    expect(resume[0]!.d.seq).toBeLessThanOrEqual(session.seq);
    expect(gateway.sent(OP.DISPATCH, "RESUMED")).toHaveLength(1);
    expect(gateway.received(OP.IDENTIFY)).toHaveLength(identifies);
    // The press was dispatched only once, in the replay after the RESUME.
    const frames = gateway.frames;
    const resumedAt = frames.findIndex((f) => f.direction === "in" && f.op === OP.RESUME);
    const replayedAt = frames.findIndex((f) => f.t === "INTERACTION_CREATE" && f.d.id === pressed.id);
    expect(replayedAt).toBeGreaterThan(resumedAt);
    await summaryOf(duringCopy, /Staging/);
  });
});
