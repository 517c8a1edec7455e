/**
 * WhatsApp Cloud API message payloads (the part of POST /{phone-number-id}/messages after `to` and `context`): the one
 * single-select question as an interactive list message, everything else as numbered text. The Cloud API cannot edit
 * a sent message, so a summary is a text message the bot sends in reply to its prompt (bots/whatsapp/adapter.ts).
 */
import type { QuestionRecord } from "../../record/record.ts";
import { acceptsLateAnswer } from "../../record/late-window.ts";
import { cutToFit, fitPromptText } from "../../render/text-width.ts";
import { chooseLayout } from "../../render/choose-layout.ts";
import { promptButtons } from "../../render/prompt-buttons.ts";
import { missingPromptParts, promptTextParts } from "../../render/prompt-text.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../render/summary.ts";
import { replyHint, type ChatOptions } from "../../render/reply-hint.ts";
import { encodeWhatsAppRowId } from "./callback-data.ts";
import { toWhatsAppText } from "./escaping.ts";
import {
  WHATSAPP_INTERACTIVE_BODY_MAX,
  WHATSAPP_LIST_ROWS_MAX,
  WHATSAPP_ROW_DESCRIPTION_MAX,
  WHATSAPP_ROW_TITLE_MAX,
  WHATSAPP_TEXT_MAX,
} from "./platform.ts";

/** The label of the button that opens the list (at most 20 characters). */
export const WHATSAPP_LIST_BUTTON = "Choose an answer";

export interface WhatsAppListRow {
  id: string;
  title: string;
  description?: string;
}

export interface WhatsAppTextMessage {
  type: "text";
  text: { body: string; preview_url: false };
}

export interface WhatsAppListMessage {
  type: "interactive";
  interactive: {
    type: "list";
    body: { text: string };
    action: { button: string; sections: [{ rows: WhatsAppListRow[] }] };
  };
}

export type WhatsAppMessage = WhatsAppTextMessage | WhatsAppListMessage;

const plain = (text: string) => text;

export function whatsappText(body: string): WhatsAppTextMessage {
  return { type: "text", text: { body: cutToFit(body, WHATSAPP_TEXT_MAX, plain), preview_url: false } };
}

/**
 * One row per button: a title of at most 24 characters; a longer label's rest goes first into the description (after
 * an ellipsis), then the option's description, cut to 72 characters. Row titles and descriptions are shown as they
 * are (WhatsApp applies no formatting there).
 */
function row(id: string, label: string, description: string | undefined): WhatsAppListRow {
  const title = cutToFit(label, WHATSAPP_ROW_TITLE_MAX, plain);
  const rest = title === label ? "" : label.slice(title.length - 1).trimStart();
  const more = [rest && `…${rest}`, description].filter(Boolean).join(" — ");
  return { id, title, ...(more ? { description: cutToFit(more, WHATSAPP_ROW_DESCRIPTION_MAX, plain) } : {}) };
}

/** The prompt: a list message for the one single-select question, numbered text otherwise. */
export function renderWhatsAppPrompt(record: QuestionRecord, options: ChatOptions & { lead?: string; late?: boolean } = {}): WhatsAppMessage {
  const layout = chooseLayout(record.questions, "whatsapp");
  const parts = promptTextParts(record.questions, { layout, replyHint: replyHint("whatsapp", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  if (layout === "text") return { type: "text", text: { body: fitPromptText(parts, WHATSAPP_TEXT_MAX, toWhatsAppText), preview_url: false } };
  const question = record.questions[0]!;
  const rows = promptButtons(record, { late: options.late === true }).map((button) => {
    const option = button.action.kind === "choice" ? question.options[button.action.optionIndex] : undefined;
    return row(encodeWhatsAppRowId({ questionId: record.id, action: button.action }), button.text, option?.description);
  });
  if (rows.length > WHATSAPP_LIST_ROWS_MAX) throw new Error(`renderWhatsAppPrompt: ${rows.length} rows, over WhatsApp's ${WHATSAPP_LIST_ROWS_MAX}`);
  return {
    type: "interactive",
    interactive: {
      type: "list",
      body: { text: fitPromptText(parts, WHATSAPP_INTERACTIVE_BODY_MAX, toWhatsAppText) },
      action: { button: WHATSAPP_LIST_BUTTON, sections: [{ rows }] },
    },
  };
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderWhatsAppMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): WhatsAppTextMessage {
  return { type: "text", text: { body: fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("whatsapp", options) }), WHATSAPP_TEXT_MAX, toWhatsAppText), preview_url: false } };
}

/**
 * What a copy shows once the record moved on, as the message the bot sends in reply to its prompt: the summary, as
 * text. A pending record renders its prompt; an expired one still taking a late answer, its prompt again under a
 * line that says so (a fresh list, since the first cannot be edited; its rows still work too).
 */
export function renderWhatsAppSummary(record: QuestionRecord, options: ChatOptions = {}): WhatsAppMessage {
  if (record.status === "pending") return renderWhatsAppPrompt(record, options);
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderWhatsAppPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  return { type: "text", text: { body: cutToFit(renderSummary(record, options.nowMs), WHATSAPP_TEXT_MAX, toWhatsAppText), preview_url: false } };
}
