import { PermanentSendError, WaitingSendError, type SentNote, type SurfaceAdapter } from "../../src/bridge/index.ts";
import type { QuestionRecord } from "../../src/record/record.ts";
import { cutToFit } from "../../src/render/index.ts";
import { renderWhatsAppPrompt, renderWhatsAppSummary, whatsappText, type WhatsAppMessage } from "../../src/platforms/whatsapp/payload.ts";
import { toWhatsAppText } from "../../src/platforms/whatsapp/escaping.ts";
import { WHATSAPP_TEXT_MAX } from "../../src/platforms/whatsapp/platform.ts";
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
export interface WhatsAppAdapter extends SurfaceAdapter {
  /** Replies to a message the bot sends about a question (a fresh list) count as replies to that question. */
  onSent(note: (note: SentNote) => void): void;
  /** A prompt the Cloud API took was refused for good later: the bridge withdraws its delivery and fails the target. */
  onRefused(note: (note: RefusedNote) => Promise<void>): void;
  /** The person wrote: a question whose prompt waited for that (WaitingSendError) can be sent now (the bridge's redeliver). */
  onReopened(note: (questionId: string) => void): void;
  /**
   * A status webhook said a message failed after the Cloud API took it (WhatsApp reports most refusals so, 131047
   * among them). A prompt outside the 24-hour window is held when WHATSAPP_TEMPLATE is set: the template goes out,
   * and the prompt is sent again once the person writes. Without a template, or for a recipient that can never take
   * it (131026 …), the prompt is refused for good (onRefused), with a reason that says why.
   */
  statusFailed(messageId: string, code: number | undefined, title: string): Promise<void>;
  /**
   * The person wrote: prompts held for the window go out now. True when some did: that message opened the
   * conversation, and is no answer (the person has not seen the question yet).
   */
  windowOpened(chat: string): Promise<boolean>;
}

/** Prompts remembered for their status webhooks (a failed status comes within seconds, rarely later). */
const PROMPTS_KEPT = 5_000;

/** A prompt refused after the Cloud API took it: `messageRef` is its delivery's (the first message id). */
export interface RefusedNote {
  questionId: string;
  chat: string;
  messageRef: string;
  reason: string;
}

/** Why a prompt cannot reach someone outside the 24-hour window when no template is configured. */
const outsideWindow = (chat: string) =>
  `whatsapp: ${chat} has not written to this number in the last 24 hours, and WhatsApp then takes only an approved template (error 131047); WHATSAPP_TEMPLATE is unset: set it to open the conversation`;

