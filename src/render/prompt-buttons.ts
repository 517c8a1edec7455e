import type { QuestionRecord } from "../record/record.ts";
import type { PromptAction } from "./callback-data.ts";

export const OTHER_BUTTON_TEXT = "Other…";
export const SKIP_BUTTON_TEXT = "Skip";

/** One button before it becomes a platform payload. `text` is plain, not yet cut or escaped. */
export interface PromptButton {
  text: string;
  action: PromptAction;
}

/** The buttons of a one-question prompt: each option in authored order, then Other…, then Skip. */
export function promptButtons(record: QuestionRecord): PromptButton[] {
  const question = record.questions[0];
  if (question === undefined) throw new Error("promptButtons: the record has no question");
  const options: PromptButton[] = question.options.map((o, optionIndex) => ({
    text: o.label,
    action: { kind: "choice", optionIndex },
  }));
  return [...options, { text: OTHER_BUTTON_TEXT, action: { kind: "other" } }, { text: SKIP_BUTTON_TEXT, action: { kind: "skip" } }];
}
