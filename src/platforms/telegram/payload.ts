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

/** Telegram message text: 1-4096 characters. */
export const TELEGRAM_TEXT_MAX = 4096;

export interface TelegramInlineButton {
  text: string;
  callback_data: string;
}

/** `reply_markup` is absent on a text-layout prompt, and an empty keyboard on a summary (removes the buttons). */
export interface TelegramMessage {
  text: string;
  reply_markup?: { inline_keyboard: TelegramInlineButton[][] };
}

/** The prompt: one full-width row per button in the buttons layout; no reply_markup in the text layout. */
export function renderTelegramPrompt(record: QuestionRecord, options: ChatOptions & { lead?: string; late?: boolean } = {}): TelegramMessage {
  const layout = chooseLayout(record.questions, "telegram");
  const text = fitPromptText(promptTextParts(record.questions, { layout, replyHint: replyHint("telegram", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true }), TELEGRAM_TEXT_MAX, toTelegramText);
  if (layout === "text") return { text };
  const inline_keyboard = promptButtons(record, { late: options.late === true }).map((button) => [
    { text: button.text, callback_data: encodeTelegramCallbackData({ questionId: record.id, action: button.action }) },
  ]);
  return { text, reply_markup: { inline_keyboard } };
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderTelegramMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): TelegramMessage {
  return { text: fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("telegram", options) }), TELEGRAM_TEXT_MAX, toTelegramText) };
}

/** The summary that replaces the prompt, with an empty keyboard. A pending record renders its prompt. */
export function renderTelegramSummary(record: QuestionRecord, options: ChatOptions = {}): TelegramMessage {
  if (record.status === "pending") return renderTelegramPrompt(record, options);
  // Expired, but a late answer is still taken: the copy keeps its controls, under a line that says so.
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderTelegramPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  return { text: cutToFit(renderSummary(record, options.nowMs), TELEGRAM_TEXT_MAX, toTelegramText), reply_markup: { inline_keyboard: [] } };
}
