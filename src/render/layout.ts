import type { AskUserQuestion } from "../contract/schema.ts";

/** How a prompt is shown: native buttons, or numbered text that is answered by a typed reply. */
export type PromptLayout = "buttons" | "text";

/** True when the questions fit on buttons: exactly one question, and it is single-select. */
export function fitsButtons(questions: readonly AskUserQuestion[]): boolean {
  return questions.length === 1 && questions[0]?.multiSelect === false;
}
