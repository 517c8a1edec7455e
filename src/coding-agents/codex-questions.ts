/**
 * Codex's `item/tool/requestUserInput` questions as ask_user question sets, and the answers back in Codex's shape.
 * Pure. Codex allows questions the contract does not (any id, a long header, 0, 1 or many options, more than 3
 * questions): each is fitted to the contract and none is dropped, except a secret one, which is never asked in a
 * chat. A question without an answer is left out of Codex's answers, which is how Codex hears "no answer".
 */
import { normalizeAskUserInput } from "../contract/normalize.ts";
import type { AskUserResult } from "../contract/result.ts";
import { LIMITS, type AskUserInputRaw } from "../contract/schema.ts";
import { ellipsize, looseLabelKey } from "../kernel/text.ts";
import type { CodexQuestion, CodexUserInputResponse } from "./codex-protocol.ts";
import { quoteForPrompt } from "./prompt-text.ts";
import { uniqueHeader, uniqueId } from "./question-keys.ts";

/** Codex's own label for the free-form choice it adds to a question (its UI's "None of the above"). */
export const NONE_OF_THE_ABOVE = "None of the above";
export const NO_PREFERENCE = "No preference";
export const LEAVE_UNANSWERED = "Leave unanswered";
/** How Codex's own UI sends words typed beside the choices of a question that takes no free-form answer. */
export const USER_NOTE_PREFIX = "user_note: ";

/** Characters at most for the options past the fourth, named after the question. */
const MORE_MAX = 300;

const PADDING: Record<string, string> = {
  [NONE_OF_THE_ABOVE]: "Or type your own answer",
  [NO_PREFERENCE]: "Codex decides",
  [LEAVE_UNANSWERED]: "Codex gets no answer to this question",
};

/** One asked question, and how its answer goes back to Codex. */
interface AskedQuestion {
  codexId: string;
  /** Each shown label → the Codex label it stands for (a cut label stands for the whole one). */
  labels: Map<string, string>;
  /** Every Codex label by its loose key, so typed words naming one (also one not shown) send that label. */
  byKey: Map<string, string>;
  /** Labels added to reach two options. */
  padding: Set<string>;
  /** Codex takes words as the answer (`isOther`, or no options); otherwise they go as a user_note. */
  freeText: boolean;
}

/** One ask_user input and, by its question ids, the Codex questions it asks. */
export interface CodexQuestionSet {
  input: AskUserInputRaw;
  asked: Map<string, AskedQuestion>;
}

/** The questions as ask_user inputs of up to 3 questions each, in order; secret questions are left out. */
export function codexQuestionsToSets(questions: CodexQuestion[], timeoutSeconds?: number): CodexQuestionSet[] {
  const askable = questions.filter((question) => question.isSecret !== true);
  const sets: CodexQuestionSet[] = [];
  for (let i = 0; i < askable.length; i += LIMITS.maxQuestions) {
    const ids = new Set<string>();
    const headers = new Set<string>();
    const asked = new Map<string, AskedQuestion>();
    const chunk = askable.slice(i, i + LIMITS.maxQuestions).map((question) => {
      const id = uniqueId(question.id, ids, "question");
      const { options, more, meta } = fitOptions(question);
      asked.set(id, { codexId: question.id, ...meta });
      const also = more.length > 0 ? ` (You can also type: ${ellipsize(more.join(", "), MORE_MAX)}.)` : "";
      const header = uniqueHeader(question.header, headers, "Question");
      const text = quoteForPrompt(question.question, LIMITS.questionMaxLength - also.length) || header;
      return { id, header, question: text + also, options };
    });
    sets.push({ input: { questions: chunk, ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) }, asked });
  }
  return sets;
}

/** The answers of one set, by Codex question id; none when it got no answer. */
export function setAnswersToCodex(set: CodexQuestionSet, result: AskUserResult): CodexUserInputResponse["answers"] {
  if (result.status !== "answered") return {};
  const answers: CodexUserInputResponse["answers"] = {};
  for (const [id, asked] of set.asked) {
    const values = (result.answers.answers[id] ?? []).flatMap((value) => answerToCodex(asked, value));
    if (values.length > 0) answers[asked.codexId] = { answers: values };
  }
  return answers;
}

function answerToCodex(asked: AskedQuestion, value: string): string[] {
  const label = asked.labels.get(value);
  if (label !== undefined) return [label];
  if (asked.padding.has(value)) return value === LEAVE_UNANSWERED ? [] : [value];
  const named = asked.byKey.get(looseLabelKey(value));
  if (named !== undefined) return [named];
  return [asked.freeText ? value : USER_NOTE_PREFIX + value];
}

/** Codex's options as 2-4 contract options: unusable labels left out, past 4 named in the question, short ones padded. */
function fitOptions(question: CodexQuestion) {
  const codexOptions = question.options ?? [];
  const candidates = codexOptions.map((option) => ({
    label: quoteForPrompt(option.label, LIMITS.labelMaxGraphemes),
    description: quoteForPrompt(option.description ?? "", LIMITS.descriptionMaxLength),
    codexLabel: option.label,
  }));
  const refused = refusedLabels(candidates.map(({ label }) => label));
  const usable = candidates.filter((_, i) => !refused.has(i));
  const shown = usable.slice(0, LIMITS.maxOptions);
  const padding = new Set<string>();
  const keys = new Set(shown.map(({ label }) => looseLabelKey(label)));
  for (const label of shown.length === 0 ? [NO_PREFERENCE, LEAVE_UNANSWERED, NONE_OF_THE_ABOVE] : [NONE_OF_THE_ABOVE, NO_PREFERENCE, LEAVE_UNANSWERED]) {
    if (shown.length + padding.size >= LIMITS.minOptions) break;
    if (!keys.has(looseLabelKey(label))) padding.add(label);
  }
  const options = [
    ...shown.map(({ label, description }) => (description ? { label, description } : { label })),
    ...[...padding].map((label) => ({ label, description: PADDING[label]! })),
  ];
  const byKey = new Map(codexOptions.map((option) => [looseLabelKey(option.label), option.label] as const).filter(([key]) => key !== ""));
  const meta = {
    labels: new Map(shown.map(({ label, codexLabel }) => [label, codexLabel] as const)),
    byKey,
    padding,
    freeText: question.isOther === true || codexOptions.length === 0,
  };
  return { options, more: usable.slice(LIMITS.maxOptions).map(({ label }) => label), meta };
}

/** The indexes of the labels the contract's own check refuses ("Other", a repeat of another, only punctuation). */
function refusedLabels(labels: string[]): Set<number> {
  const check = normalizeAskUserInput({ questions: [{ id: "q", header: "q", question: "q", options: labels.map((label) => ({ label })) }] });
  const refused = new Set<number>();
  for (const issue of check.ok ? [] : check.issues) {
    const index = /^questions\[0\]\.options\[(\d+)\]\.label$/.exec(issue.path)?.[1];
    if (index !== undefined) refused.add(Number(index));
  }
  return refused;
}
