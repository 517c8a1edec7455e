import { z } from "zod";

/** Limits of the ask_user contract (PRODUCT.md §1). */
export const LIMITS = {
  minQuestions: 1,
  maxQuestions: 3,
  minOptions: 2,
  maxOptions: 4,
  headerMaxGraphemes: 12,
  labelMaxGraphemes: 64,
  defaultTimeoutSeconds: 900,
  minTimeoutSeconds: 30,
  maxTimeoutSeconds: 3600,
} as const;

export const QUESTION_ID_PATTERN = /^[a-z][a-z0-9_]*$/;

export const optionSchema = z.strictObject({
  label: z.string().describe("The choice as the person sees and types it; at most 64 characters. Suffix the recommended option with ' (Recommended)'."),
  description: z.string().optional().describe("Optional one-line explanation of the choice."),
});

export const questionSchema = z.strictObject({
  id: z.string().regex(QUESTION_ID_PATTERN).describe("Unique snake_case answer key."),
  header: z.string().describe("Short label; cut to 12 characters."),
  question: z.string().describe("The question, in one sentence."),
  options: z
    .array(optionSchema)
    .min(LIMITS.minOptions)
    .max(LIMITS.maxOptions)
    .describe("2-4 options, recommended first. Never add an 'Other' option: free text is always offered."),
  multiSelect: z.boolean().optional().describe("True only when several options can be chosen at once."),
});

/** The ask_user tool input, as the model authors it. */
export const askUserInputSchema = z.strictObject({
  questions: z
    .array(questionSchema)
    .min(LIMITS.minQuestions)
    .max(LIMITS.maxQuestions)
    .describe("1-3 questions; prefer exactly one."),
  timeoutSeconds: z
    .number()
    .int()
    .optional()
    .describe("Integer seconds to wait; default 900, clamped to 30-3600."),
});

export type AskUserInputRaw = z.input<typeof askUserInputSchema>;

export interface AskUserOption {
  label: string;
  description?: string;
}

export interface AskUserQuestion {
  id: string;
  header: string;
  question: string;
  options: AskUserOption[];
  multiSelect: boolean;
}

/** The normalised input: trimmed, headers cut, blank descriptions dropped, timeout clamped. */
export interface AskUserInput {
  questions: AskUserQuestion[];
  timeoutSeconds: number;
}

/** The JSON Schema a model provider receives, generated from the same zod schema. */
export const askUserInputJsonSchema: Record<string, unknown> = z.toJSONSchema(askUserInputSchema, {
  target: "draft-2020-12",
});
