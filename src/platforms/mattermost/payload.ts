/**
 * Mattermost posts (createPost / patchPost): the prompt's text as the message, and for the one single-select question
 * one message attachment with an action per option, then Other… and Skip. Each action calls the bot's actions URL
 * with a context the bot signs: the server keeps it and never shows it to clients. All text goes through
 * toMattermostText.
 */
import type { QuestionRecord } from "../../record/record.ts";
import { acceptsLateAnswer } from "../../record/late-window.ts";
import { cutToFit, fitPromptText } from "../../render/text-width.ts";
import { chooseLayout } from "../../render/choose-layout.ts";
import { promptButtons, type PromptButton } from "../../render/prompt-buttons.ts";
import { missingPromptParts, promptTextParts } from "../../render/prompt-text.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../render/summary.ts";
import { replyHint, type ChatOptions } from "../../render/reply-hint.ts";
import { encodeMattermostCallback } from "./callback-data.ts";
import { toMattermostText } from "./escaping.ts";
import { MATTERMOST_BUTTON_TEXT_MAX, MATTERMOST_MESSAGE_MAX } from "./platform.ts";
import { answerLinkOf, approvalPromptParts, type ApprovalPromptParts } from "../../render/approval-prompt.ts";
import { REVIEW_BUTTON_TEXT } from "../../render/approval.ts";
import type { PromptText } from "../../render/text-width.ts";
import { ZWSP } from "../kit/escaping.ts";

/** The post prop that names the question a prompt asks: the bot checks a pressed post by it. */
export const MATTERMOST_QUESTION_PROP = "ask_user_question";
/** The path under MATTERMOST_ACTIONS_URL that button presses go to, and the one dialog submissions go to. */
export const MATTERMOST_ACTIONS_PATH = "/mattermost/actions";
export const MATTERMOST_DIALOG_PATH = "/mattermost/dialog";

/**
 * What an action posts back: the encoded callback `d` (question and option), the target chat `c` the copy was sent
 * for, and the bot's signature `s` over both and the post's channel.
 */
export interface MattermostActionContext {
  d: string;
  c: string;
  s: string;
}

export interface MattermostAction {
  /** Alphanumeric only (Mattermost puts it in a URL): opt0, opt1…, other, skip. */
  id: string;
  type: "button";
  name: string;
  style: "default" | "primary";
  integration: { url: string; context: MattermostActionContext };
}

export interface MattermostAttachment {
  /** Plain text for clients that cannot show actions. */
  fallback: string;
  actions: MattermostAction[];
}

export interface MattermostPost {
  message: string;
  props: { attachments: MattermostAttachment[]; [MATTERMOST_QUESTION_PROP]: string };
}

/** Where presses go and how their context is signed (by the bot: the renderer holds no secret). */
export interface MattermostActionSigning {
  /** The full URL of the actions endpoint. */
  url: string;
  /** The signed context for the encoded callback (the bot binds it to the chat and the channel). */
  context(data: string): MattermostActionContext;
}

/** For a fingerprint only (what a copy shows): no URL, no signature. */
export const UNSIGNED: MattermostActionSigning = { url: "", context: (d) => ({ d, c: "", s: "" }) };

/** `targetChat`: the target's chat id, for its answer link on an approval. */
export type MattermostRenderOptions = ChatOptions & { lead?: string; late?: boolean; actions?: MattermostActionSigning; targetChat?: string };

const plainText = (text: string) => text;

const actionIdOf = (button: PromptButton): string =>
  button.action.kind === "choice" ? `opt${button.action.optionIndex}` : button.action.kind;

function toAction(record: QuestionRecord, button: PromptButton, signing: MattermostActionSigning): MattermostAction {
  const d = encodeMattermostCallback({ questionId: record.id, action: button.action });
  return {
    id: actionIdOf(button),
    type: "button",
    // A button's name is plain text (no Markdown, no mentions): it is only cut to fit.
    name: cutToFit(button.text, MATTERMOST_BUTTON_TEXT_MAX, plainText),
    style: button.action.kind === "choice" ? "primary" : "default",
    integration: { url: signing.url, context: signing.context(d) },
  };
}

const post = (record: QuestionRecord, message: string, attachments: MattermostAttachment[] = []): MattermostPost => ({
  message,
  props: { attachments, [MATTERMOST_QUESTION_PROP]: record.id },
});

