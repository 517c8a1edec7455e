import type { AskUserQuestion } from "../contract/schema.ts";
import { looseKey } from "../kernel/text.ts";

/** A line of a several-question reply that names its question (rule 9). */
export interface KeyedLine {
  /**
   * 0-based index of the question the key names. A number key up to MAX_NUMBER_KEY names a position even past the
   * last question (`4: GitHub` with three questions): the parser refuses such a line rather than read it as text.
   */
  questionIndex: number;
  /** The text after the separator, trimmed; may be blank. */
  value: string;
}

type SeparatorKind = "colon" | "equals" | "dot" | "paren" | "dash";

/** Separators and their full-width forms (NFKC-equal, so loosely the same). */
const SEPARATORS: ReadonlyMap<string, SeparatorKind> = new Map([
  [":", "colon"],
  ["\uFF1A", "colon"],
  ["\uFE55", "colon"],
  ["=", "equals"],
  ["\uFF1D", "equals"],
  ["\uFE66", "equals"],
  [".", "dot"],
  ["\uFF0E", "dot"],
  ["\uFE52", "dot"],
  [")", "paren"],
  ["\uFF09", "paren"],
  ["\uFE5A", "paren"],
  ["-", "dash"],
  ["\uFF0D", "dash"],
  ["\uFE63", "dash"],
]);
const WHITESPACE = /\s/u;
const DIGITS = /^[0-9]+$/u;
/** The largest number read as a question key: one digit, since a prompt holds at most three questions. */
const MAX_NUMBER_KEY = 9;

/** Keys are searched only this far into a line: past any loose spelling of the longest key. */
const KEY_LENGTH_FACTOR = 4;
const KEY_LENGTH_SLACK = 64;
const KEY_SEPARATOR_SLACK = 16;

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && WHITESPACE.test(ch);
}

function countSeparators(text: string): number {
  let n = 0;
  for (const ch of text.normalize("NFKC")) if (SEPARATORS.has(ch)) n++;
  return n;
}

/**
 * Creates a reader of keyed lines for these questions (rule 9). A line is `KEY SEP VALUE` where KEY is,
 * loosely, the question's 1-based number, its id, its header or its full question text, and SEP is `:`, `=` or ` - `
 * (after a number also `.` or `)`, and after a number the separator must be followed by a space).
 * The key is the text before the first separator whose prefix is a known key; anything else is an unkeyed line.
 * A number always means the question's position in the full list, even when some were answered before.
 */
export function createKeyedLineReader(questions: readonly AskUserQuestion[]): (line: string) => KeyedLine | null {
  // A reader depends only on the questions' ids, headers and texts: reuse it for the same questions.
  const cacheKey = questions.map((q) => `${q.id}\u0000${q.header}\u0000${q.question}`).join("\u0001");
  let reader = readers.get(cacheKey);
  if (!reader) {
    if (readers.size >= READERS_SIZE) readers.clear();
    readers.set(cacheKey, (reader = buildKeyedLineReader(questions)));
  }
  return reader;
}

const readers = new Map<string, (line: string) => KeyedLine | null>();
const READERS_SIZE = 512;

function buildKeyedLineReader(questions: readonly AskUserQuestion[]): (line: string) => KeyedLine | null {
  const named = new Map<string, number>();
  const keyTexts: string[] = [];
  // Ids first, then headers, then question texts: an earlier kind of key wins a (rare) loose clash.
  for (const field of ["id", "header", "question"] as const) {
    questions.forEach((question, index) => {
      const text = question[field];
      const key = looseKey(text);
      if (key !== "" && !DIGITS.test(key) && !named.has(key)) named.set(key, index);
      keyTexts.push(text);
    });
  }
  const maxPrefixLength = KEY_LENGTH_FACTOR * Math.max(0, ...keyTexts.map((t) => t.length)) + KEY_LENGTH_SLACK;
  const maxSeparators = Math.max(0, ...keyTexts.map(countSeparators)) + KEY_SEPARATOR_SLACK;

  /** The question a prefix names, and whether it named it by number. A number always means a position. */
  const resolve = (prefix: string): { index: number; byNumber: boolean } | null => {
    const key = looseKey(prefix);
    if (DIGITS.test(key)) {
      const n = Number(key);
      return n >= 1 && n <= Math.max(questions.length, MAX_NUMBER_KEY) ? { index: n - 1, byNumber: true } : null;
    }
    const index = named.get(key);
    return index === undefined ? null : { index, byNumber: false };
  };

  return (line) => {
    let separators = 0;
    for (let i = 0; i < line.length && i <= maxPrefixLength; i++) {
      const kind = SEPARATORS.get(line[i] ?? "");
      if (kind === undefined) continue;
      const atEnd = i + 1 >= line.length;
      const spaceAfter = isSpace(line[i + 1]);
      if (kind === "dash" && !(isSpace(line[i - 1]) && (spaceAfter || atEnd))) continue;
      if (++separators > maxSeparators) break;

      const key = resolve(line.slice(0, i));
      if (key === null) continue;
      const allowed = key.byNumber
        ? spaceAfter || (atEnd && kind !== "dot" && kind !== "paren")
        : kind === "colon" || kind === "equals" || kind === "dash";
      if (allowed) return { questionIndex: key.index, value: line.slice(i + 1).trim() };
    }
    return null;
  };
}