export function createWhatsAppAdapter({ api, paced, windows, template, log }: WhatsAppAdapterOptions): WhatsAppAdapter {
  let noteSent: (note: SentNote) => void = () => {};
  let noteRefused: (note: RefusedNote) => Promise<void> = async () => {};
  let noteReopened: (questionId: string) => void = () => {};
  /**
   * Questions whose prompt was not sent, by chat, because the template went out (or was out) and the person has not
   * written since: the target is `waiting` at the gateway, and the prompt goes out once they write.
   */
  const unsent = new Map<string, Set<string>>();
  /** The prompt waits for the person's reply: the target is `waiting`, and windowOpened sends it. */
  const waitForReply = (record: QuestionRecord, chat: string): never => {
    remember(unsent, chat, (unsent.get(chat) ?? new Set<string>()).add(record.id));
    throw new WaitingSendError(awaiting(chat));
  };
  /** Recent prompts by message id: what a failed status is about (`ref`: the delivery's message id, the first one). */
  const prompts = new Map<string, { record: QuestionRecord; chat: string; ref: string }>();
  /** Prompts that failed outside the window, by chat, waiting for the person to write. */
  const held = new Map<string, Array<{ record: QuestionRecord; ref: string }>>();
  /** A prompt sent again after the window opened: its first message id (the delivery's) → the one people see. */
  const resent = new Map<string, string>();
  const shown = (ref: string) => resent.get(ref) ?? ref;
  const send = (chat: string, message: WhatsAppMessage, replyTo?: string) => paced(chat, () => api.send(chat, message, replyTo ? { replyTo } : {}));
  const remember = <K, V>(map: Map<K, V>, key: K, value: V) => {
    map.set(key, value);
    if (map.size > PROMPTS_KEPT) map.delete(map.keys().next().value!);
  };

  /** Outside the 24-hour window: the template opens the conversation, and the prompt waits for the person's reply. */
  async function reEngage(record: QuestionRecord, chat: string): Promise<never> {
    if (!template) throw new PermanentSendError(outsideWindow(chat));
    try {
      await paced(chat, () => api.sendTemplate(chat, { ...template, bodyParameters: [cutToFit(headersOf(record), 1024, (t) => t)] }));
    } catch (error) {
      throw sendError(error);
    }
    windows.templateSent(chat);
    return waitForReply(record, chat);
  }
  const awaiting = (chat: string) =>
    `whatsapp: ${chat} has not written in 24 hours; the template ${template?.name ?? ""} went out to open the conversation, and the question follows their reply`;

  return {
    surface: "whatsapp",
    edits: false,
    onSent(note) {
      noteSent = note;
    },
    onRefused(note) {
      noteRefused = note;
    },
    onReopened(note) {
      noteReopened = note;
    },
    async statusFailed(messageId, code, title) {
      const prompt = prompts.get(messageId);
      const what = `${title}${code !== undefined ? ` (error ${code})` : ""}`;
      if (!prompt) return void log(`a message to WhatsApp failed: ${what}`);
      const refused = (reason: string) => {
        prompts.delete(messageId);
        log(`the prompt of ${prompt.record.id} to whatsapp:${prompt.chat} was refused after it was sent: ${reason}`);
        return noteRefused({ questionId: prompt.record.id, chat: prompt.chat, messageRef: prompt.ref, reason });
      };
      if (code !== undefined && PERMANENT.has(code)) return refused(`whatsapp: ${what}`);
      if (code !== RE_ENGAGEMENT) return void log(`a message (the prompt of ${prompt.record.id}) to WhatsApp failed: ${what}`);
      // Without a template nothing can open the conversation: the target fails now, saying so.
      if (!template) return refused(outsideWindow(prompt.chat));
      remember(held, prompt.chat, [...(held.get(prompt.chat) ?? []), { record: prompt.record, ref: prompt.ref }]);
      if (windows.awaitingReply(prompt.chat)) return; // the template is out already
      try {
        await paced(prompt.chat, () => api.sendTemplate(prompt.chat, { ...template, bodyParameters: [cutToFit(headersOf(prompt.record), 1024, (t) => t)] }));
        windows.templateSent(prompt.chat);
      } catch (error) {
        log(`could not send the template to whatsapp:${prompt.chat}`, error);
      }
    },
    async windowOpened(chat) {
      windows.opened(chat);
      const questions = unsent.get(chat);
      unsent.delete(chat);
      for (const id of questions ?? []) noteReopened(id);
      const waiting = held.get(chat);
      if (!waiting) return questions !== undefined;
      held.delete(chat);
      for (const { record, ref } of waiting) {
        try {
          const id = await send(chat, renderWhatsAppPrompt(record, { targetChat: chat }));
          remember(resent, ref, id);
          remember(prompts, id, { record, chat, ref });
          noteSent({ chat, questionId: record.id, messageRef: id });
        } catch (error) {
          log(`could not send the held prompt of ${record.id} to whatsapp:${chat}`, error);
        }
      }
      return true;
    },
    renderedOf: (record, chat, nowMs) => renderWhatsAppSummary(record, { targetChat: chat, ...(nowMs !== undefined ? { nowMs } : {}) }),
    async sendPrompt(record, target) {
      const chat = target.chat!;
      if (windows.awaitingReply(chat)) return waitForReply(record, chat);
      try {
        const id = await send(chat, renderWhatsAppPrompt(record, { targetChat: chat }));
        remember(prompts, id, { record, chat, ref: id });
        return id;
      } catch (error) {
        if (error instanceof GraphApiError && error.code === RE_ENGAGEMENT) return reEngage(record, chat);
        throw sendError(error);
      }
    },
    async updatePrompt(record, delivery, nowMs) {
      if (record.status === "pending") return; // the prompt itself shows a pending record
      const message = renderWhatsAppSummary(record, { targetChat: delivery.chat, ...(nowMs !== undefined ? { nowMs } : {}) });
      try {
        const id = await send(delivery.chat, message, shown(delivery.messageRef));
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
          return await send(delivery.chat, whatsappText(cutToFit(text, WHATSAPP_TEXT_MAX, toWhatsAppText)), shown(delivery.messageRef));
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
