import type { AskUserQuestion } from "../contract/schema.ts";
import { BUTTON_SURFACES, type Surface } from "../surfaces.ts";

/** How a prompt is shown: native buttons, or numbered text that is answered by a typed reply. */
export type PromptLayout = "buttons" | "text";

export { BUTTON_SURFACES };

/** True when the questions fit on buttons: exactly one question, and it is single-select. */
export function fitsButtons(questions: readonly AskUserQuestion[]): boolean {
  return questions.length === 1 && questions[0]?.multiSelect === false;
}

/** Native buttons only for exactly one single-select question on a surface with buttons (PRODUCT.md §2). */
export function chooseLayout(questions: readonly AskUserQuestion[], surface: Surface): PromptLayout {
  return BUTTON_SURFACES.includes(surface) && fitsButtons(questions) ? "buttons" : "text";
}
