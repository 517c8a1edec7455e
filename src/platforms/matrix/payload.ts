/**
 * Matrix event contents (plain JSON) for the prompt, its edits and its poll's end. The one single-select question is
 * an MSC3381 poll whose fallback (`body`, `org.matrix.msc1767.text`) is the numbered text, so clients without polls
 * still show a prompt that works by reply; everything else is an `m.room.message`. Every content carries an empty
 * `m.mentions` (nobody is pinged) and, for messages, an escaped `formatted_body`.
 */
import type { QuestionRecord } from "../../record/record.ts";
import { acceptsLateAnswer } from "../../record/late-window.ts";
import { cutToFit, fitPromptText } from "../../render/text-width.ts";
import { chooseLayout } from "../../render/choose-layout.ts";
import { promptButtons } from "../../render/prompt-buttons.ts";
import { missingPromptParts, promptTextParts } from "../../render/prompt-text.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../render/summary.ts";
import { replyHint, type ChatOptions } from "../../render/reply-hint.ts";
import { encodeMatrixAnswerId } from "./callback-data.ts";
import { toMatrixHtml, toMatrixText } from "./escaping.ts";
import { MATRIX_POLL_TEXT_MAX, MATRIX_TEXT_MAX } from "./platform.ts";
import { answerLinkOf, approvalPromptParts, type ApprovalPromptParts } from "../../render/approval-prompt.ts";
import { REVIEW_BUTTON_TEXT } from "../../render/approval.ts";
import type { PromptButton } from "../../render/prompt-buttons.ts";

/**
 * An approval's message content, in JSON bytes: an edit carries it twice (`m.new_content` and the fallback), and an
 * event is at most 65,536 bytes.
 */
export const MATRIX_APPROVAL_CONTENT_MAX_BYTES = 28_000;

/** Prompt options: the chat kind, and the target's chat id (for its answer link, on an approval). */
export type MatrixPromptOptions = ChatOptions & { lead?: string; late?: boolean; targetChat?: string };

/** The poll events' types and keys as Element and the other clients send them today (MSC3381's unstable names). */
export const MATRIX_POLL_START = "org.matrix.msc3381.poll.start";
export const MATRIX_POLL_END = "org.matrix.msc3381.poll.end";
/** A person's vote: the unstable name clients send, and the stable one. */
export const MATRIX_POLL_RESPONSES = ["org.matrix.msc3381.poll.response", "m.poll.response"] as const;
export const MATRIX_POLL_KIND_DISCLOSED = "org.matrix.msc3381.poll.disclosed";
/** MSC1767's text block: the text of a poll question or answer, and the fallback of a poll event. */
export const MATRIX_TEXT_BLOCK = "org.matrix.msc1767.text";
export const MATRIX_HTML_FORMAT = "org.matrix.custom.html";

/** Intentional mentions (spec 1.7): present and empty, so no push rule reads the body for names or `@room`. */
type NoMentions = Record<string, never>;

export interface MatrixMessageContent {
  msgtype: "m.text" | "m.notice";
  body: string;
  format: typeof MATRIX_HTML_FORMAT;
  formatted_body: string;
  "m.mentions": NoMentions;
}

export interface MatrixPollAnswer {
  /** The encoded callback (record id + action), never the label. */
  id: string;
  [MATRIX_TEXT_BLOCK]: string;
}

export interface MatrixPollContent {
  [MATRIX_POLL_START]: {
    question: { [MATRIX_TEXT_BLOCK]: string; body: string; msgtype: "m.text" };
    kind: typeof MATRIX_POLL_KIND_DISCLOSED;
    max_selections: 1;
    answers: MatrixPollAnswer[];
  };
  /** The fallback for clients without polls: the numbered text. */
  [MATRIX_TEXT_BLOCK]: string;
  body: string;
  msgtype: "m.text";
  "m.mentions": NoMentions;
}

export type MatrixPrompt = { type: "m.room.message"; content: MatrixMessageContent } | { type: typeof MATRIX_POLL_START; content: MatrixPollContent };

/** What a copy shows: its content (a poll stays a poll), and whether its poll is ended. */
export interface MatrixCopy {
  prompt: MatrixPrompt;
  pollEnded: boolean;
}

/** A message's content from plain text or text already made safe (`toMatrixText` is idempotent). */
export function matrixMessage(text: string, msgtype: "m.text" | "m.notice" = "m.notice"): MatrixMessageContent {
  const body = cutToFit(text, MATRIX_TEXT_MAX, toMatrixText);
  return { msgtype, body, format: MATRIX_HTML_FORMAT, formatted_body: toMatrixHtml(body), "m.mentions": {} };
}

