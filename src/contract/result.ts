import { z } from "zod";

export const NO_ANSWER_REASONS = ["expired", "skipped", "cancelled", "aborted"] as const;
export type NoAnswerReason = (typeof NO_ANSWER_REASONS)[number];

export { SURFACES, type Surface } from "../platforms/surfaces.ts";

/** Who resolved a question and how. `surface` may also be "api" or "cli" for protocol callers. */
export const answeredBySchema = z.object({
  surface: z.string(),
  user: z.string().optional(),
  via: z.enum(["button", "text", "web", "api", "modal"]).optional(),
  chat: z.string().optional(),
  /** The ids of the questions answered in the person's own words rather than with an option (absent when none). */
  ownWords: z.array(z.string()).min(1).optional(),
});
export type AnsweredBy = z.infer<typeof answeredBySchema>;

/** What ownWordsOf reads of a question: its id and its options' labels. */
interface LabelledQuestion {
  id: string;
  options: ReadonlyArray<{ label: string }>;
}

/**
 * The ids of the questions whose answer holds a value that is none of that question's option labels: the person's
 * own words (Other…, or a typed answer that matched no option). In the questions' order; empty when none.
 */
export function ownWordsOf(questions: readonly LabelledQuestion[], answers: Readonly<Record<string, readonly string[]>>): string[] {
  return questions.filter((q) => (answers[q.id] ?? []).some((value) => !q.options.some((o) => o.label === value))).map((q) => q.id);
}

/** `answeredBy` with `ownWords` added when any question was answered in own words. */
export function withOwnWords<T extends object>(answeredBy: T, questions: readonly LabelledQuestion[], answers: Readonly<Record<string, readonly string[]>>): T & { ownWords?: string[] } {
  const ownWords = ownWordsOf(questions, answers);
  return ownWords.length > 0 ? { ...answeredBy, ownWords } : answeredBy;
}

export const answeredResultSchema = z.looseObject({
  status: z.literal("answered"),
  answers: z.looseObject({ answers: z.record(z.string(), z.array(z.string()).min(1)) }),
  answeredBy: answeredBySchema.optional(),
  /** An approval allowed with changes (issue 35 §3): the input as the person edited it, to run instead. */
  approvalEdit: z.looseObject({ input: z.unknown() }).optional(),
});

export const noAnswerResultSchema = z.looseObject({
  status: z.literal("no_answer"),
  reason: z.enum(NO_ANSWER_REASONS),
});

/** No connected surface could deliver the question; the agent learns it fast instead of waiting out the timeout. */
export const deliveryFailedResultSchema = z.looseObject({
  status: z.literal("delivery_failed"),
  reason: z.string(),
});

/** The ask_user result (PRODUCT.md §1). Extra fields are allowed, never in place of these. */
export const askUserResultSchema = z.discriminatedUnion("status", [
  answeredResultSchema,
  noAnswerResultSchema,
  deliveryFailedResultSchema,
]);

export type AnsweredResult = z.infer<typeof answeredResultSchema>;
export type NoAnswerResult = z.infer<typeof noAnswerResultSchema>;
export type DeliveryFailedResult = z.infer<typeof deliveryFailedResultSchema>;
export type AskUserResult = z.infer<typeof askUserResultSchema>;

/** What the tool returns when the model's input breaks the contract. */
export interface InvalidInputResult {
  status: "invalid_input";
  message: string;
  issues: Array<{ path: string; message: string }>;
}

export function answeredResult(answers: Record<string, string[]>, answeredBy?: AnsweredBy): AnsweredResult {
  return answeredBy ? { status: "answered", answers: { answers }, answeredBy } : { status: "answered", answers: { answers } };
}

export function noAnswerResult(reason: NoAnswerReason): NoAnswerResult {
  return { status: "no_answer", reason };
}
