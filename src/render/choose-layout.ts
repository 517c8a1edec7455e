/**
 * Which layout a prompt gets on a surface. Apart from ./layout.ts (what prompt-text needs) because it reads the
 * platform descriptors, which the Control UI's bundle (summaries through prompt-text) must not carry.
 */
import type { AskUserQuestion } from "../contract/schema.ts";
import { PLATFORM_LIST } from "../platforms/descriptors.ts";
import type { Surface } from "../platforms/surfaces.ts";
import { fitsButtons, type PromptLayout } from "./layout.ts";

/** Chat surfaces with native buttons (the web Control UI draws its own stepper, so it is not one). */
export const BUTTON_SURFACES: readonly Surface[] = PLATFORM_LIST.filter((p) => p.buttons !== undefined).map((p) => p.surface);

/** Native buttons only for exactly one single-select question on a surface with buttons (PRODUCT.md §2). */
export function chooseLayout(questions: readonly AskUserQuestion[], surface: Surface): PromptLayout {
  return BUTTON_SURFACES.includes(surface) && fitsButtons(questions) ? "buttons" : "text";
}
