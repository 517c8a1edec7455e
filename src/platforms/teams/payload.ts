/**
 * Teams payloads: an Adaptive Card in a message activity (sent, then updated with updateActivity). The prompt's text
 * is one TextBlock per line (a TextBlock joins single line breaks); the one single-select question gets one
 * Action.Submit per option, Other… (an Action.ShowCard holding an Input.Text and its own Action.Submit, so the words
 * are submitted in the card) and Skip. The summary is the same card without actions.
 */
import type { QuestionRecord } from "../../record/record.ts";
import { acceptsLateAnswer } from "../../record/late-window.ts";
import { chooseLayout } from "../../render/choose-layout.ts";
import { promptButtons, type PromptButton } from "../../render/prompt-buttons.ts";
import { missingPromptParts, promptTextParts } from "../../render/prompt-text.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../render/summary.ts";
import { cutToFit, fitPromptText } from "../../render/text-width.ts";
import { encodeTeamsSubmitData } from "./callback-data.ts";
import { toTeamsCardText, toTeamsPlainCardText } from "./escaping.ts";
import { TEAMS_ACTION_TITLE_MAX, teams } from "./platform.ts";
import { answerLinkOf, approvalPromptParts, type ApprovalPromptParts } from "../../render/approval-prompt.ts";
import { REVIEW_BUTTON_TEXT } from "../../render/approval.ts";

/** The card's text, all lines together. Teams takes a message of about 28 KB; this leaves room for the card's JSON. */
export const TEAMS_CARD_TEXT_MAX = 8_000;
/** The own-words field's label (the question, cut, its broadcast mentions broken): Teams shows it above the field. */
export const TEAMS_INPUT_LABEL_MAX = 200;
/** The own-words field: what one answer may hold. */
export const TEAMS_ANSWER_MAX_LENGTH = 2_000;
export const TEAMS_ADAPTIVE_CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive";
export const TEAMS_CARD_VERSION = "1.4";
/** The Action.Submit data field that carries the encoded press, and the Other… input's id (its value joins the data). */
export const TEAMS_SUBMIT_FIELD = "ask_user";
export const TEAMS_ANSWER_INPUT_ID = "ask_user_answer";
/** In a group chat (no threads), the hint names a reply. */
export const TEAMS_GROUP_CHAT_HINT = "In this group, a typed answer counts only as a reply to this message. Or @mention me with it.";

/** Where a copy is: a personal chat, a group chat, or a channel. */
export type TeamsChatKind = "personal" | "groupChat" | "channel";

/** Teams takes a message activity of about 28 KB: an approval's card and its fallback text stay under this many bytes. */
export const TEAMS_ACTIVITY_MAX_BYTES = 24_000;

export interface TeamsCardOptions {
  kind?: TeamsChatKind;
  /** The target's chat id, for its answer link on an approval. */
  targetChat?: string;
  nowMs?: number;
  lead?: string;
  /** The copy of an expired question that still takes a late answer: no Skip. */
  late?: boolean;
}

export interface TeamsTextBlock {
  type: "TextBlock";
  text: string;
  wrap: true;
  spacing?: "None";
  /** An approval's subject, one block per line. */
  fontType?: "Monospace";
}

/** Review…: opens the answer page (Teams sends the bot nothing). */
export interface TeamsOpenUrlAction {
  type: "Action.OpenUrl";
  title: string;
  url: string;
}

export interface TeamsSubmitAction {
  type: "Action.Submit";
  title: string;
  data: { [TEAMS_SUBMIT_FIELD]: string };
}

export interface TeamsTextInput {
  type: "Input.Text";
  id: typeof TEAMS_ANSWER_INPUT_ID;
  label: string;
  isMultiline: true;
  maxLength: number;
  placeholder: string;
}

export interface TeamsShowCardAction {
  type: "Action.ShowCard";
  title: string;
  card: { type: "AdaptiveCard"; body: TeamsTextInput[]; actions: TeamsSubmitAction[] };
}

