/**
 * The in-memory platform's PlatformOps, made for one update as each bot's ops.ts is. Each operation is recorded on
 * the platform, in the order `applyEffects` calls it. A private reply is a private notice to the person; a reply
 * about a question is handed to `bridge.sent`, so a reply to it counts as a reply to that question.
 */
import type { Bridge, PlatformOps, ReplyEffect } from "../../../src/bridge/index.ts";
import { toTelegramText } from "../../../src/platforms/telegram/escaping.ts";
import { chatOf } from "./adapter.ts";
import type { MemoryMessage, MemoryPlatform } from "./fake-api.ts";

type Sent = Pick<Bridge, "sent">;

/** Where the update happened and who did it; `message` is the person's typed message (none for a press). */
interface UpdatePlace {
  chat: string;
  who: { id: string; name: string };
  message?: MemoryMessage;
}

function reply(platform: MemoryPlatform, bridge: Sent, place: UpdatePlace, effect: ReplyEffect): void {
  const { chat, who, message } = place;
  platform.record({ op: "reply", chat, text: effect.reply, ok: true, ...(effect.private ? { private: true } : {}), ...(message ? { about: message.id } : {}) });
  if (effect.private) return platform.notify(who.id, effect.reply);
  const replyTo = effect.replyTo && message && !message.deleted ? message.id : undefined;
  const sent = platform.say(chat, effect.reply, replyTo ? { replyTo } : {});
  if (effect.questionId) bridge.sent({ chat, questionId: effect.questionId, messageRef: Promise.resolve(sent.id) });
}

/** A typed message: a mark on it, its deletion, replies. */
export function memoryMessageOps(platform: MemoryPlatform, bridge: Sent, place: UpdatePlace & { message: MemoryMessage }): PlatformOps {
  const { chat, message } = place;
  return {
    async react() {
      platform.record({ op: "react", chat, about: message.id, ok: true });
      message.reactions.push("🙈");
    },
    async deleteMessage() {
      const ok = platform.delete(chat, message.id);
      platform.record({ op: "delete", chat, about: message.id, ok });
      return ok;
    },
    reply: async (effect) => reply(platform, bridge, place, effect),
  };
}

/** A button press: the toast is what the presser is told (`told()`); Other… asks for own words in a message. */
export function memoryPressOps(platform: MemoryPlatform, bridge: Sent, place: UpdatePlace): { ops: PlatformOps; told(): string | undefined } {
  const { chat, who } = place;
  let toast: string | undefined;
  const ops: PlatformOps = {
    async toast(text) {
      platform.record({ op: "toast", chat, text, ok: true });
      toast ??= text;
    },
    reply: async (effect) => reply(platform, bridge, place, effect),
    async askOwnWords(text, questionId) {
      // In a group the request names the presser, and only their reply to it counts.
      const inGroup = chatOf(chat).chat === "group";
      const sent = platform.say(chat, `${inGroup ? `${toTelegramText(who.name)}, ` : ""}${text}`, { ownWordsOf: who.id, mentions: inGroup ? [who.id] : [] });
      platform.record({ op: "askOwnWords", chat, questionId, about: sent.id, text: sent.text, ok: true });
      bridge.sent({ chat, questionId, ownWordsOf: who.id, messageRef: Promise.resolve(sent.id) });
    },
  };
  return { ops, told: () => toast };
}
