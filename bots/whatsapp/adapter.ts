import { PermanentSendError, type SentNote, type SurfaceAdapter } from "../../src/bridge/index.ts";
import type { QuestionRecord } from "../../src/record/record.ts";
import { cutToFit, renderWhatsAppPrompt, renderWhatsAppSummary, toWhatsAppText, WHATSAPP_TEXT_MAX, whatsappText, type WhatsAppMessage } from "../../src/render/index.ts";
import type { Log } from "../shared.ts";
import { GraphApiError, RE_ENGAGEMENT, type GraphApi } from "./graph-api.ts";
import type { ConversationWindows } from "./windows.ts";

/** Meta answers these for a recipient that will never take the message. */
const PERMANENT = new Set([
  131026, // message undeliverable (not on WhatsApp, old app, …)
  131030, // recipient not in the allowed list (a test number)
  131031, // the business account is locked
  131021, // recipient and sender are the same number
  133010, // the sending number is not registered
  100, // invalid parameter (a target that is not a phone number)
]);

/** An approved template: WHATSAPP_TEMPLATE is `name` or `name:language`. */
export interface TemplateSetting {
  name: string;
  language: string;
}

export function parseTemplateSetting(value: string | undefined): TemplateSetting | undefined {
  if (!value) return undefined;
  const [name, language] = value.split(":").map((s) => s.trim());
  return name ? { name, language: language || "en_US" } : undefined;
}

export interface WhatsAppAdapterOptions {
  api: GraphApi;
  /** Runs a send when its recipient may take a message (the per-recipient pacer). */
  paced: <T>(chat: string, send: () => Promise<T>) => Promise<T>;
  windows: ConversationWindows;
  template?: TemplateSetting;
  log: Log;
}

/** A failed send as the bridge takes it: permanent for a recipient that will never take it, else retried. */
function sendError(error: unknown): unknown {
  if (error instanceof GraphApiError && error.code !== undefined && PERMANENT.has(error.code)) return new PermanentSendError(`whatsapp: ${error.message}`);
  return error;
}

const headersOf = (record: QuestionRecord) => record.questions.map((q) => q.header).join(", ");

/**
 * Sends prompts with POST /messages (a messageRef is the message's `wamid.…`). The Cloud API cannot edit a sent
 * message (`edits: false`): once the record moves on, the bot replies to its prompt (quoting it through `context`)
 * with what the copy would show, the summary. A reminder is a reply to the prompt too; the bot cannot delete or edit
 * it, so it stays, and the summary reply that follows says the question is closed.
 */
export function createWhatsAppAdapter({ api, paced, windows, template, log }: WhatsAppAdapterOptions): SurfaceAdapter & { onSent(note: (note: SentNote) => void): void } {
  let noteSent: (note: SentNote) => void = () => {};
  const send = (chat: string, message: WhatsAppMessage, replyTo?: string) => paced(chat, () => api.send(chat, message, replyTo ? { replyTo } : {}));

  /** Outside the 24-hour window: the template opens the conversation, and the prompt waits for the person's reply. */
  async function reEngage(record: QuestionRecord, chat: string): Promise<never> {
    if (!template) {
      throw new PermanentSendError(
        `whatsapp: ${chat} has not written to this number in the last 24 hours, and WhatsApp then takes only an approved template (error 131047): set WHATSAPP_TEMPLATE to open the conversation`,
      );
    }
    try {
      await paced(chat, () => api.sendTemplate(chat, { ...template, bodyParameters: [cutToFit(headersOf(record), 1024, (t) => t)] }));
    } catch (error) {
      throw sendError(error);
    }
    windows.templateSent(chat);
    throw new Error(awaiting(chat));
  }
  const awaiting = (chat: string) =>
    `whatsapp: ${chat} has not written in 24 hours; the template ${template?.name ?? ""} went out to open the conversation, and the question follows their reply`;

  return {
    surface: "whatsapp",
    edits: false,
    onSent(note) {
      noteSent = note;
    },
    renderedOf: (record, _chat, nowMs) => renderWhatsAppSummary(record, nowMs !== undefined ? { nowMs } : {}),
    async sendPrompt(record, target) {
      const chat = target.chat!;
      if (windows.awaitingReply(chat)) throw new Error(awaiting(chat));
      try {
        return await send(chat, renderWhatsAppPrompt(record));
      } catch (error) {
        if (error instanceof GraphApiError && error.code === RE_ENGAGEMENT) return reEngage(record, chat);
        throw sendError(error);
      }
    },
    async updatePrompt(record, delivery, nowMs) {
      if (record.status === "pending") return; // the prompt itself shows a pending record
      const message = renderWhatsAppSummary(record, nowMs !== undefined ? { nowMs } : {});
      try {
        const id = await send(delivery.chat, message, delivery.messageRef);
        // A fresh list (expired, a late answer still taken): a reply to it is a reply to the question.
        if (message.type === "interactive") noteSent({ chat: delivery.chat, questionId: record.id, messageRef: id });
      } catch (error) {
        // The window closed since: no free-form reply can reach the person any more, so there is nothing to retry.
        if (error instanceof GraphApiError && (error.code === RE_ENGAGEMENT || (error.code !== undefined && PERMANENT.has(error.code)))) {
          log(`could not reply to the copy of ${record.id} in whatsapp:${delivery.chat} with its summary`, error);
          return;
        }
        throw error;
      }
    },
    reminders: {
      async send(delivery, text) {
        try {
          return await send(delivery.chat, whatsappText(cutToFit(text, WHATSAPP_TEXT_MAX, toWhatsAppText)), delivery.messageRef);
        } catch (error) {
          throw sendError(error);
        }
      },
      // The Cloud API can neither delete nor edit a sent message: the reminder stays, and the summary reply follows.
      delete: async () => false,
      edit: async () => {},
    },
  };
}
