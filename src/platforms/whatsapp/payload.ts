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
import { answerLinkOf, approvalPromptParts, reviewLinkLine, type ApprovalPromptParts } from "../../render/approval-prompt.ts";
import type { PromptButton } from "../../render/prompt-buttons.ts";
import type { PromptText } from "../../render/text-width.ts";
import { neutralizeBroadcastMentions, ZWSP } from "../kit/escaping.ts";
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

/** Prompt options: the chat kind, and the target's chat id (for its answer link, on an approval). */
export type WhatsAppPromptOptions = ChatOptions & { lead?: string; late?: boolean; targetChat?: string };

/** The prompt: a list message for the one single-select question, numbered text otherwise. */
export function renderWhatsAppPrompt(record: QuestionRecord, options: WhatsAppPromptOptions = {}): WhatsAppMessage {
  const layout = chooseLayout(record.questions, "whatsapp");
  if (record.approval && layout === "buttons") return approvalPrompt(record, options);
  const parts = promptTextParts(record.questions, { layout, replyHint: replyHint("whatsapp", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  if (layout === "text") return { type: "text", text: { body: fitPromptText(parts, WHATSAPP_TEXT_MAX, toWhatsAppText), preview_url: false } };
  return listMessage(record, promptButtons(record, { late: options.late === true }), fitPromptText(parts, WHATSAPP_INTERACTIVE_BODY_MAX, toWhatsAppText));
}

/** A list message: `body` (already safe) and one row per button. */
function listMessage(record: QuestionRecord, buttons: PromptButton[], body: string): WhatsAppListMessage {
  const question = record.questions[0]!;
  const rows = buttons.map((button) => {
    const option = button.action.kind === "choice" ? question.options[button.action.optionIndex] : undefined;
    return row(encodeWhatsAppRowId({ questionId: record.id, action: button.action }), button.text, option?.description);
  });
  if (rows.length > WHATSAPP_LIST_ROWS_MAX) throw new Error(`renderWhatsAppPrompt: ${rows.length} rows, over WhatsApp's ${WHATSAPP_LIST_ROWS_MAX}`);
  return { type: "interactive", interactive: { type: "list", body: { text: body }, action: { button: WHATSAPP_LIST_BUTTON, sections: [{ rows }] } } };
}

/**
 * An approval's subject in ``` monospace: a zero-width space between two backticks (the subject's own are already
 * labelled marks), so nothing closes it; WhatsApp applies no other formatting inside it. `@everyone` is broken, as everywhere.
 */
export function whatsappCodeBlock(text: string): string {
  return `\`\`\`\n${neutralizeBroadcastMentions(text).replace(/`(?=`)/gu, `\`${ZWSP}`)}\n\`\`\``;
}

function approvalFrame(record: QuestionRecord, options: WhatsAppPromptOptions): PromptText {
  const parts = promptTextParts(record.questions, { layout: "buttons", replyHint: replyHint("whatsapp", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  return { body: cutToFit(parts.body, WHATSAPP_INTERACTIVE_BODY_MAX / 4, toWhatsAppText), footer: toWhatsAppText(parts.footer) };
}

/** The note, escaped, with the link's line as it is (escaping would break the URL: WhatsApp has no link markup). */
const approvalBody = (frame: PromptText, block: string, note: string | undefined, link: string | undefined): string =>
  [frame.body, whatsappCodeBlock(block), note === undefined ? undefined : [toWhatsAppText(note), ...(link ? [reviewLinkLine(link)] : [])].join("\n"), frame.footer].filter((p) => p).join("\n\n");

/**
 * What an approval's copy shows and offers on WhatsApp (the very computation `whatsappApprovalShownWhole` reads). The
 * subject must fit the list message's body (1,024 characters). A list has no URL row: Review…'s link is in the body.
 */
export function whatsappApprovalParts(record: QuestionRecord, options: WhatsAppPromptOptions = {}): ApprovalPromptParts {
  const frame = approvalFrame(record, options);
  const link = answerLinkOf(record, "whatsapp", options.targetChat);
  return approvalPromptParts(record, (block, note) => approvalBody(frame, block, note, link).length <= WHATSAPP_INTERACTIVE_BODY_MAX, { ...(link ? { link } : {}), late: options.late === true });
}

/** An approval: a list with the whole subject and its options, or a cut one with the link in the text and Deny. */
function approvalPrompt(record: QuestionRecord, options: WhatsAppPromptOptions): WhatsAppListMessage {
  const parts = whatsappApprovalParts(record, options);
  return listMessage(record, parts.buttons, approvalBody(approvalFrame(record, options), parts.view.text, parts.note, parts.reviewUrl));
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
export function renderWhatsAppSummary(record: QuestionRecord, options: ChatOptions & { targetChat?: string } = {}): WhatsAppMessage {
  if (record.status === "pending") return renderWhatsAppPrompt(record, options);
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderWhatsAppPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  return { type: "text", text: { body: cutToFit(renderSummary(record, options.nowMs), WHATSAPP_TEXT_MAX, toWhatsAppText), preview_url: false } };
}