/** The prompt: the text, plus ONE attachment of actions for one single-select question. */
export function renderMattermostPrompt(record: QuestionRecord, options: MattermostRenderOptions = {}): MattermostPost {
  const layout = chooseLayout(record.questions, "mattermost");
  if (record.approval && layout === "buttons") return approvalPrompt(record, options);
  const parts = promptTextParts(record.questions, { layout, replyHint: replyHint("mattermost", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  const text = fitPromptText(parts, MATTERMOST_MESSAGE_MAX, toMattermostText);
  if (layout === "text") return post(record, text);
  const signing = options.actions ?? UNSIGNED;
  const buttons = promptButtons(record, { late: options.late === true });
  const fallback = buttons.map((b) => b.text).join(" · ");
  return post(record, text, [{ fallback, actions: buttons.map((b) => toAction(record, b, signing)) }]);
}

/**
 * An approval's subject as a ``` block: a zero-width space between two backticks (the subject's own are already
 * labelled marks), so no fence can close it; an `@` that starts a word is broken as in toMattermostText. Markdown does
 * not render in a code block, so nothing else is escaped there.
 */
export function mattermostCodeBlock(text: string): string {
  const inner = text.replace(/`(?=`)/gu, `\`${ZWSP}`).replace(/(?<![\p{L}\p{N}_])@(?=[\p{L}\p{N}._-])/gu, `@${ZWSP}`);
  return `\`\`\`\n${inner}\n\`\`\``;
}

/**
 * Mattermost's message attachments hold integration buttons only, never a URL button: Review… is a Markdown link in
 * the text (the gateway's own http(s) URL; anything that could end the link is refused).
 */
const reviewLink = (url: string | undefined): string | undefined => (url && /^https?:\/\/[^\s()<>[\]\\]+$/u.test(url) ? `[${REVIEW_BUTTON_TEXT}](${url})` : undefined);

function approvalFrame(record: QuestionRecord, options: MattermostRenderOptions): PromptText {
  const parts = promptTextParts(record.questions, { layout: "buttons", replyHint: replyHint("mattermost", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  return { body: cutToFit(parts.body, MATTERMOST_MESSAGE_MAX / 4, toMattermostText), footer: toMattermostText(parts.footer) };
}

const approvalMessage = (frame: PromptText, block: string, note: string | undefined, link: string | undefined): string =>
  [frame.body, mattermostCodeBlock(block), note === undefined ? undefined : toMattermostText(note), note === undefined ? undefined : link, frame.footer].filter((p) => p).join("\n\n");

/** What an approval's copy shows and offers on Mattermost (the very computation `mattermostApprovalShownWhole` reads). */
export function mattermostApprovalParts(record: QuestionRecord, options: MattermostRenderOptions = {}): ApprovalPromptParts {
  const frame = approvalFrame(record, options);
  const url = answerLinkOf(record, "mattermost", options.targetChat);
  const link = reviewLink(url) ? url : undefined;
  return approvalPromptParts(record, (block, note) => approvalMessage(frame, block, note, reviewLink(link)).length <= MATTERMOST_MESSAGE_MAX, { ...(link ? { link } : {}), late: options.late === true });
}

/** An approval: the whole subject with its options, or a cut one with the Review… link in the text and Deny. */
function approvalPrompt(record: QuestionRecord, options: MattermostRenderOptions): MattermostPost {
  const parts = mattermostApprovalParts(record, options);
  const text = approvalMessage(approvalFrame(record, options), parts.view.text, parts.note, reviewLink(parts.reviewUrl));
  const signing = options.actions ?? UNSIGNED;
  return post(record, text, [{ fallback: parts.buttons.map((b) => b.text).join(" · "), actions: parts.buttons.map((b) => toAction(record, b, signing)) }]);
}

/** The follow-up asking only for the missing questions of a partial reply (plain text, no actions). */
export function renderMattermostMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): string {
  return fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("mattermost", options) }), MATTERMOST_MESSAGE_MAX, toMattermostText);
}

/** The summary that replaces the prompt: the text, no attachment left. A pending record renders its prompt. */
export function renderMattermostSummary(record: QuestionRecord, options: MattermostRenderOptions = {}): MattermostPost {
  if (record.status === "pending") return renderMattermostPrompt(record, options);
  // Expired, but a late answer is still taken: the copy keeps its actions, under a line that says so.
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return renderMattermostPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true });
  return post(record, cutToFit(renderSummary(record, options.nowMs), MATTERMOST_MESSAGE_MAX, toMattermostText));
}
