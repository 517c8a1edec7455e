/** Slack Block Kit payloads (chat.postMessage / chat.update). All text escapes `&`, `<` and `>`. */
import type { QuestionRecord } from "../../record/record.ts";
import { acceptsLateAnswer } from "../../record/late-window.ts";
import { encodeSlackActionId } from "./callback-data.ts";
import { cutToFit, fitPromptText } from "../../render/text-width.ts";
import { chooseLayout } from "../../render/choose-layout.ts";
import { toSlackText } from "./escaping.ts";
import { promptButtons, type PromptButton } from "../../render/prompt-buttons.ts";
import { missingPromptParts, promptTextParts } from "../../render/prompt-text.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../render/summary.ts";
import { replyHint, type ChatOptions } from "../../render/reply-hint.ts";
import { SLACK_BUTTON_TEXT_MAX } from "./platform.ts";
import { answerLinkOf, approvalPromptParts, type ApprovalPromptParts } from "../../render/approval-prompt.ts";
import { REVIEW_BUTTON_TEXT } from "../../render/approval.ts";
import { neutralizeBroadcastMentions } from "../kit/escaping.ts";

/** A section block's text: at most 3000 characters. */
export const SLACK_SECTION_TEXT_MAX = 3000;
/** The actions block's block_id is this prefix plus the record id. */
export const SLACK_ACTIONS_BLOCK_ID_PREFIX = "ask_user:";

export interface SlackMrkdwn {
  type: "mrkdwn";
  text: string;
  /** No auto-linking of URLs, channel names or mentions. */
  verbatim: true;
}

export interface SlackPlainText {
  type: "plain_text";
  text: string;
  emoji: true;
}

export interface SlackSectionBlock {
  type: "section";
  text: SlackMrkdwn;
}

export interface SlackButton {
  type: "button";
  text: SlackPlainText;
  /** The encoded callback (record id + action); unique in the block. `value` repeats it. */
  action_id: string;
  value: string;
}

export interface SlackActionsBlock {
  type: "actions";
  block_id: string;
  elements: Array<SlackButton | SlackUrlButton>;
}

/** A URL button (an approval's Review…): Slack opens the URL and still sends a press, which the bot acknowledges and ignores. */
export interface SlackUrlButton {
  type: "button";
  text: SlackPlainText;
  action_id: typeof SLACK_REVIEW_ACTION_ID;
  url: string;
}

/** An approval's subject: preformatted rich text, whose text elements are literal (no mrkdwn, no mention forms). */
export interface SlackRichTextBlock {
  type: "rich_text";
  elements: [{ type: "rich_text_preformatted"; elements: [{ type: "text"; text: string }] }];
}

export type SlackBlock = SlackSectionBlock | SlackActionsBlock | SlackRichTextBlock;

/** The Review… button's action id: no question's callback, so the bot knows the press is only the link opening. */
export const SLACK_REVIEW_ACTION_ID = "ask_user_review";
/** A message holds at most 50 blocks. */
export const SLACK_BLOCKS_MAX = 50;
/** An approval's subject in one message: at most this many characters, in blocks of at most SLACK_SECTION_TEXT_MAX. */
export const SLACK_APPROVAL_TEXT_MAX = 12_000;

export interface SlackMessage {
  /** The notification / fallback text: the same escaped text as the section. */
  text: string;
  blocks: SlackBlock[];
}

function toSlackButton(record: QuestionRecord, button: PromptButton): SlackButton {
  const actionId = encodeSlackActionId({ questionId: record.id, action: button.action });
  return {
    type: "button",
    text: { type: "plain_text", text: cutToFit(button.text, SLACK_BUTTON_TEXT_MAX, toSlackText), emoji: true },
    action_id: actionId,
    value: actionId,
  };
}

function section(text: string): SlackSectionBlock {
  return { type: "section", text: { type: "mrkdwn", text, verbatim: true } };
}

