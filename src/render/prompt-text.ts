/**
 * The numbered-text prompt (PRODUCT.md §2), and the text that goes with native buttons.
 * Plain text with no markup; each platform makes it safe with its own `toXText`.
 */
import type { AskUserOption, AskUserQuestion } from "../contract/schema.ts";
import { fitsButtons, type PromptLayout } from "./layout.ts";
import { joinPromptText, type PromptText } from "./text-width.ts";

export const OWN_WORDS_LINE = "None of these? Reply in your own words.";
export const SKIP_LINE = "Reply skip to skip.";
export const SINGLE_GUIDANCE = "Reply with a number, a label, or your own words.";
export const MULTI_SELECT_GUIDANCE =
  "Pick one or more: reply with numbers or labels, comma-separated (e.g. 1, 2), or your own words.";
export const SEVERAL_GUIDANCE = 'Reply with one line per question: a number, a label, or your own words, e.g. "1: 2" for option 2 of question 1.';
export const SEVERAL_MULTI_SELECT_MARK = "(one or more, comma-separated)";
export const BUTTONS_GUIDANCE = "Choose a button below, or reply in your own words.";

export interface PromptTextOptions {
  /** Defaults to "text". "buttons" needs exactly one single-select question. */
  layout?: PromptLayout;
  /** How a typed answer counts in this chat (a group: only as a reply to the prompt); the footer's first line. */
  replyHint?: string;
  /** A line above the prompt (an expired copy that still takes a late answer says so there). */
  lead?: string;
  /** The copy of an expired question that still takes a late answer: no skip line (a late skip is refused). */
  late?: boolean;
}

/** The guidance for several questions, numbered as in the original prompt (`numbers[i]` is question i's number). */
function severalGuidance(numbers: readonly number[]): string {
  const first = numbers[0] ?? 1;
  return first === 1 ? SEVERAL_GUIDANCE : SEVERAL_GUIDANCE.replace('"1: 2" for option 2 of question 1', `"${first}: 2" for option 2 of question ${first}`);
}

function optionLine(option: AskUserOption, index: number): string {
  const line = `${index + 1}. ${option.label}`;
  return option.description ? `${line} - ${option.description}` : line;
}

function optionLines(question: AskUserQuestion): string[] {
  return question.options.map(optionLine);
}

/** Buttons show labels only, so the text carries the descriptions (as a numbered list) when there are any. */
function buttonsPrompt(question: AskUserQuestion): PromptText {
  const head = `${question.header}\n${question.question}`;
  const described = question.options.some((o) => o.description);
  const body = described ? `${head}\n\n${optionLines(question).join("\n")}` : head;
  return { body, footer: BUTTONS_GUIDANCE };
}

/** The footer's lines: own words, the guidance, and the skip line unless the copy is late. */
function footerOf(guidance: string, late = false): string {
  return (late ? [OWN_WORDS_LINE, guidance] : [OWN_WORDS_LINE, guidance, SKIP_LINE]).join("\n");
}

function singleQuestionPrompt(question: AskUserQuestion, late?: boolean): PromptText {
  const body = `${question.header}\n${question.question}\n\n${optionLines(question).join("\n")}`;
  return { body, footer: footerOf(question.multiSelect ? MULTI_SELECT_GUIDANCE : SINGLE_GUIDANCE, late) };
}

/** Several questions; `numbers[i]` is question i's number (after a partial answer, the numbers of the first prompt). */
function severalQuestionsPrompt(questions: readonly AskUserQuestion[], numbers: readonly number[] = questions.map((_, i) => i + 1), late?: boolean): PromptText {
  const blocks = questions.map((q, i) => {
    const title = `Question ${numbers[i]}: ${q.header}${q.multiSelect ? ` ${SEVERAL_MULTI_SELECT_MARK}` : ""}`;
    return [title, q.question, ...optionLines(q)].join("\n");
  });
  return { body: blocks.join("\n\n"), footer: footerOf(severalGuidance(numbers), late) };
}

function withReplyHint(parts: PromptText, replyHint: string | undefined, lead?: string): PromptText {
  const body = lead ? `${lead}\n\n${parts.body}` : parts.body;
  return { body, footer: replyHint ? `${replyHint}\n${parts.footer}` : parts.footer };
}

/** The prompt as a body (may be cut to fit a platform) and a footer with the reply guidance (kept whole). */
export function promptTextParts(questions: readonly AskUserQuestion[], opts: PromptTextOptions = {}): PromptText {
  const first = questions[0];
  if (first === undefined) throw new Error("renderPromptText: at least one question is required");
  if (opts.layout === "buttons") {
    if (!fitsButtons(questions)) throw new Error("renderPromptText: the buttons layout needs exactly one single-select question");
    return withReplyHint(buttonsPrompt(first), opts.replyHint, opts.lead);
  }
  return withReplyHint(questions.length === 1 ? singleQuestionPrompt(first, opts.late) : severalQuestionsPrompt(questions, undefined, opts.late), opts.replyHint, opts.lead);
}

/** The prompt as plain text: header, question, `N. Label - description`, own-words line, reply guidance, skip line. */
export function renderPromptText(questions: readonly AskUserQuestion[], opts?: PromptTextOptions): string {
  return joinPromptText(promptTextParts(questions, opts));
}

/**
 * The follow-up for a partial answer: only the missing questions, under the numbers they had in the first prompt (a
 * reply's `3: …` still means question 3). A single missing question is asked as a question on its own.
 */
export function missingPromptParts(questions: readonly AskUserQuestion[], missingIds: readonly string[], opts: Pick<PromptTextOptions, "replyHint"> = {}): PromptText {
  const numbers = questions.flatMap((q, i) => (missingIds.includes(q.id) ? [i + 1] : []));
  const missing = numbers.map((n) => questions[n - 1]!);
  if (missing.length === 0) throw new Error("renderMissingPrompt: no question matches the missing ids");
  const intro = missing.length === 1 ? "Thanks! One more answer is needed." : `Thanks! ${missing.length} more answers are needed.`;
  const parts = withReplyHint(missing.length === 1 ? singleQuestionPrompt(missing[0]!) : severalQuestionsPrompt(missing, numbers), opts.replyHint);
  return { body: `${intro}\n\n${parts.body}`, footer: parts.footer };
}

/** The "still missing" follow-up as plain text. The reply to it is parsed against the missing questions alone. */
export function renderMissingPrompt(questions: readonly AskUserQuestion[], missingIds: readonly string[], opts?: Pick<PromptTextOptions, "replyHint">): string {
  return joinPromptText(missingPromptParts(questions, missingIds, opts));
}
