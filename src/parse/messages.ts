import type { AskUserQuestion } from "../contract/schema.ts";
import type { InvalidOutcome, InvalidReason } from "../contract/parse-outcome.ts";

/** The person-facing explanation for each invalid reason. None of them quotes the reply. */
export const INVALID_MESSAGES: Record<InvalidReason, string> = {
  empty: "The reply was empty. Reply with an option number, a label, or your own words, or send skip.",
  credential:
    "That looks like a password, key or token, so it was not recorded. Never send credentials here; use the secrets flow instead.",
  too_many_lines: "There are more lines than questions. Reply with one line per question, e.g. 1: 2",
  not_open: "That line names a question that is not open. Reply only to the questions still open.",
};

export function invalidOutcome(reason: InvalidReason, message: string = INVALID_MESSAGES[reason]): InvalidOutcome {
  return { kind: "invalid", reason, message };
}

export function tooManyLinesMessage(lineCount: number, questionCount: number): string {
  const questions = questionCount === 1 ? "1 question" : `${questionCount} questions`;
  return `The reply has ${lineCount} lines but there ${questionCount === 1 ? "is" : "are"} only ${questions}. Reply with one line per question, e.g. 1: 2`;
}

/**
 * A keyed line named a question that already has an answer, or a number past the last question. Says which questions
 * are still open, by their original numbers, and how to answer them.
 */
export function notOpenMessage(questions: readonly AskUserQuestion[], openIndexes: readonly number[], namedIndex: number): string {
  const named = questions[namedIndex];
  const problem = named ? `Question ${namedIndex + 1} (${named.header}) already has an answer.` : `There is no question ${namedIndex + 1}.`;
  const open = openIndexes.map((i) => `${i + 1} (${questions[i]!.header})`);
  const first = openIndexes[0]! + 1;
  const how = open.length === 1 ? `Reply with your answer to question ${first}.` : `Reply with one line per open question, e.g. ${first}: 1`;
  return `${problem} Still open: ${open.length === 1 ? "question" : "questions"} ${open.join(", ")}. ${how}`;
}
