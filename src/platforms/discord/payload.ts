/** Discord message payloads (REST create/edit message). Never pings: `allowed_mentions: { parse: [] }` plus escaped content. */
import type { QuestionRecord } from "../../record/record.ts";
import { acceptsLateAnswer } from "../../record/late-window.ts";
import { encodeDiscordCustomId } from "./callback-data.ts";
import { cutToFit, fitPromptText } from "../../render/text-width.ts";
import { chooseLayout } from "../../render/choose-layout.ts";
import { toDiscordContent } from "./escaping.ts";
import { promptButtons, type PromptButton } from "../../render/prompt-buttons.ts";
import { missingPromptParts, promptTextParts } from "../../render/prompt-text.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../render/summary.ts";
import { replyHint, type ChatOptions } from "../../render/reply-hint.ts";
import { DISCORD_BUTTON_LABEL_MAX, DISCORD_BUTTONS_PER_ROW } from "./platform.ts";
import { answerLinkOf, approvalPromptParts, type ApprovalPromptParts } from "../../render/approval-prompt.ts";
import { REVIEW_BUTTON_TEXT } from "../../render/approval.ts";
import type { PromptText } from "../../render/text-width.ts";
import { neutralizeBroadcastMentions, ZWSP } from "../kit/escaping.ts";

export const DISCORD_CONTENT_MAX = 2000;

export const DISCORD_COMPONENT_ACTION_ROW = 1;
export const DISCORD_COMPONENT_BUTTON = 2;
export const DISCORD_BUTTON_STYLE_PRIMARY = 1;
export const DISCORD_BUTTON_STYLE_SECONDARY = 2;
/** A link button: it opens its URL and sends the bot nothing (an approval's Review…). */
export const DISCORD_BUTTON_STYLE_LINK = 5;

export interface DiscordButton {
  type: typeof DISCORD_COMPONENT_BUTTON;
  style: typeof DISCORD_BUTTON_STYLE_PRIMARY | typeof DISCORD_BUTTON_STYLE_SECONDARY;
  label: string;
  custom_id: string;
}

export interface DiscordLinkButton {
  type: typeof DISCORD_COMPONENT_BUTTON;
  style: typeof DISCORD_BUTTON_STYLE_LINK;
  label: string;
  url: string;
  custom_id?: never;
}

export interface DiscordActionRow {
  type: typeof DISCORD_COMPONENT_ACTION_ROW;
  components: Array<DiscordButton | DiscordLinkButton>;
}

/** Prompt options: the chat kind, and the target's chat id (for its answer link, on an approval). */
export type DiscordPromptOptions = ChatOptions & { lead?: string; late?: boolean; targetChat?: string };

export interface DiscordMessage {
  content: string;
  components: DiscordActionRow[];
  allowed_mentions: { parse: [] };
}

function toDiscordButton(record: QuestionRecord, button: PromptButton): DiscordButton {
  return {
    type: DISCORD_COMPONENT_BUTTON,
    style: button.action.kind === "choice" ? DISCORD_BUTTON_STYLE_PRIMARY : DISCORD_BUTTON_STYLE_SECONDARY,
    label: cutToFit(button.text, DISCORD_BUTTON_LABEL_MAX, (s) => s),
    custom_id: encodeDiscordCustomId({ questionId: record.id, action: button.action }),
  };
}

function actionRow(components: Array<DiscordButton | DiscordLinkButton>): DiscordActionRow {
  return { type: DISCORD_COMPONENT_ACTION_ROW, components };
}

/** Options in rows of at most 5 (one row, since a question has at most 4), then a row with Other… and Skip (no Skip when late). */
function buttonRows(record: QuestionRecord, late: boolean): DiscordActionRow[] {
  const buttons = promptButtons(record, { late });
  const choices = buttons.filter((b) => b.action.kind === "choice").map((b) => toDiscordButton(record, b));
  const rows: DiscordActionRow[] = [];
  for (let i = 0; i < choices.length; i += DISCORD_BUTTONS_PER_ROW) {
    rows.push(actionRow(choices.slice(i, i + DISCORD_BUTTONS_PER_ROW)));
  }
  rows.push(actionRow(buttons.filter((b) => b.action.kind !== "choice").map((b) => toDiscordButton(record, b))));
  return rows;
}

