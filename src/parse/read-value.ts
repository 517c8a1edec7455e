import type { AskUserQuestion } from "../contract/schema.ts";
import { looseKey } from "../kernel/text.ts";
import { createOptionMatcher, type OptionMatcher } from "./match-option.ts";
import type { ReadValue } from "../contract/parse-outcome.ts";
import { isNumberList, maxPieceCount, splitChoices } from "./split-choices.ts";

/** Re-joined spans are never longer than this many times the longest label (plus a margin), which keeps the search linear. */
const JOIN_LENGTH_FACTOR = 4;
const JOIN_LENGTH_SLACK = 64;
/** Extra pieces a re-join may span beyond its label's separators (quotes, stray blanks at the edges). */
const JOIN_PIECE_SLACK = 2;

/**
 * Reads one question's value (rules 4-7): an option by label or number, or own words.
 * Single-select: the whole text is one value. Multi-select: the whole text as one label first, else split,
 * re-joined where adjacent pieces form a label, each piece read, blanks and loose duplicates dropped.
 * Returns no values when there is nothing to read. Never throws on a normalised question.
 */
export function readValue(question: AskUserQuestion, text: string): ReadValue[] {
  const matcher = createOptionMatcher(question);
  const whole = readPiece(matcher, text);
  if (!question.multiSelect || whole === null || whole.via !== "text") return whole ? [whole] : [];
  return readChoices(question, matcher, text);
}

function readPiece(matcher: OptionMatcher, text: string): ReadValue | null {
  const match = matcher.match(text);
  if (match) return { value: match.label, via: match.via };
  return looseKey(text) === "" ? null : { value: text.trim(), via: "text" };
}

function readChoices(question: AskUserQuestion, matcher: OptionMatcher, text: string): ReadValue[] {
  const pieces = splitChoices(text, isNumberList(text));
  const labels = question.options.map((option) => option.label);
  const maxPieces = Math.max(1, ...labels.map(maxPieceCount)) + JOIN_PIECE_SLACK;
  const maxJoinLength = JOIN_LENGTH_FACTOR * Math.max(0, ...labels.map((label) => label.length)) + JOIN_LENGTH_SLACK;

  const values: ReadValue[] = [];
  const seen = new Set<string>();
  const add = (value: ReadValue | null) => {
    if (!value) return;
    const key = looseKey(value.value);
    if (seen.has(key)) return;
    seen.add(key);
    values.push(value);
  };

  for (let i = 0; i < pieces.length; i++) {
    const first = pieces[i];
    if (!first) continue;
    let joined = -1;
    for (let j = Math.min(pieces.length - 1, i + maxPieces - 1); j > i; j--) {
      const last = pieces[j];
      if (!last || last.end - first.start > maxJoinLength) continue;
      if (matcher.labelIndex(text.slice(first.start, last.end)) !== -1) {
        joined = j;
        break;
      }
    }
    const end = joined === -1 ? first.end : (pieces[joined]?.end ?? first.end);
    add(readPiece(matcher, text.slice(first.start, end)));
    if (joined !== -1) i = joined;
  }
  return values;
}
