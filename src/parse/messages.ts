import type { InvalidOutcome, InvalidReason } from "./outcome.ts";

/** The person-facing explanation for each invalid reason. None of them quotes the reply. */
export const INVALID_MESSAGES: Record<InvalidReason, string> = {
  empty: "The reply was empty. Reply with an option number, a label, or your own words, or send skip.",
  credential:
    "That looks like a password, key or token, so it was not recorded. Never send credentials here; use the secrets flow instead.",
  too_many_lines: "There are more lines than questions. Reply with one line per question, e.g. 1: 2",
};

export function invalidOutcome(reason: InvalidReason, message: string = INVALID_MESSAGES[reason]): InvalidOutcome {
  return { kind: "invalid", reason, message };
}

export function tooManyLinesMessage(lineCount: number, questionCount: number): string {
  const questions = questionCount === 1 ? "1 question" : `${questionCount} questions`;
  return `The reply has ${lineCount} lines but there ${questionCount === 1 ? "is" : "are"} only ${questions}. Reply with one line per question, e.g. 1: 2`;
}
