/** Telegram payloads for sendMessage / editMessageText. Text is sent WITHOUT parse_mode, so no markup applies. */
import type { QuestionRecord } from "../../record/record.ts";
import { acceptsLateAnswer } from "../../record/late-window.ts";
import { encodeTelegramCallbackData } from "./callback-data.ts";
import { cutToFit, fitPromptText } from "../../render/text-width.ts";
import { chooseLayout } from "../../render/choose-layout.ts";
import { toTelegramText } from "./escaping.ts";
import { promptButtons } from "../../render/prompt-buttons.ts";
import { missingPromptParts, promptTextParts } from "../../render/prompt-text.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../render/summary.ts";
import { replyHint, type ChatOptions } from "../../render/reply-hint.ts";
import { answerLinkOf, approvalPromptParts, type ApprovalPromptParts } from "../../render/approval-prompt.ts";
import { REVIEW_BUTTON_TEXT } from "../../render/approval.ts";
import type { PromptText } from "../../render/text-width.ts";

/** Telegram message text: 1-4096 characters. */
export const TELEGRAM_TEXT_MAX = 4096;

export interface TelegramInlineButton {
  text: string;
  callback_data: string;
}

/** A button that opens a URL (an approval's Review…): Telegram sends the bot nothing when it is pressed. */
export interface TelegramUrlButton {
  text: string;
  url: string;
  callback_data?: never;
}

/** A message entity: an approval's subject is one `pre` block (offset and length in UTF-16 code units). */
export interface TelegramEntity {
  type: "pre";
  offset: number;
  length: number;
}

/**
 * `reply_markup` is absent on a text-layout prompt, and an empty keyboard on a summary (removes the buttons).
 * `entities` (an approval's code block) go with the text on send and on edit: the text has no parse_mode.
 */
export interface TelegramMessage {
  text: string;
  entities?: TelegramEntity[];
  reply_markup?: { inline_keyboard: Array<Array<TelegramInlineButton | TelegramUrlButton>> };
}

/** Options of a prompt: the chat kind, and the target's chat id (for its answer link, on an approval). */
export type TelegramPromptOptions = ChatOptions & { lead?: string; late?: boolean; targetChat?: string };

/** The prompt: one full-width row per button in the buttons layout; no reply_markup in the text layout. */
export function renderTelegramPrompt(record: QuestionRecord, options: TelegramPromptOptions = {}): TelegramMessage {
  const layout = chooseLayout(record.questions, "telegram");
  if (record.approval && layout === "buttons") return approvalPrompt(record, options);
  const text = fitPromptText(promptTextParts(record.questions, { layout, replyHint: replyHint("telegram", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true }), TELEGRAM_TEXT_MAX, toTelegramText);
  if (layout === "text") return { text };
  const inline_keyboard = promptButtons(record, { late: options.late === true }).map((button) => [
    { text: button.text, callback_data: encodeTelegramCallbackData({ questionId: record.id, action: button.action }) },
  ]);
  return { text, reply_markup: { inline_keyboard } };
}

/** The text around an approval's block: the header and question (cut to a quarter of the limit), and the footer. */
function approvalFrame(record: QuestionRecord, options: TelegramPromptOptions): PromptText {
  const parts = promptTextParts(record.questions, { layout: "buttons", replyHint: replyHint("telegram", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  return { body: cutToFit(parts.body, TELEGRAM_TEXT_MAX / 4, toTelegramText), footer: toTelegramText(parts.footer) };
}

/** An approval's text: header and question, the subject in a `pre` entity, the note, the footer. */
function approvalText(frame: PromptText, block: string, note: string | undefined): { text: string; entities: TelegramEntity[] } {
  const shown = toTelegramText(block);
  const text = [frame.body, shown, note === undefined ? undefined : toTelegramText(note), frame.footer].filter((p) => p).join("\n\n");
  return { text, entities: shown ? [{ type: "pre", offset: frame.body.length + 2, length: shown.length }] : [] };
}

/** What an approval's copy shows and offers in Telegram (the very computation `telegramApprovalShownWhole` reads). */
export function telegramApprovalParts(record: QuestionRecord, options: TelegramPromptOptions = {}): ApprovalPromptParts {
  const frame = approvalFrame(record, options);
  const link = answerLinkOf(record, "telegram", options.targetChat);
  return approvalPromptParts(record, (block, note) => approvalText(frame, block, note).text.length <= TELEGRAM_TEXT_MAX, { ...(link ? { link } : {}), late: options.late === true });
}

/** An approval: the whole subject with its options, or a cut one with Review… (a URL button) and Deny. */
function approvalPrompt(record: QuestionRecord, options: TelegramPromptOptions): TelegramMessage {
  const parts = telegramApprovalParts(record, options);
  const { text, entities } = approvalText(approvalFrame(record, options), parts.view.text, parts.note);
  const review: TelegramUrlButton[][] = parts.reviewUrl ? [[{ text: REVIEW_BUTTON_TEXT, url: parts.reviewUrl }]] : [];
  const choices = parts.buttons.map((button) => [{ text: button.text, callback_data: encodeTelegramCallbackData({ questionId: record.id, action: button.action }) }]);
  return { text, ...(entities.length ? { entities } : {}), reply_markup: { inline_keyboard: [...review, ...choices] } };
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderTelegramMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): TelegramMessage {
  return { text: fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("telegram", options) }), TELEGRAM_TEXT_MAX, toTelegramText) };
}

/** The summary that replaces the prompt, with an empty keyboard. A pending record renders its prompt. */
export function renderTelegramSummary(record: QuestionRecord, options: ChatOptions & { targetChat?: string } = {}): TelegramMessage {
  if (record.status === "pending") return renderTelegramPrompt(record, options);
  // Expired, but a late answer is still taken: the copy keeps its controls, under a line that says so.
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderTelegramPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  return { text: cutToFit(renderSummary(record, options.nowMs), TELEGRAM_TEXT_MAX, toTelegramText), reply_markup: { inline_keyboard: [] } };
}