/** The poll's question: the header and question, with the options' descriptions (the answers show labels only). */
function pollQuestion(record: QuestionRecord, lead?: string): string {
  const question = record.questions[0]!;
  const described = question.options.some((o) => o.description);
  const lines = [`${question.header}: ${question.question}`];
  if (described) lines.push(...question.options.map((o, i) => (o.description ? `${i + 1}. ${o.label} - ${o.description}` : `${i + 1}. ${o.label}`)));
  return cutToFit((lead ? [lead, ...lines] : lines).join("\n"), MATRIX_POLL_TEXT_MAX, toMatrixText);
}

function poll(record: QuestionRecord, question: string, fallback: string, late = false): MatrixPollContent {
  const answers = promptButtons(record, { late }).map((button) => ({
    id: encodeMatrixAnswerId({ questionId: record.id, action: button.action }),
    [MATRIX_TEXT_BLOCK]: cutToFit(button.text, MATRIX_POLL_TEXT_MAX, toMatrixText),
  }));
  return {
    [MATRIX_POLL_START]: {
      question: { [MATRIX_TEXT_BLOCK]: question, body: question, msgtype: "m.text" },
      kind: MATRIX_POLL_KIND_DISCLOSED,
      max_selections: 1,
      answers,
    },
    [MATRIX_TEXT_BLOCK]: fallback,
    body: fallback,
    msgtype: "m.text",
    "m.mentions": {},
  };
}

/** The numbered text of a prompt (the poll's fallback, or the whole prompt in the text layout). */
function numberedText(record: QuestionRecord, options: ChatOptions & { lead?: string; late?: boolean }): string {
  const parts = promptTextParts(record.questions, { layout: "text", replyHint: replyHint("matrix", options), ...(options.lead ? { lead: options.lead } : {}), late: options.late === true });
  return fitPromptText(parts, MATRIX_TEXT_MAX, toMatrixText);
}

/** The prompt: a poll for one single-select question (the numbered text as its fallback), else numbered text. */
export function renderMatrixPrompt(record: QuestionRecord, options: MatrixPromptOptions = {}): MatrixPrompt {
  if (record.approval && chooseLayout(record.questions, "matrix") === "buttons") return { type: "m.room.message", content: approvalContent(record, options) };
  const text = numberedText(record, options);
  if (chooseLayout(record.questions, "matrix") === "text") return { type: "m.room.message", content: matrixMessage(text, "m.text") };
  return { type: MATRIX_POLL_START, content: poll(record, pollQuestion(record, options.lead), text, options.late === true) };
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/gu, (c) => HTML_ESCAPES[c]!);

/**
 * An approval's copy is an `m.room.message`, not a poll: a poll's question holds 340 characters, no code block. Its
 * options are numbered lines answered by a typed reply (Matrix has no buttons, and so no URL button: Review…'s link
 * is a line of the text and an `<a>` of the HTML). The subject is a `<pre><code>` block, HTML-escaped (no tag, pill
 * or entity can form), and the same text in `body`. A cut copy lists only `2. Deny` (a typed `2` is Deny everywhere).
 */
function approvalParts(record: QuestionRecord, options: MatrixPromptOptions, block: string, note: string | undefined, reviewUrl: string | undefined, buttons: PromptButton[]): MatrixMessageContent {
  const question = record.questions[0]!;
  const late = options.late === true;
  const frame = promptTextParts(record.questions, { layout: "text", replyHint: replyHint("matrix", options), late });
  const headText = [options.lead, `${question.header}\n${question.question}`].filter((p) => p).join("\n\n");
  const head = cutToFit(headText, MATRIX_TEXT_MAX / 8, toMatrixText);
  const optionLines = buttons.flatMap((b) => (b.action.kind === "choice" ? [`${b.action.optionIndex + 1}. ${b.text}`] : [])).join("\n");
  const shown = toMatrixText(block);
  const noteLines = note === undefined ? [] : note.split("\n");
  // The link's line (the note's last, with a link) is an <a> in the HTML.
  const noteHtml = noteLines.map((line, i) => (reviewUrl && i === noteLines.length - 1 ? `<a href="${escapeHtml(reviewUrl)}">${escapeHtml(REVIEW_BUTTON_TEXT)}</a>` : toMatrixHtml(line))).join("<br>");
  const rest = toMatrixText([optionLines, ...(note === undefined ? [] : [note]), frame.footer].join("\n\n"));
  const body = [head, shown, rest].filter((p) => p).join("\n\n");
  const html = [
    `<p>${toMatrixHtml(head)}</p>`,
    shown ? `<pre><code>${escapeHtml(shown)}</code></pre>` : "",
    `<p>${toMatrixHtml(optionLines)}</p>`,
    noteHtml ? `<p>${noteHtml}</p>` : "",
    `<p>${toMatrixHtml(frame.footer)}</p>`,
  ].join("");
  return { msgtype: "m.text", body, format: MATRIX_HTML_FORMAT, formatted_body: html, "m.mentions": {} };
}