/** The prompt: a section with the text, plus ONE actions block for one single-select question. */
export function renderSlackPrompt(record: QuestionRecord, options: SlackPromptOptions = {}): SlackMessage {
  const layout = chooseLayout(record.questions, "slack");
  if (record.approval && layout === "buttons") return approvalPrompt(record, options);
  const text = fitPromptText(promptTextParts(record.questions, { layout, replyHint: replyHint("slack", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true }), SLACK_SECTION_TEXT_MAX, toSlackText);
  if (layout === "text") return { text, blocks: [section(text)] };
  const actions: SlackActionsBlock = {
    type: "actions",
    block_id: `${SLACK_ACTIONS_BLOCK_ID_PREFIX}${record.id}`,
    elements: promptButtons(record, { late: options.late === true }).map((b) => toSlackButton(record, b)),
  };
  return { text, blocks: [section(text), actions] };
}

/** Prompt options: the chat kind, and the target's chat id (for its answer link, on an approval). */
export type SlackPromptOptions = ChatOptions & { lead?: string; late?: boolean; targetChat?: string };

/**
 * An approval's subject as preformatted rich-text blocks of whole lines, each at most SLACK_SECTION_TEXT_MAX (a line
 * longer than that is split). A text element is literal, so `&`, `<` and `>` stay as they are; `@channel` is broken.
 */
export function slackCodeBlocks(text: string): SlackRichTextBlock[] {
  const pieces = neutralizeBroadcastMentions(text)
    .split("\n")
    .flatMap((line) => (line.length <= SLACK_SECTION_TEXT_MAX ? [line] : (line.match(new RegExp(`[^]{1,${SLACK_SECTION_TEXT_MAX}}`, "gu")) ?? [])));
  const chunks: string[] = [];
  let current: string | undefined;
  for (const piece of pieces) {
    if (current !== undefined && current.length + 1 + piece.length <= SLACK_SECTION_TEXT_MAX) current = `${current}\n${piece}`;
    else {
      if (current !== undefined) chunks.push(current);
      current = piece;
    }
  }
  if (current !== undefined) chunks.push(current);
  return chunks.map((chunk) => ({ type: "rich_text", elements: [{ type: "rich_text_preformatted", elements: [{ type: "text", text: chunk }] }] }));
}

/** The blocks around the subject: the header and question, the note, the footer (each a section); and the actions. */
const APPROVAL_OTHER_BLOCKS = 4;

/** What an approval's copy shows and offers in Slack (the very computation `slackApprovalShownWhole` reads). */
export function slackApprovalParts(record: QuestionRecord, options: SlackPromptOptions = {}): ApprovalPromptParts {
  const link = answerLinkOf(record, "slack", options.targetChat);
  const fits = (block: string) => block.length <= SLACK_APPROVAL_TEXT_MAX && slackCodeBlocks(block).length + APPROVAL_OTHER_BLOCKS <= SLACK_BLOCKS_MAX;
  return approvalPromptParts(record, fits, { ...(link ? { link } : {}), late: options.late === true });
}

/** An approval: the whole subject with its options, or a cut one with Review… (a URL button) and Deny. */
function approvalPrompt(record: QuestionRecord, options: SlackPromptOptions): SlackMessage {
  const parts = slackApprovalParts(record, options);
  const frame = promptTextParts(record.questions, { layout: "buttons", replyHint: replyHint("slack", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  const head = cutToFit(frame.body, SLACK_SECTION_TEXT_MAX, toSlackText);
  const footer = cutToFit(parts.note === undefined ? frame.footer : `${parts.note}\n\n${frame.footer}`, SLACK_SECTION_TEXT_MAX, toSlackText);
  const review: SlackUrlButton[] = parts.reviewUrl
    ? [{ type: "button", text: { type: "plain_text", text: REVIEW_BUTTON_TEXT, emoji: true }, action_id: SLACK_REVIEW_ACTION_ID, url: parts.reviewUrl }]
    : [];
  const actions: SlackActionsBlock = { type: "actions", block_id: `${SLACK_ACTIONS_BLOCK_ID_PREFIX}${record.id}`, elements: [...review, ...parts.buttons.map((b) => toSlackButton(record, b))] };
  return { text: `${head}\n\n${footer}`, blocks: [section(head), ...(parts.view.text ? slackCodeBlocks(parts.view.text) : []), section(footer), actions] };
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderSlackMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): SlackMessage {
  const text = fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("slack", options) }), SLACK_SECTION_TEXT_MAX, toSlackText);
  return { text, blocks: [section(text)] };
}

/** The summary that replaces the prompt: one section, no actions block. A pending record renders its prompt. */
export function renderSlackSummary(record: QuestionRecord, options: ChatOptions & { targetChat?: string } = {}): SlackMessage {
  if (record.status === "pending") return renderSlackPrompt(record, options);
  // Expired, but a late answer is still taken: the copy keeps its controls, under a line that says so.
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderSlackPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  const text = cutToFit(renderSummary(record, options.nowMs), SLACK_SECTION_TEXT_MAX, toSlackText);
  return { text, blocks: [section(text)] };
}
