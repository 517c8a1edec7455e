/** Text helpers shared by the contract, the renderer and the parser. Pure. */

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Splits text into user-perceived characters (grapheme clusters). */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

export function graphemeLength(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

/** Cuts text to at most `max` grapheme clusters, never splitting a visible character. */
export function cutGraphemes(text: string, max: number): string {
  const parts = graphemes(text);
  return parts.length <= max ? text : parts.slice(0, max).join("");
}

/** Cuts text to `max` graphemes and marks the cut with an ellipsis. */
export function ellipsize(text: string, max: number): string {
  const parts = graphemes(text);
  return parts.length <= max ? text : parts.slice(0, Math.max(0, max - 1)).join("").trimEnd() + "…";
}

const QUOTE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ["“", "”"],
  ["‘", "’"],
  ["`", "`"],
];

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The parser's loose form of a text (rule 1), used for matching only:
 * NFKC, trim, fold whitespace runs and case, strip one pair of surrounding quotes,
 * then strip trailing `.` and `!`.
 */
export function looseKey(text: string): string {
  // Printable ASCII is already NFKC and lower-cases to ASCII: skip both normalisations (the common case, and the hot path).
  let s = PRINTABLE_ASCII.test(text)
    ? text.trim().replace(/\s+/g, " ").toLowerCase()
    : // NFKC again after lower-casing: upper-case Greek with accents lower-cases to a letter plus combining marks, which NFKC composes.
      text.normalize("NFKC").trim().replace(/\s+/gu, " ").toLowerCase().normalize("NFKC");
  for (const [open, close] of QUOTE_PAIRS) {
    if (s.length >= 2 && s.startsWith(open) && s.endsWith(close)) {
      s = s.slice(open.length, s.length - close.length).trim();
      break;
    }
  }
  // A loop, not /[.!]+$/: that regex backtracks quadratically on a long run of "!" or "." that is not at the end.
  let end = s.length;
  while (end > 0 && (s[end - 1] === "." || s[end - 1] === "!")) end--;
  return s.slice(0, end).trimEnd();
}

const RECOMMENDED_SUFFIX = /\s*\(recommended\)$/iu;

/** Removes a trailing " (Recommended)" marker, if present. */
export function stripRecommended(label: string): string {
  return label.replace(RECOMMENDED_SUFFIX, "");
}

/** The loose key of a label with its " (Recommended)" suffix removed. */
export function looseLabelKey(label: string): string {
  return looseKey(stripRecommended(looseKey(label)));
}
