/**
 * The people of the scale-out test, on the fake Telegram, Discord and Slack: they find each prompt by its question
 * id, press a button on the copy as it was sent, and read what the bot tells them. Also counts the prompts each fake
 * was sent, and tells whether a copy still shows buttons.
 */
import { TEXTS } from "../../src/bridge/index.ts";
import { decodeDiscordCustomId } from "../../src/platforms/discord/callback-data.ts";
import { decodeSlackActionId } from "../../src/platforms/slack/callback-data.ts";
import { decodeTelegramCallbackData } from "../../src/platforms/telegram/callback-data.ts";
import { BOT_USER, type FakeDiscordMessage } from "../platforms/discord/discord-payloads.ts";
import type { FakeSlackMessage } from "../platforms/slack/fake-api.ts";
import type { FakeTelegramMessage } from "../platforms/telegram/fake-api.ts";
import type { ScaleOut } from "./scale-out-harness.ts";
import type { BotName } from "./system-harness.ts";

/** What a person is told after a press ("failed-visible": Discord's "This interaction failed", no acknowledgement in 3 s). */
export type Ack = "submitted" | "already" | "not-submitted" | "not-valid" | "failed-visible" | `unexpected: ${string}`;

export function classify(text: string | undefined): Ack {
  if (text === TEXTS.submitted) return "submitted";
  if (text === TEXTS.alreadyAnswered) return "already";
  if (text === TEXTS.notSubmitted) return "not-submitted";
  if (text === TEXTS.notValid) return "not-valid";
  return `unexpected: ${text}`;
}

export type Prompt = FakeTelegramMessage | FakeDiscordMessage | FakeSlackMessage;
export interface Person {
  platform: BotName;
  chat: string;
  /** The person's user id (on Telegram, their private chat's id). */
  id: string;
  name: string;
}

/** Every prompt the bots have sent, by question id and platform; `update` reads what is new at the fakes. */
export function createPromptIndex(sys: ScaleOut, discordChannels: string[]) {
  const prompts = new Map<string, Partial<Record<BotName, Prompt>>>();
  const add = (id: string | undefined, platform: BotName, message: Prompt) => {
    if (id && !prompts.get(id)?.[platform]) prompts.set(id, { ...prompts.get(id), [platform]: message });
  };
  let seenTelegram = 0;
  let seenSlack = 0;
  return {
    get: (id: string, platform: BotName): Prompt | undefined => prompts.get(id)?.[platform],
    update(): void {
      const tg = sys.telegram.messages();
      for (const m of tg.slice(seenTelegram)) add(decodeTelegramCallbackData(m.sent_markup?.inline_keyboard?.[0]?.[0]?.callback_data)?.questionId, "telegram", m);
      seenTelegram = tg.length;
      const sl = sys.slack.messages();
      for (const m of sl.slice(seenSlack)) add(decodeSlackActionId(m.sentBlocks?.find((b) => b.type === "actions")?.elements?.[0]?.action_id)?.questionId, "slack", m);
      seenSlack = sl.length;
      for (const channel of discordChannels) {
        for (const m of sys.discord.messagesIn(channel)) {
          if (m.author.id === BOT_USER.id && m.sentComponents.length > 0) add(decodeDiscordCustomId(m.sentComponents[0]?.components?.[0]?.custom_id)?.questionId, "discord", m);
        }
      }
    },
  };
}

/** Presses button `choice` on the copy as it was sent; returns what the person has been told so far. */
export function press(sys: ScaleOut, person: Person, prompt: Prompt, choice: number): () => Ack | undefined {
  if (person.platform === "telegram") {
    const message = prompt as FakeTelegramMessage;
    const callback = sys.telegram.pushCallback(message, message.sent_markup.inline_keyboard[choice][0].callback_data, { id: Number(person.id), first_name: person.name });
    return () => {
      const answer = sys.telegram.callbackAnswer(callback);
      return answer && classify(answer.text);
    };
  }
  if (person.platform === "discord") {
    const message = prompt as FakeDiscordMessage;
    const interaction = sys.discord.press(message, message.sentComponents[0].components[choice].custom_id, sys.discord.user(person.id)!);
    return () => {
      if (interaction.notices[0] !== undefined) return classify(interaction.notices[0]);
      if (!interaction.callback && Date.now() - interaction.createdAtMs > 3_500) return "failed-visible";
      return undefined;
    };
  }
  // Slack's notices name no question: each person presses one button at a time in their channel.
  const message = prompt as FakeSlackMessage;
  const notices = () => sys.slack.ephemerals.filter((e) => e.user === person.id && e.channel === person.chat);
  const before = notices().length;
  const actions = message.sentBlocks!.find((b) => b.type === "actions");
  const { payload } = sys.slack.pressPayload(message, actions.elements[choice].action_id, { id: person.id, name: person.name }, actions.block_id);
  sys.slack.deliverTracked("interactive", payload, 30_000).catch(() => undefined);
  return () => {
    const text = notices()[before]?.text;
    return text === undefined ? undefined : classify(text);
  };
}

/** Prompts sent per question and chat (`<id>\0<chat>`), counted at the fakes: every successful send with buttons. */
export function countPromptSends(sys: ScaleOut): Map<string, number> {
  const sends = new Map<string, number>();
  const count = (id: string | undefined, chat: string) => id && sends.set(`${id}\u0000${chat}`, (sends.get(`${id}\u0000${chat}`) ?? 0) + 1);
  for (const c of sys.telegram.calls) {
    if (c.method === "sendMessage" && !c.failed && c.body.reply_markup?.inline_keyboard) count(decodeTelegramCallbackData(c.body.reply_markup.inline_keyboard[0]?.[0]?.callback_data)?.questionId, String(c.body.chat_id));
  }
  for (const c of sys.discord.calls) {
    if (c.method === "POST" && c.route === "/channels/:id/messages" && c.status === 200 && c.body.components?.length) count(decodeDiscordCustomId(c.body.components[0]?.components?.[0]?.custom_id)?.questionId, c.path.split("/")[2]!);
  }
  for (const c of sys.slack.calls) {
    if (c.method === "chat.postMessage" && !c.failed && Array.isArray(c.body.blocks)) count(decodeSlackActionId(c.body.blocks.find((b: any) => b.type === "actions")?.elements?.[0]?.action_id)?.questionId, String(c.body.channel));
  }
  return sends;
}

/** Whether a copy still shows its buttons (it has not been edited into the summary). */
export function showsButtons(platform: BotName, prompt: Prompt): boolean {
  if (platform === "telegram") return ((prompt as FakeTelegramMessage).reply_markup?.inline_keyboard?.length ?? 0) > 0;
  if (platform === "discord") return (prompt as FakeDiscordMessage).components.length > 0;
  return (prompt as FakeSlackMessage).blocks?.some((b) => b.type === "actions") ?? false;
}
