import type { Bridge, PlatformOps } from "../../src/bridge/index.ts";
import { renderEmailReply } from "../../src/platforms/email/payload.ts";
import type { MessageIds } from "./message-id.ts";
import type { SmtpSender } from "./transport.ts";

/** The person's mail the bot answers: who sent it, its Message-ID and thread, its subject. */
export interface EmailReplyContext {
  smtp: SmtpSender;
  ids: MessageIds;
  bridge: Pick<Bridge, "sent">;
  /** The sender's address: the chat. */
  chat: string;
  messageId: string;
  references: readonly string[];
  subject: string;
}

/**
 * What the bot does in answer to one mail: it replies, in the thread of the person's mail. Mail has no toast, no
 * mark, no private message beside the mailbox (a mailbox is the person's own, so a private reply is a reply), and a
 * bot cannot delete a mail it received from the person's mailbox: `deleteMessage` says it was refused, so a
 * credential gets the note that tells the person to delete it and rotate it.
 */
export function emailOps({ smtp, ids, bridge, chat, messageId, references, subject }: EmailReplyContext): PlatformOps {
  const send = async (text: string): Promise<string> => {
    const id = ids.next("r", chat);
    await smtp.send({ to: chat, messageId: id, message: renderEmailReply(subject || "your question", text), inReplyTo: messageId, references: [...references, messageId] });
    return id;
  };
  return {
    deleteMessage: async () => false,
    async reply(reply) {
      const sent = send(reply.reply);
      if (reply.questionId) bridge.sent({ chat, questionId: reply.questionId, messageRef: sent });
      await sent;
    },
    async askOwnWords(text, questionId) {
      const sent = send(text);
      bridge.sent({ chat, questionId, messageRef: sent });
      await sent;
    },
  };
}
