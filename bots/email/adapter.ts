import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { answeredLate as emailAnsweredLate, promptSubject as emailPromptSubject, renderEmailCopy, renderEmailPrompt, renderEmailReply } from "../../src/platforms/email/payload.ts";
import { normalizeAddress } from "../../src/platforms/email/platform.ts";
import type { MessageIds } from "./message-id.ts";
import type { SmtpSender } from "./transport.ts";

/** An address the bot can mail: one `@`, no spaces or angle brackets (the target syntax checks the rest). */
const ADDRESS = /^[^\s<>@,;"]{1,64}@[^\s<>@,;"]{1,190}$/u;

export interface EmailAdapterOptions {
  smtp: SmtpSender;
  ids: MessageIds;
}

/** Prompts' subjects kept for their reminders (a restarted bot's reminder says "Re: your question"). */
const SUBJECTS_KEPT = 5_000;
const FALLBACK_SUBJECT = "your question";

/**
 * Mails prompts (a copy's messageRef is its Message-ID). A sent mail cannot be edited (`edits: false`), and resolution
 * sends no mail: the copy shows its prompt to the end (`renderedOf`), so the copy editor finds nothing behind, and
 * `updatePrompt` of a copy that took no late answer sends nothing (the answer links say the question resolved). A late
 * answer is the one exception: one mail, in reply to the prompt, says it was taken. A reminder is a reply to the
 * prompt; a mail cannot be deleted or edited, so it stays.
 */
export function createEmailAdapter({ smtp, ids }: EmailAdapterOptions): SurfaceAdapter {
  const subjects = new Map<string, string>();
  const reply = async (to: string, prompt: string, text: string, subject: string, questionId?: string): Promise<string> => {
    const messageId = ids.next("r", to);
    await smtp.send({ to, messageId, message: renderEmailReply(subject, text), inReplyTo: prompt, references: [prompt], ...(questionId ? { questionId } : {}) });
    return messageId;
  };
  return {
    surface: "email",
    edits: false,
    renderedOf: (record, chat, nowMs) => renderEmailCopy(record, chat, nowMs),
    async sendPrompt(record, target) {
      const to = target.chat ?? "";
      // Replies are matched to the address as it was normalised (the domain in lower case): a target written another
      // way could never be answered, so it is refused at once instead.
      if (!ADDRESS.test(to) || normalizeAddress(to) !== to) {
        throw new PermanentSendError(`email: "${to}" is not an address the bot can mail; write it as local@domain, the domain in lower case`);
      }
      const messageId = ids.next("p", to);
      const message = renderEmailPrompt(record, { chat: to });
      await smtp.send({ to, messageId, message, questionId: record.id });
      subjects.set(messageId, message.subject);
      if (subjects.size > SUBJECTS_KEPT) subjects.delete(subjects.keys().next().value!);
      return messageId;
    },
    async updatePrompt(record, delivery, nowMs) {
      if (!emailAnsweredLate(record)) return; // resolution sends no mail (the copy's answer links say so)
      const { text } = renderEmailCopy(record, delivery.chat, nowMs);
      await reply(delivery.chat, delivery.messageRef, text, emailPromptSubject(record), record.id);
    },
    reminders: {
      // The reminder's subject is the prompt's, so that it threads under it in every client.
      send: (delivery, text) => reply(delivery.chat, delivery.messageRef, text, subjects.get(delivery.messageRef) ?? FALLBACK_SUBJECT),
      // A sent mail can neither be deleted nor edited: the reminder stays as sent.
      delete: async () => false,
      edit: async () => {},
    },
  };
}