export type TeamsAction = TeamsSubmitAction | TeamsShowCardAction | TeamsOpenUrlAction;

export interface TeamsAdaptiveCard {
  type: "AdaptiveCard";
  $schema: "http://adaptivecards.io/schemas/adaptive-card.json";
  version: typeof TEAMS_CARD_VERSION;
  body: TeamsTextBlock[];
  actions?: TeamsAction[];
}

/** A message activity's content: the card, and the same text for notifications and clients without cards. */
export interface TeamsMessage {
  text: string;
  card: TeamsAdaptiveCard;
}

/** `19:…@thread.tacv2` (or the older `@thread.skype`) is a channel, `19:…@thread.v2` a group chat; anything else is one person's. */
export function teamsChatKind(chat: string): TeamsChatKind {
  if (/@thread\.(tacv2|skype)$/u.test(chat)) return "channel";
  if (/@thread\.v2$/u.test(chat)) return "groupChat";
  return "personal";
}

const hintFor = (kind: TeamsChatKind): string | undefined => (kind === "channel" ? teams.chats.replyHint : kind === "groupChat" ? TEAMS_GROUP_CHAT_HINT : undefined);

/** One TextBlock per line (a TextBlock joins single line breaks); the first keeps the default spacing. */
const textBlocks = (text: string, monospace = false): TeamsTextBlock[] =>
  text.split("\n").map((line, i): TeamsTextBlock => ({ type: "TextBlock", text: line === "" ? " " : line, wrap: true, ...(i > 0 ? { spacing: "None" as const } : {}), ...(monospace ? { fontType: "Monospace" as const } : {}) }));

function card(text: string, actions?: TeamsAction[], body: TeamsTextBlock[] = textBlocks(text)): TeamsAdaptiveCard {
  return { type: "AdaptiveCard", $schema: "http://adaptivecards.io/schemas/adaptive-card.json", version: TEAMS_CARD_VERSION, body, ...(actions ? { actions } : {}) };
}

const title = (text: string) => cutToFit(text, TEAMS_ACTION_TITLE_MAX, (t) => t);
const submit = (record: QuestionRecord, button: PromptButton, text = button.text): TeamsSubmitAction => ({
  type: "Action.Submit",
  title: title(text),
  data: { [TEAMS_SUBMIT_FIELD]: encodeTeamsSubmitData({ questionId: record.id, action: button.action }) },
});

function toTeamsAction(record: QuestionRecord, button: PromptButton): TeamsAction {
  if (button.action.kind !== "other") return submit(record, button);
  return {
    type: "Action.ShowCard",
    title: title(button.text),
    card: {
      type: "AdaptiveCard",
      body: [
        { type: "Input.Text", id: TEAMS_ANSWER_INPUT_ID, label: cutToFit(record.questions[0]!.question, TEAMS_INPUT_LABEL_MAX, toTeamsPlainCardText), isMultiline: true, maxLength: TEAMS_ANSWER_MAX_LENGTH, placeholder: "Your answer" },
      ],
      actions: [submit(record, button, "Send")],
    },
  };
}

/** The prompt card; actions only for one single-select question. */
export function renderTeamsPrompt(record: QuestionRecord, options: TeamsCardOptions = {}): TeamsMessage {
  const layout = chooseLayout(record.questions, "teams");
  if (record.approval && layout === "buttons") return approvalPrompt(record, options);
  const hint = hintFor(options.kind ?? "personal");
  const text = fitPromptText(promptTextParts(record.questions, { layout, ...(hint ? { replyHint: hint } : {}), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true }), TEAMS_CARD_TEXT_MAX, toTeamsCardText);
  if (layout === "text") return { text, card: card(text) };
  return { text, card: card(text, promptButtons(record, { late: options.late === true }).map((b) => toTeamsAction(record, b))) };
}

