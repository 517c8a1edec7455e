import type { QuestionRecord } from "../record/record.ts";
import type { PromptAction } from "./callback-data.ts";

export const OTHER_BUTTON_TEXT = "Other…";
export const SKIP_BUTTON_TEXT = "Skip";

/** One button before it becomes a platform payload. `text` is plain, not yet cut or escaped. */
export interface PromptButton {
  text: string;
  action: PromptAction;
}

/** What a prompt's buttons depend on besides the record. */
export interface PromptButtonsOptions {
  /** The copy of an expired question that still takes a late answer: no Skip (a late skip is refused). */
  late?: boolean;
}

/** The buttons of a one-question prompt: each option in authored order, then Other…, then Skip (not on a late copy). */
export function promptButtons(record: QuestionRecord, options: PromptButtonsOptions = {}): PromptButton[] {
  const question = record.questions[0];
  if (question === undefined) throw new Error("promptButtons: the record has no question");
  const choices: PromptButton[] = question.options.map((o, optionIndex) => ({
    text: o.label,
    action: { kind: "choice", optionIndex },
  }));
  const other: PromptButton = { text: OTHER_BUTTON_TEXT, action: { kind: "other" } };
  return options.late ? [...choices, other] : [...choices, other, { text: SKIP_BUTTON_TEXT, action: { kind: "skip" } }];
}
