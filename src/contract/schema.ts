import { z } from "zod";

/**
 * Limits of the ask_user contract (PRODUCT.md §1).
 *
 * Text lengths (`…MaxLength`) count UTF-16 code units, as JavaScript, the platforms' message limits and the renderers' `cutToFit` do;
 * `…MaxGraphemes` count what a person sees. Every text field has a `…MaxLength`, so one record's size is bounded
 * (and so is the work on it: `Intl.Segmenter` slows down sharply on long non-ASCII text). The numbers follow what
 * the platforms show (each platform's limits are in src/platforms/<platform>/payload.ts and modal.ts):
 * - a question of 1000, with four full labels, fits the smallest chat message (2000 characters) whole; with four
 *   option descriptions of 300 as well, it still fits the others' 3000-character section and 4096-character message
 *   (test/contract/contract.test.ts renders it). Longer prompts (2-3 such questions) are cut with an ellipsis by the
 *   renderers, as before. 1000 is also under the 2000-character modal label where the question is asked again.
 * - an answer in the person's own words of 4000 is the largest modal text input, and fits the 4096-character message
 *   with its `1: ` key; the other modal input stops at 2000 on its own.
 * - a typed reply carries up to three such answers, one line each keyed by id or number.
 * - a header is cut to 12 characters and a label allows 64; their length caps only refuse what no person could read:
 *   a header of hundreds of characters, or a label whose characters are stacks of combining marks.
 */
export const LIMITS = {
  minQuestions: 1,
  maxQuestions: 3,
  minOptions: 2,
  maxOptions: 4,
  idMaxLength: 64,
  headerMaxGraphemes: 12,
  /** The header as given, before it is cut to `headerMaxGraphemes`. */
  headerMaxLength: 256,
  questionMaxLength: 1000,
  labelMaxGraphemes: 64,
  /** Eight code units per character: 64 ZWJ family emoji fit. */
  labelMaxLength: 512,
  descriptionMaxLength: 300,
  /** One value in the person's own words (question.resolve, a typed reply, a modal). */
  answerMaxLength: 4000,
  /** A typed reply (question.reply): three answers of `answerMaxLength`, each on a line keyed by its id. */
  replyMaxLength: 12_500,
  defaultTimeoutSeconds: 900,
  minTimeoutSeconds: 30,
  maxTimeoutSeconds: 3600,
} as const;

export const QUESTION_ID_PATTERN = /^[a-z][a-z0-9_]*$/;

export const optionSchema = z.strictObject({
  label: z
    .string()
    .max(LIMITS.labelMaxLength)
    .describe("The choice as the person sees and types it; at most 64 characters. Suffix the recommended option with ' (Recommended)'."),
  description: z
    .string()
    .max(LIMITS.descriptionMaxLength)
    .optional()
    .describe("Optional one-line explanation of the choice; at most 300 characters."),
});

export const questionSchema = z.strictObject({
  id: z.string().max(LIMITS.idMaxLength).regex(QUESTION_ID_PATTERN).describe("Unique snake_case answer key; at most 64 characters."),
  header: z.string().max(LIMITS.headerMaxLength).describe("Short label; cut to 12 characters."),
  question: z.string().max(LIMITS.questionMaxLength).describe("The question, in one sentence; at most 1000 characters."),
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
