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
  elements: SlackButton[];
}

export type SlackBlock = SlackSectionBlock | SlackActionsBlock;

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
export function renderSlackPrompt(record: QuestionRecord, options: ChatOptions & { lead?: string; late?: boolean } = {}): SlackMessage {
  const layout = chooseLayout(record.questions, "slack");
  const text = fitPromptText(promptTextParts(record.questions, { layout, replyHint: replyHint("slack", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true }), SLACK_SECTION_TEXT_MAX, toSlackText);
  if (layout === "text") return { text, blocks: [section(text)] };
  const actions: SlackActionsBlock = {
    type: "actions",
    block_id: `${SLACK_ACTIONS_BLOCK_ID_PREFIX}${record.id}`,
    elements: promptButtons(record, { late: options.late === true }).map((b) => toSlackButton(record, b)),
  };
  return { text, blocks: [section(text), actions] };
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderSlackMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): SlackMessage {
  const text = fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("slack", options) }), SLACK_SECTION_TEXT_MAX, toSlackText);
  return { text, blocks: [section(text)] };
}

/** The summary that replaces the prompt: one section, no actions block. A pending record renders its prompt. */
export function renderSlackSummary(record: QuestionRecord, options: ChatOptions = {}): SlackMessage {
  if (record.status === "pending") return renderSlackPrompt(record, options);
  // Expired, but a late answer is still taken: the copy keeps its controls, under a line that says so.
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderSlackPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  const text = cutToFit(renderSummary(record, options.nowMs), SLACK_SECTION_TEXT_MAX, toSlackText);
  return { text, blocks: [section(text)] };
}
