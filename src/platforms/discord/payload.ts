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

export const DISCORD_CONTENT_MAX = 2000;

export const DISCORD_COMPONENT_ACTION_ROW = 1;
export const DISCORD_COMPONENT_BUTTON = 2;
export const DISCORD_BUTTON_STYLE_PRIMARY = 1;
export const DISCORD_BUTTON_STYLE_SECONDARY = 2;

export interface DiscordButton {
  type: typeof DISCORD_COMPONENT_BUTTON;
  style: typeof DISCORD_BUTTON_STYLE_PRIMARY | typeof DISCORD_BUTTON_STYLE_SECONDARY;
  label: string;
  custom_id: string;
}

export interface DiscordActionRow {
  type: typeof DISCORD_COMPONENT_ACTION_ROW;
  components: DiscordButton[];
}

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

function actionRow(components: DiscordButton[]): DiscordActionRow {
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
export function renderDiscordPrompt(record: QuestionRecord, options: ChatOptions & { lead?: string; late?: boolean } = {}): DiscordMessage {
  const layout = chooseLayout(record.questions, "discord");
  const content = fitPromptText(promptTextParts(record.questions, { layout, replyHint: replyHint("discord", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true }), DISCORD_CONTENT_MAX, toDiscordContent);
  return message(content, layout === "buttons" ? buttonRows(record, options.late === true) : []);
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderDiscordMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): DiscordMessage {
  return message(fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("discord", options) }), DISCORD_CONTENT_MAX, toDiscordContent), []);
}

/** The summary that replaces the prompt, with no components. A pending record renders its prompt. */
export function renderDiscordSummary(record: QuestionRecord, options: ChatOptions = {}): DiscordMessage {
  if (record.status === "pending") return renderDiscordPrompt(record, options);
  // Expired, but a late answer is still taken: the copy keeps its controls, under a line that says so.
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderDiscordPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  return message(cutToFit(renderSummary(record, options.nowMs), DISCORD_CONTENT_MAX, toDiscordContent), []);
}
