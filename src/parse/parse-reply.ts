import type { AskUserQuestion } from "../contract/schema.ts";
import { isBlankText } from "../text.ts";
import { looksLikeCredential } from "./credential.ts";
import { createKeyedLineReader, type KeyedLine } from "./keyed-line.ts";
import { splitLines } from "./lines.ts";
import { createOptionMatcher, isSkipText } from "./match-option.ts";
import { invalidOutcome, tooManyLinesMessage } from "./messages.ts";
import type { ParseOutcome, ReadAs } from "./outcome.ts";
import { readValue } from "./read-value.ts";

/**
 * Turns a typed reply into answers for the normalised questions (issue 3, rules 1-12).
 * One question: the whole reply is its value. Several: one line per question, keyed (`1: 2`, `env = prod`) or in order.
 * Never throws, whatever the input.
 */
export function parseReply(questions: AskUserQuestion[], text: string): ParseOutcome {
  try {
    if (typeof text !== "string" || !Array.isArray(questions)) return invalidOutcome("empty");
    if (isBlankText(text)) return invalidOutcome("empty");
    const [only] = questions;
    return questions.length === 1 && only ? parseOne(only, text) : parseSeveral(questions, text);
  } catch {
    // Only malformed questions (not normalised) can get here; the reply itself never throws.
    return invalidOutcome("empty", "The reply could not be read.");
  }
}

/** Rules 2-8: the whole reply is the one question's value. */
function parseOne(question: AskUserQuestion, text: string): ParseOutcome {
  const matcher = createOptionMatcher(question);
  if (matcher.labelIndex(text) === -1 && looksLikeCredential(text)) return invalidOutcome("credential");
  if (isSkipText(text) && matcher.skipIndex === -1) return { kind: "skip" };
  const values = readValue(question, text);
  if (values.length === 0) return invalidOutcome("empty");
  return { kind: "answered", answers: { [question.id]: values.map((v) => v.value) }, readAs: { [question.id]: values } };
}

interface ReplyLine {
  text: string;
  keyed: KeyedLine | null;
}

/** Rules 9-12: one line per question, keyed lines first, then unkeyed lines in order. */
function parseSeveral(questions: AskUserQuestion[], text: string): ParseOutcome {
  const readKey = createKeyedLineReader(questions);
  const lines: ReplyLine[] = splitLines(text)
    .map((line) => line.trim())
    .filter((line) => !isBlankText(line))
    .map((line) => ({ text: line, keyed: readKey(line) }));

  if (hasCredential(questions, text, lines)) return invalidOutcome("credential");
  // The whole reply skip skips, unless the first question (which a lone line would answer) has a Skip option.
  const first = questions[0];
  if (isSkipText(text) && (!first || createOptionMatcher(first).skipIndex === -1)) return { kind: "skip" };
  if (lines.length > questions.length) return invalidOutcome("too_many_lines", tooManyLinesMessage(lines.length, questions.length));

  // Keyed lines first; the last keyed line for a question wins, even when blank.
  const valueOf = new Map<number, string>();
  const unkeyed: string[] = [];
  for (const line of lines) {
    if (line.keyed) valueOf.set(line.keyed.questionIndex, line.keyed.value);
    else unkeyed.push(line.text);
  }
  // Unkeyed lines fill the questions that no keyed line named, in order.
  let next = 0;
  questions.forEach((_, index) => {
    if (valueOf.has(index)) return;
    const line = unkeyed[next++];
    if (line !== undefined) valueOf.set(index, line);
  });

  const answers: Record<string, string[]> = {};
  const readAs: ReadAs = {};
  const missing: string[] = [];
  questions.forEach((question, index) => {
    const values = readValue(question, valueOf.get(index) ?? "");
    if (values.length === 0) {
      missing.push(question.id);
      return;
    }
    answers[question.id] = values.map((v) => v.value);
    readAs[question.id] = values;
  });

  if (missing.length === questions.length) return invalidOutcome("empty");
  return missing.length === 0 ? { kind: "answered", answers, readAs } : { kind: "partial", answers, missing, readAs };
}

/**
 * Rule 3 over a several-question reply (rule 11: it applies to every value). A value that loosely equals
 * an option label is never a credential, and neither is a whole reply that does.
 */
function hasCredential(questions: AskUserQuestion[], text: string, lines: ReplyLine[]): boolean {
  const matchers = questions.map(createOptionMatcher);
  const isLabel = (value: string) => matchers.some((matcher) => matcher.labelIndex(value) !== -1);
  if (isLabel(text)) return false;
  const values = lines.map((line) => line.keyed?.value ?? line.text).filter((value) => !isLabel(value));
  return looksLikeCredential(values.join("\n"));
}