function message(content: string, components: DiscordActionRow[]): DiscordMessage {
  return { content, components, allowed_mentions: { parse: [] } };
}

/** The prompt: buttons in action rows for one single-select question, otherwise numbered text with no components. */
export function renderDiscordPrompt(record: QuestionRecord, options: DiscordPromptOptions = {}): DiscordMessage {
  const layout = chooseLayout(record.questions, "discord");
  if (record.approval && layout === "buttons") return approvalPrompt(record, options);
  const content = fitPromptText(promptTextParts(record.questions, { layout, replyHint: replyHint("discord", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true }), DISCORD_CONTENT_MAX, toDiscordContent);
  return message(content, layout === "buttons" ? buttonRows(record, options.late === true) : []);
}

/**
 * An approval's subject as a ``` block: no run of backticks survives (a zero-width space between two backticks; the
 * subject's own zero-width spaces are already labelled marks), so nothing closes the fence; `@everyone` is broken.
 * Markdown and mentions do not render inside a code block, so nothing else needs escaping there.
 */
export function discordCodeBlock(text: string): string {
  return `\`\`\`\n${neutralizeBroadcastMentions(text).replace(/`(?=`)/gu, `\`${ZWSP}`)}\n\`\`\``;
}

function approvalFrame(record: QuestionRecord, options: DiscordPromptOptions): PromptText {
  const parts = promptTextParts(record.questions, { layout: "buttons", replyHint: replyHint("discord", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  return { body: cutToFit(parts.body, DISCORD_CONTENT_MAX / 4, toDiscordContent), footer: toDiscordContent(parts.footer) };
}

const approvalContent = (frame: PromptText, block: string, note: string | undefined): string =>
  [frame.body, discordCodeBlock(block), note === undefined ? undefined : toDiscordContent(note), frame.footer].filter((p) => p).join("\n\n");

/** What an approval's copy shows and offers on Discord (the very computation `discordApprovalShownWhole` reads). */
export function discordApprovalParts(record: QuestionRecord, options: DiscordPromptOptions = {}): ApprovalPromptParts {
  const frame = approvalFrame(record, options);
  const link = answerLinkOf(record, "discord", options.targetChat);
  return approvalPromptParts(record, (block, note) => approvalContent(frame, block, note).length <= DISCORD_CONTENT_MAX, { ...(link ? { link } : {}), late: options.late === true });
}

/** An approval: the whole subject with its options, or a cut one with Review… (a link button) and Deny. */
function approvalPrompt(record: QuestionRecord, options: DiscordPromptOptions): DiscordMessage {
  const parts = discordApprovalParts(record, options);
  const content = approvalContent(approvalFrame(record, options), parts.view.text, parts.note);
  if (parts.note === undefined) return message(content, buttonRows(record, options.late === true));
  const review: DiscordLinkButton[] = parts.reviewUrl ? [{ type: DISCORD_COMPONENT_BUTTON, style: DISCORD_BUTTON_STYLE_LINK, label: REVIEW_BUTTON_TEXT, url: parts.reviewUrl }] : [];
  return message(content, [actionRow([...review, ...parts.buttons.map((b) => toDiscordButton(record, b))])]);
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderDiscordMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): DiscordMessage {
  return message(fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("discord", options) }), DISCORD_CONTENT_MAX, toDiscordContent), []);
}

/** The summary that replaces the prompt, with no components. A pending record renders its prompt. */
export function renderDiscordSummary(record: QuestionRecord, options: ChatOptions & { targetChat?: string } = {}): DiscordMessage {
  if (record.status === "pending") return renderDiscordPrompt(record, options);
  // Expired, but a late answer is still taken: the copy keeps its controls, under a line that says so.
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderDiscordPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  return message(cutToFit(renderSummary(record, options.nowMs), DISCORD_CONTENT_MAX, toDiscordContent), []);
}
