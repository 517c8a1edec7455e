import type { AskUserQuestion } from "../contract/schema.ts";
import { isBlankText } from "../kernel/text.ts";
import { looksLikeCredential } from "./credential.ts";
import { createKeyedLineReader, type KeyedLine } from "./keyed-line.ts";
import { splitLines } from "./lines.ts";
import { createOptionMatcher, isSkipText } from "./match-option.ts";
import { invalidOutcome, notOpenMessage, tooManyLinesMessage } from "./messages.ts";
import type { ParseOutcome, ReadAs } from "../contract/parse-outcome.ts";
import { readValue } from "./read-value.ts";

export interface ParseOptions {
  /**
   * Ids of questions already answered by an earlier reply (the partial answers held with the record). Numbers keep
   * their original meaning, lines without a key fill only the open questions, and a line that names an answered
   * question (or a number past the last question) is refused with a message naming the open ones.
   */
  answered?: readonly string[];
}

/**
 * Turns a typed reply into answers for the normalised questions (issue 3, rules 1-12).
 * One question: the whole reply is its value. Several: one line per question, keyed (`1: 2`, `env = prod`) or in order.
 * Only open questions get answers (see ParseOptions.answered). Never throws, whatever the input.
 */
export function parseReply(questions: AskUserQuestion[], text: string, options: ParseOptions = {}): ParseOutcome {
  try {
    if (typeof text !== "string" || !Array.isArray(questions)) return invalidOutcome("empty");
    if (isBlankText(text)) return invalidOutcome("empty");
    const [only] = questions;
    if (questions.length === 1 && only) return parseOne(only, text);
    const answered = new Set(options.answered ?? []);
    return parseSeveral(questions, questions.map((q) => !answered.has(q.id)), text);
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

/**
 * Rules 9-12: one line per open question, keyed lines first, then unkeyed lines in order. `open[i]` says whether
 * question i still needs an answer. With a single open question left, a reply without a key is that question's
 * whole value, as in rules 2-8.
 */
function parseSeveral(questions: AskUserQuestion[], open: boolean[], text: string): ParseOutcome {
  const openIndexes = questions.flatMap((_, index) => (open[index] ? [index] : []));
  if (openIndexes.length === 0) return invalidOutcome("empty");
  const readKey = createKeyedLineReader(questions);
  const lines: ReplyLine[] = splitLines(text)
    .map((line) => line.trim())
    .filter((line) => !isBlankText(line))
    .map((line) => ({ text: line, keyed: readKey(line) }));

  const closed = lines.find((line) => line.keyed && !open[line.keyed.questionIndex]);
  if (closed?.keyed) return invalidOutcome("not_open", notOpenMessage(questions, openIndexes, closed.keyed.questionIndex));
  if (hasCredential(questions, text, lines)) return invalidOutcome("credential");
  // The whole reply skip skips, unless the first open question (which a lone line would answer) has a Skip option.
  const first = questions[openIndexes[0]!];
  if (isSkipText(text) && (!first || createOptionMatcher(first).skipIndex === -1)) return { kind: "skip" };
  const [lone] = openIndexes;
  if (openIndexes.length === 1 && lone !== undefined && lines.every((line) => !line.keyed)) {
    return parseOne(questions[lone]!, text);
  }
  if (lines.length > openIndexes.length) return invalidOutcome("too_many_lines", tooManyLinesMessage(lines.length, openIndexes.length));

  // Keyed lines first; the last keyed line for a question wins, even when blank.
  const valueOf = new Map<number, string>();
  const unkeyed: string[] = [];
  for (const line of lines) {
    if (line.keyed) valueOf.set(line.keyed.questionIndex, line.keyed.value);
    else unkeyed.push(line.text);
  }
  // Unkeyed lines fill the open questions that no keyed line named, in order.
  let next = 0;
  for (const index of openIndexes) {
    if (valueOf.has(index)) continue;
    const line = unkeyed[next++];
    if (line !== undefined) valueOf.set(index, line);
  }

  const answers: Record<string, string[]> = {};
  const readAs: ReadAs = {};
  const missing: string[] = [];
  for (const index of openIndexes) {
    const question = questions[index]!;
    const values = readValue(question, valueOf.get(index) ?? "");
    if (values.length === 0) {
      missing.push(question.id);
      continue;
    }
    answers[question.id] = values.map((v) => v.value);
    readAs[question.id] = values;
  }

  if (missing.length === openIndexes.length) return invalidOutcome("empty");
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