const fitsMatrix = (content: MatrixMessageContent): boolean => content.body.length <= MATRIX_TEXT_MAX && new TextEncoder().encode(JSON.stringify(content)).length <= MATRIX_APPROVAL_CONTENT_MAX_BYTES;

/** What an approval's copy shows and offers on Matrix (the very computation `matrixApprovalShownWhole` reads). */
export function matrixApprovalParts(record: QuestionRecord, options: MatrixPromptOptions = {}): ApprovalPromptParts {
  const link = answerLinkOf(record, "matrix", options.targetChat);
  const all = promptButtons(record, { late: options.late === true });
  return approvalPromptParts(record, (block, note) => fitsMatrix(approvalParts(record, options, block, note, link, all)), { ...(link ? { link } : {}), late: options.late === true, linkInText: true });
}

function approvalContent(record: QuestionRecord, options: MatrixPromptOptions): MatrixMessageContent {
  const parts = matrixApprovalParts(record, options);
  return approvalParts(record, options, parts.view.text, parts.note, parts.reviewUrl, parts.buttons);
}

/** The follow-up asking only for the missing questions of a partial reply. */
export function renderMatrixMissingPrompt(record: QuestionRecord, missingIds: readonly string[], options: ChatOptions = {}): MatrixMessageContent {
  return matrixMessage(fitPromptText(missingPromptParts(record.questions, missingIds, { replyHint: replyHint("matrix", options) }), MATRIX_TEXT_MAX, toMatrixText), "m.text");
}

/**
 * What a copy shows now: the prompt while pending (or while a late answer is still taken, under a line that says so);
 * once terminal the summary, and a poll ended. A poll stays a poll (an edit keeps its event type): its question and
 * fallback become the summary.
 */
export function renderMatrixSummary(record: QuestionRecord, options: ChatOptions & { targetChat?: string } = {}): MatrixCopy {
  if (record.status === "pending") return { prompt: renderMatrixPrompt(record, options), pollEnded: false };
  if (acceptsLateAnswer(record, options.nowMs ?? Date.now())) return { prompt: renderMatrixPrompt(record, { ...options, lead: LATE_OPEN_SUMMARY, late: true }), pollEnded: false };
  const summary = cutToFit(renderSummary(record, options.nowMs), MATRIX_TEXT_MAX, toMatrixText);
  // An approval's copy is a message, never a poll (see approvalContent): an edit keeps the event's type.
  if (chooseLayout(record.questions, "matrix") === "text" || record.approval) return { prompt: { type: "m.room.message", content: matrixMessage(summary, "m.text") }, pollEnded: false };
  return { prompt: { type: MATRIX_POLL_START, content: poll(record, cutToFit(summary, MATRIX_POLL_TEXT_MAX, toMatrixText), summary) }, pollEnded: true };
}

/** An `m.replace` edit of the event `eventId` into `prompt` (of the same type, as edits must be). */
export function matrixEditContent(eventId: string, prompt: MatrixPrompt): Record<string, unknown> {
  const outer: Record<string, unknown> = { ...prompt.content, body: `* ${prompt.content.body}` };
  if ("formatted_body" in prompt.content) outer.formatted_body = `* ${prompt.content.formatted_body}`;
  if (MATRIX_TEXT_BLOCK in prompt.content) outer[MATRIX_TEXT_BLOCK] = `* ${prompt.content[MATRIX_TEXT_BLOCK]}`;
  return { ...outer, "m.new_content": prompt.content, "m.relates_to": { rel_type: "m.replace", event_id: eventId } };
}

/** Ends the poll `pollEventId`; the text (the summary) is what clients show for the end. */
export function matrixPollEndContent(pollEventId: string, text: string): Record<string, unknown> {
  const body = cutToFit(text, MATRIX_TEXT_MAX, toMatrixText);
  return {
    "m.relates_to": { rel_type: "m.reference", event_id: pollEventId },
    [MATRIX_POLL_END]: {},
    [MATRIX_TEXT_BLOCK]: body,
    body,
    msgtype: "m.text",
    "m.mentions": {},
  };
}
