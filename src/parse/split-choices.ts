import { looseKey } from "../kernel/text.ts";
import { looseNumberForm } from "./number-form.ts";

/** A piece of a multi-select reply, as offsets into the reply, so that adjacent pieces can be re-joined with the text between them. */
export interface ChoicePiece {
  start: number;
  end: number;
}

/** `,` and `;`, and their full-width forms (NFKC-equal, so loosely the same). */
const LIST_SEPARATORS: ReadonlySet<string> = new Set([",", ";", "\uFF0C", "\uFF1B"]);
const NEWLINES: ReadonlySet<string> = new Set(["\n", "\r", "\u2028", "\u2029"]);
const WHITESPACE = /\s/u;
const TOKEN_SPLIT = /[\s,;\uFF0C\uFF1B]+/u;

/** True when every space-separated token of the reply is a number form, e.g. `1 3` or `#1 #3` (rule 7). */
export function isNumberList(text: string): boolean {
  let tokens = 0;
  for (const token of text.split(TOKEN_SPLIT)) {
    if (token === "") continue;
    if (looseNumberForm(looseKey(token)) === null) return false;
    tokens++;
  }
  return tokens > 0;
}

/**
 * Splits a multi-select reply into pieces (rule 7): on `,`, `;` and newlines, and on spaces too when `splitOnSpaces`.
 * A run of whitespace is one boundary, so that a re-join spans as many pieces as its label has separators.
 */
export function splitChoices(text: string, splitOnSpaces: boolean): ChoicePiece[] {
  const pieces: ChoicePiece[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? "";
    if (LIST_SEPARATORS.has(ch)) {
      pieces.push({ start, end: i });
      start = ++i;
      continue;
    }
    if (WHITESPACE.test(ch)) {
      let end = i;
      let hasNewline = false;
      while (end < text.length && WHITESPACE.test(text[end] ?? "")) {
        if (NEWLINES.has(text[end] ?? "")) hasNewline = true;
        end++;
      }
      if (splitOnSpaces || hasNewline) {
        pieces.push({ start, end: i });
        start = end;
      }
      i = end;
      continue;
    }
    i++;
  }
  pieces.push({ start, end: text.length });
  return pieces;
}

/** How many pieces a text splits into at most, counting every space run as a boundary. */
export function maxPieceCount(text: string): number {
  return splitChoices(text, true).length;
}
