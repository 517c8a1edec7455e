/** Text helpers shared by the contract, the renderer and the parser. Pure. */

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * ASCII text needs no segmenter: every ASCII character is a grapheme cluster of its own, except CR LF, which is one
 * (Unicode UAX #29, GB3). Intl.Segmenter is slow, and questions are mostly ASCII.
 */
const ASCII = /^[\x00-\x7f]*$/;

/** Splits text into user-perceived characters (grapheme clusters). */
export function graphemes(text: string): string[] {
  if (ASCII.test(text)) {
    const parts = text.split("");
    return text.includes("\r\n") ? parts.reduce<string[]>((out, ch) => (ch === "\n" && out[out.length - 1] === "\r" ? (out[out.length - 1] = "\r\n") : out.push(ch), out), []) : parts;
  }
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

export function graphemeLength(text: string): number {
  if (ASCII.test(text)) {
    let crlf = 0;
    for (let i = text.indexOf("\r\n"); i !== -1; i = text.indexOf("\r\n", i + 2)) crlf++;
    return text.length - crlf;
  }
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
  // One reply is keyed several times while it is parsed (blank check, label match, skip check, own words), and
  // labels and question keys recur from reply to reply: remember recent short keys.
  if (text.length > LOOSE_CACHE_MAX_LENGTH) return computeLooseKey(text);
  let key = looseCache.get(text);
  if (key === undefined) {
    if (looseCache.size >= LOOSE_CACHE_SIZE) looseCache.clear();
    looseCache.set(text, (key = computeLooseKey(text)));
  }
  return key;
}

const LOOSE_CACHE_SIZE = 4096;
const LOOSE_CACHE_MAX_LENGTH = 256;
const looseCache = new Map<string, string>();

function computeLooseKey(text: string): string {
  // Printable ASCII is already NFKC and lower-cases to ASCII: skip both normalisations (the common case, and the hot path).
  let s = PRINTABLE_ASCII.test(text)
    ? text.trim().replace(/\s+/g, " ").toLowerCase()
    : // NFKC again after lower-casing: upper-case Greek with accents lower-cases to a letter plus combining marks, which NFKC composes.
      // Final sigma folds to σ, as case folding does, so "Σ" typed after any character matches.
      text.normalize("NFKC").trim().replace(/\s+/gu, " ").toLowerCase().normalize("NFKC").replace(/ς/gu, "σ");
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

const SEPARATOR_RUN = /[\s,;\uFF0C\uFF1B]+/u;

/**
 * True when a reply (or a line of one) has nothing to read (rule 2): it is empty, blank, or nothing but
 * separators such as `,,`, or every piece of it vanishes under loose matching (`...`, `!`).
 */
export function isBlankText(text: string): boolean {
  return text.split(SEPARATOR_RUN).every((piece) => looseKey(piece) === "");
}

/**
 * Characters that change how text reads without being seen, so that two options look alike or a label shows another
 * word (`\u202EoN\u202C` shows as "No"): the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
 * the bidi marks (U+200E LRM, U+200F RLM, U+061C ALM), and the zero-width characters (U+200B, U+200C, U+200D, U+2060,
 * U+FEFF).
 */
const HIDDEN = /[\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;
const ZWJ = "\u200D";
/** An emoji, maybe with a skin tone or an emoji presentation selector, just before a ZWJ. */
const EMOJI_BEFORE = /\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

/**
 * The hidden characters in `text` (see HIDDEN), each once, as `U+XXXX`, in order of first appearance. A ZWJ between
 * two emoji is not hidden: it joins them into one ("👩‍💻").
 */
export function hiddenCharacters(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(HIDDEN)) {
    const at = match.index;
    if (match[0] === ZWJ && EMOJI_BEFORE.test(text.slice(Math.max(0, at - 4), at)) && EMOJI_AFTER.test(text.slice(at + 1, at + 3))) continue;
    found.add(`U+${match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
  }
  return [...found];
}
