import { z } from "zod";
import type { AskUserResult } from "../contract/result.ts";
import { LIMITS, type AskUserInputRaw } from "../contract/schema.ts";
import { isAuthoredOther } from "../contract/normalize.ts";
import { quoteForPrompt } from "./prompt-text.ts";
import { uniqueHeader, uniqueId } from "./question-keys.ts";

/**
 * Claude Code's `AskUserQuestion` input, as far as we read it (extra fields are kept and handed back): 1–4
 * questions, each with a ≤ 12-character header, 2–4 options with descriptions, and `multiSelect`.
 */
export const claudeQuestionsSchema = z.looseObject({
  questions: z
    .array(
      z.looseObject({
        question: z.string().min(1),
        header: z.string(),
        options: z.array(z.looseObject({ label: z.string().min(1), description: z.string().optional() })).min(1),
        multiSelect: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(8),
});
export type ClaudeQuestions = z.infer<typeof claudeQuestionsSchema>;

/** One ask_user question set and how its answers map back: our id and option labels → Claude's question and labels. */
export interface QuestionSet {
  input: AskUserInputRaw;
  questions: Array<{ id: string; text: string; labels: Map<string, string> }>;
}


/**
 * Claude's questions as ask_user question sets of at most 3 questions each (Claude allows 4: a fourth is asked in a
 * second set, right after the first is answered, never dropped). Option labels are cut to the contract's 64
 * characters and map back to Claude's own; an authored "Other" option is dropped when two others remain.
 */
export function claudeQuestionsToSets(input: ClaudeQuestions, timeoutSeconds?: number): QuestionSet[] {
  const ids = new Set<string>();
  const headers = new Set<string>();
  const all = input.questions.map((q, index) => {
    // An authored "Other" is refused by the contract (free text is always offered), so one from the model is dropped.
    const kept = q.options.filter((o) => !isAuthoredOther(o.label.trim()));
    const options = kept.length >= LIMITS.minOptions ? kept : q.options;
    const labels = new Map<string, string>();
    const asked = options.slice(0, LIMITS.maxOptions).map((o) => {
      const label = quoteForPrompt(o.label, LIMITS.labelMaxGraphemes);
      labels.set(label, o.label);
      const description = o.description?.trim() ? quoteForPrompt(o.description, LIMITS.descriptionMaxLength) : undefined;
      return { label, ...(description ? { description } : {}) };
    });
    const id = uniqueId(q.header, ids, `question_${index + 1}`);
    return {
      asked: { id, header: uniqueHeader(q.header, headers, `Question ${index + 1}`), question: quoteForPrompt(q.question, LIMITS.questionMaxLength), options: asked, ...(q.multiSelect ? { multiSelect: true } : {}) },
      mapping: { id, text: q.question, labels },
    };
  });
  const sets: QuestionSet[] = [];
  for (let i = 0; i < all.length; i += LIMITS.maxQuestions) {
    const chunk = all.slice(i, i + LIMITS.maxQuestions);
    sets.push({
      input: { questions: chunk.map((q) => q.asked), ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) },
      questions: chunk.map((q) => q.mapping),
    });
  }
  return sets;
}

/**
 * An answered set's values in Claude's shape: keyed by the exact question text (any other key makes Claude Code tell
 * the model "The user did not answer the questions."), each value Claude's label, or the person's own words as typed;
 * several (multi-select) joined with ", ".
 */
export function answersForClaude(set: QuestionSet, result: Extract<AskUserResult, { status: "answered" }>): Record<string, string> {
  const answers: Record<string, string> = {};
  for (const q of set.questions) {
    const values = result.answers.answers[q.id] ?? [];
    answers[q.text] = values.map((value) => q.labels.get(value) ?? value).join(", ");
  }
  return answers;
}
