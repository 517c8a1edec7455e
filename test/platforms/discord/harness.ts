/**
 * The Discord harness: the real discord.js bot (bots/discord) against the fake REST API and gateway, connected to a
 * real gateway in this process. The scenario suites and discord.test.ts drive it.
 */
import { startDiscordBot } from "../../../bots/discord/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { encodeDiscordCustomId } from "../../../src/platforms/discord/callback-data.ts";
import { toDiscordContent } from "../../../src/platforms/discord/escaping.ts";
import { startFakeDiscord, type FakeDiscord, type FakeInteraction } from "./fake-api.ts";
import { BOT_USER, CALLBACK_TYPE, type FakeDiscordMessage } from "./discord-payloads.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";

export const DISCORD_TOKEN = "discord-test-token-not-real";
export const CHANNEL = "700000000000000001";
export const OTHER_CHANNEL = "700000000000000002";

export interface DiscordHarness extends BotHarness {
  fake: FakeDiscord;
  /** Presses button `index` of a copy and returns the interaction, without waiting for the bot. */
  pressRaw(copy: PromptCopy, index: number, who: Person): FakeInteraction;
  message(copy: PromptCopy): FakeDiscordMessage;
}

const flatButtons = (components: any[]): any[] => components.flatMap((row) => row.components ?? []);

/** What the presser was shown: the ephemeral text, or nothing when a modal opened. */
async function shownFor(fake: FakeDiscord, interaction: FakeInteraction): Promise<string | undefined> {
  const callback = await fake.acknowledged(interaction);
  if (callback.type === CALLBACK_TYPE.MODAL) return undefined;
  return fake.firstNotice(interaction);
}

export async function createDiscordHarness(): Promise<DiscordHarness> {
  const fake = await startFakeDiscord({ token: DISCORD_TOKEN, heartbeatIntervalMs: 1_000 });
  fake.addTextChannel(CHANNEL, "general");
  fake.addTextChannel(OTHER_CHANNEL, "ops");
  const people = {
    person: { id: "100000000000000101", name: "Ada" },
    colleague: { id: "100000000000000102", name: "Grace" },
    stranger: { id: "100000000000000666", name: "Mallory" },
  };
  for (const p of Object.values(people)) fake.addUser(p.id, p.name);
  const gateway = await startHarnessGateway("aub-dc-");
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: gateway.dataDir,
    DISCORD_BOT_TOKEN: DISCORD_TOKEN,
    DISCORD_API_URL: fake.apiUrl,
    DISCORD_ALLOWED_USERS: `${people.person.id},${people.colleague.id}`,
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startDiscordBot(config, { log: () => {} }), [fake]);

  const userOf = (p: Person) => fake.user(p.id) ?? fake.addUser(p.id, p.name);
  const messageOf = (copy: { ref: string }) => fake.message(copy.ref.split("/")[1]!);
  /** A chat is a channel id, or a user id for that user's DM. */
  const channelOf = (chat: string) => {
    const user = fake.user(chat);
    return user ? fake.dmChannelOf(user).id : chat;
  };
  const pressRaw = (copy: PromptCopy, index: number, who: Person) => {
    const message = messageOf(copy);
    const button = flatButtons(message.sentComponents)[index];
    if (!button) throw new Error(`message ${message.id} has no button ${index}`);
    return fake.press(message, button.custom_id, userOf(who));
  };

  const harness: DiscordHarness = {
    ...lifecycle,
    fake,
    surface: "discord",
    chat: CHANNEL,
    otherChat: OTHER_CHANNEL,
    ...people,
    copy(chat, ref) {
      const m = messageOf({ ref });
      return { chat, ref, text: m.content, buttons: flatButtons(m.components).map((b) => b.label) };
    },
    message: messageOf,
    pressRaw,
    press: (copy, index, who) => shownFor(fake, pressRaw(copy, index, who)),
    pressForged(copy, forged, who) {
      const customId = forged === "garbage" ? "a1|zz|?|9" : encodeDiscordCustomId({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } });
      return shownFor(fake, fake.press(messageOf(copy), customId, userOf(who)));
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const labels = flatButtons(messageOf(copy).sentComponents).map((b) => b.label);
      const opened = pressRaw(copy, labels.indexOf("Other…"), who);
      const callback = await fake.acknowledged(opened);
      if (callback.type !== CALLBACK_TYPE.MODAL) throw new Error(`Other… answered with callback type ${callback.type}, not a modal`);
      return async (text) => void (await fake.acknowledged(fake.submitModal(opened, text)));
    },
    async type(chat, who, text, options = {}) {
      const sent = fake.type(channelOf(chat), userOf(who), text, options.replyTo ? messageOf(options.replyTo) : undefined);
      return { deleted: () => sent.deleted, reactions: () => sent.reactions ?? [], redeliver: async () => fake.redeliver(sent) };
    },
    holdNextPrompt(chat) {
      const held = fake.holdNext("POST /channels/:id/messages");
      return {
        release: held.release,
        posted: async () => {
          await waitUntil(() => held.arrived(), "the held prompt send");
          const channel = channelOf(chat);
          const prompt = fake.messagesIn(channel).filter((m) => m.author.id === BOT_USER.id && !m.webhook_id).at(-1)!;
          return harness.copy(chat, `${channel}/${prompt.id}`);
        },
      };
    },
    platformText: toDiscordContent,
    repliesTo(copy) {
      const prompt = messageOf(copy);
      return fake
        .messagesIn(prompt.channel_id)
        .filter((m) => m.author.id === BOT_USER.id && m.message_reference?.message_id === prompt.id)
        .map((m) => ({
          chat: copy.chat,
          ref: `${m.channel_id}/${m.id}`,
          text: m.content,
          buttons: [],
          deleted: m.deleted,
          pings: !(Array.isArray(m.allowed_mentions?.parse) && m.allowed_mentions.parse.length === 0 && m.allowed_mentions.replied_user === false),
        }));
    },
    latestReply(chat) {
      const channel = channelOf(chat);
      const reply = fake.messagesIn(channel).filter((m) => m.author.id === BOT_USER.id && !m.webhook_id && !m.visibleTo && m.sentComponents.length === 0).at(-1)!;
      return harness.copy(chat, `${channel}/${reply.id}`);
    },
    refuseDeletingOwn(refuse) {
      fake.refuseOwnDeletes(refuse);
    },
    forbidDeleting(forbid) {
      fake.denyManageMessages(forbid);
    },
    botReplies: (chat) =>
      fake
        .messagesIn(channelOf(chat))
        .filter((m) => m.author.id === BOT_USER.id && !m.visibleTo && !m.webhook_id && m.sentComponents.length === 0)
        .map((m) => m.content),
    privateNotices: (who) => fake.privateNotices(who.id),
    promptSends: (questionId) =>
      fake.calls.filter((c) => c.method === "POST" && c.route === "/channels/:id/messages" && c.status === 200 && JSON.stringify(c.body.components ?? []).includes(`|${questionId}|`))
        .length,
    rateLimitNextSend: (seconds) => fake.rateLimitNext("POST /channels/:id/messages", seconds),
  };
  return harness;
}