/**
 * An approval's card: the header and question, the subject in Monospace TextBlocks (one per line, the card's markdown
 * escaped as everywhere, so nothing formats or links), the note, the footer. `text` is the same, for the fallback.
 */
function approvalMessage(record: QuestionRecord, options: TeamsCardOptions, block: string, note: string | undefined, actions: TeamsAction[]): TeamsMessage {
  const hint = hintFor(options.kind ?? "personal");
  const frame = promptTextParts(record.questions, { layout: "buttons", ...(hint ? { replyHint: hint } : {}), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  const head = cutToFit(frame.body, TEAMS_CARD_TEXT_MAX / 4, toTeamsCardText);
  const shown = toTeamsCardText(block);
  const tail = toTeamsCardText(note === undefined ? frame.footer : `${note}\n\n${frame.footer}`);
  const text = [head, shown, tail].filter((p) => p).join("\n\n");
  return { text, card: card(text, actions, [...textBlocks(head), ...(shown ? textBlocks(shown, true) : []), ...textBlocks(tail)]) };
}

/** Whether an approval's message fits: its text, and the activity (card and fallback) in bytes. */
const fitsTeams = (message: TeamsMessage): boolean =>
  message.text.length <= TEAMS_CARD_TEXT_MAX && new TextEncoder().encode(JSON.stringify({ ...message.card, fallbackText: message.text })).length <= TEAMS_ACTIVITY_MAX_BYTES;

/** The actions of a copy that shows the whole subject (the longest a copy has): the same the prompt has today. */
const wholeActions = (record: QuestionRecord, late: boolean): TeamsAction[] => promptButtons(record, { late }).map((b) => toTeamsAction(record, b));

/** What an approval's copy shows and offers in Teams (the very computation `teamsApprovalShownWhole` reads). */
export function teamsApprovalParts(record: QuestionRecord, options: TeamsCardOptions = {}): ApprovalPromptParts {
  const link = answerLinkOf(record, "teams", options.targetChat);
  const actions = wholeActions(record, options.late === true);
  return approvalPromptParts(record, (block, note) => fitsTeams(approvalMessage(record, options, block, note, actions)), { ...(link ? { link } : {}), late: options.late === true });
}

/** An approval: the whole subject with its options, or a cut one with Review… (Action.OpenUrl) and Deny. */
function approvalPrompt(record: QuestionRecord, options: TeamsCardOptions): TeamsMessage {
  const parts = teamsApprovalParts(record, options);
  if (parts.note === undefined) return approvalMessage(record, options, parts.view.text, undefined, wholeActions(record, options.late === true));
  const review: TeamsAction[] = parts.reviewUrl ? [{ type: "Action.OpenUrl", title: REVIEW_BUTTON_TEXT, url: parts.reviewUrl }] : [];
  return approvalMessage(record, options, parts.view.text, parts.note, [...review, ...parts.buttons.map((b) => toTeamsAction(record, b))]);
}

/** The follow-up asking only for the missing questions of a partial reply (a card without actions). */
export function renderTeamsMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: TeamsCardOptions = {}): TeamsMessage {
  const hint = hintFor(options.kind ?? "personal");
  const text = fitPromptText(missingPromptParts(record.questions, missingIds, hint ? { replyHint: hint } : {}), TEAMS_CARD_TEXT_MAX, toTeamsCardText);
  return { text, card: card(text) };
}

/** What a copy shows: the prompt while pending (or while a late answer is taken), else the summary without actions. */
export function renderTeamsSummary(record: QuestionRecord, options: TeamsCardOptions = {}): TeamsMessage {
  if (record.status === "pending") return renderTeamsPrompt(record, options);
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderTeamsPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  const text = cutToFit(renderSummary(record, options.nowMs), TEAMS_CARD_TEXT_MAX, toTeamsCardText);
  return { text, card: card(text) };
}
