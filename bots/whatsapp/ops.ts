import type { Bridge, PlatformOps } from "../../src/bridge/index.ts";
import { whatsappText } from "../../src/platforms/whatsapp/payload.ts";
import type { Log } from "../shared.ts";
import type { GraphApi } from "./graph-api.ts";

/** The mark on a message from someone who may not answer. */
export const WHATSAPP_REFUSED_REACTION = "🙈";

export interface WhatsAppEventContext {
  api: GraphApi;
  paced: <T>(chat: string, send: () => Promise<T>) => Promise<T>;
  bridge: Pick<Bridge, "sent">;
  log: Log;
  /** The person's number: the chat. */
  chat: string;
  /** The person's message (a typed message or a list selection). */
  messageId: string;
}

/**
 * What the bot does in answer to one message. WhatsApp has no toast and no private message within a chat (a chat is
 * the person's own, so a private reply is said there), and a bot cannot delete a person's message: `deleteMessage`
 * says it was refused, so a credential gets the note that tells the person to delete it and rotate it.
 */
export function whatsappOps({ api, paced, bridge, log, chat, messageId }: WhatsAppEventContext, who: string): PlatformOps {
  const send = (text: string, quote: boolean) => paced(chat, () => api.send(chat, whatsappText(text), quote ? { replyTo: messageId } : {}));
  return {
    react: () =>
      paced(chat, () => api.react(chat, messageId, WHATSAPP_REFUSED_REACTION)).then(
        () => {},
        (error) => log("could not mark a message", error),
      ),
    deleteMessage: async () => false,
    async reply(reply) {
      // A private reply (the answer to a selection, where other platforms have a toast) quotes the person's message
      // too: in their own chat that says what it answers.
      const sent = send(reply.reply, reply.replyTo === true || reply.private === true);
      if (reply.questionId) bridge.sent({ chat, questionId: reply.questionId, messageRef: sent });
      await sent;
    },
    async askOwnWords(text, questionId) {
      const sent = send(text, true);
      bridge.sent({ chat, questionId, ownWordsOf: who, messageRef: sent });
      await sent;
    },
  };
}
