/**
 * The second pass of credential detection: a key pasted in pieces (`sk-proj-Ab3d Ef6h …`, a JWT with a space after
 * each dot, a Stripe key cut in two) is joined again and searched for the prefixed shapes. It reads the folded text
 * (./fold.ts), in which zero-width and other invisible characters are already gone: only whitespace is left between
 * pieces.
 *
 * Why only these shapes, and why not simply remove every space: once the spaces go, ordinary text turns into long
 * mixed runs. "Deploy Version 2 To Production Tonight" becomes a 32-character token with capitals, small letters and
 * a digit (the entropy rule would refuse it), and "at 12:30 we deploy the new build to prod" becomes a Telegram bot
 * token. So this pass
 * 1. joins only pieces that are not ordinary words. A word of letters, lower case after an optional capital, ends the
 *    run (and so does "sk-learn"): a key is cut into random chunks, a sentence into words. Two exceptions, for a key
 *    cut where a chunk happens to read as a word: a word that begins a key's prefix with the next piece (`glp` +
 *    `at-…`, `npm` + `_…`) starts a run, and a word right after a run ends it as its last piece (`…Xy3 abc`);
 * 2. looks only for shapes that begin with a distinctive prefix, and for most of them the joined body must read as
 *    random (letters of both cases and a digit, or for the newer shapes two of those three).
 * AWS key ids are left out: their alphabet (capitals and digits) is that of ordinary upper-case text once the spaces
 * are gone ("ASIA PACIFIC Q3 REVENUE"), and an id names a key rather than being the secret. The entropy rule is not
 * run here either. Every quantifier is bounded, so the scan stays linear on long input.
 */

/** Whitespace: what is left between the pieces of a key once the text is folded. */
const GAP = /\s+/u;
/** An ordinary word: letters, lower case after an optional capital ("deploy", "Staging"). It ends a joined run. */
const ORDINARY_WORD = /^[A-Za-z][a-z]+$/u;
/** Words that begin like a key and are not one, which end a joined run too: scikit-learn's nickname. */
const FALSE_FRIEND = /^sk-learn(?![A-Za-z0-9_-])/iu;
/** The prefixes that begin with a word (`sk`, `npm`, `glpat`, …): a word cut from one of them starts a run. */
const WORD_PREFIX = /^(?:[rs]k[-_]|npm_|glpat-|gh[pousr]_|github_pat_|xox[abeprs]-|xapp-)/u;
/** How much of the next piece WORD_PREFIX needs to see (the longest prefix, "github_pat_"). */
const WORD_PREFIX_MAX_LENGTH = 11;

/** Letters of both cases and a digit: what a random base62 body has and a joined phrase rarely has. */
const readsRandom = (match: string) => /[A-Z]/u.test(match) && /[a-z]/u.test(match) && /[0-9]/u.test(match);
const hasDigit = (match: string) => /[0-9]/u.test(match);
/**
 * Two of capitals, small letters and digits in the body (what follows a prefix of `prefixLength`): a random body of 20
 * or more almost always has all three, and a few percent lack one (no digit among 20), so two are asked for.
 */
const bodyMixesKinds = (prefixLength: number) => (match: string) => {
  const body = match.slice(prefixLength);
  return Number(/[A-Z]/u.test(body)) + Number(/[a-z]/u.test(body)) + Number(/[0-9]/u.test(body)) >= 2;
};
const always = () => true;

interface SplitShape {
  /** The characters that may not come right before the shape (as a character class). */
  before: string;
  /** The shape itself, without its left boundary. */
  body: string;
  /** Whether a match is random enough to be a key. */
  accept: (match: string) => boolean;
}

const SPLIT_SHAPES: readonly SplitShape[] = [
  { before: "[A-Za-z0-9]", body: "sk-[A-Za-z0-9_-]{20,256}", accept: readsRandom },
  { before: "[A-Za-z0-9]", body: "xox[abeprs]-[A-Za-z0-9-]{10,256}", accept: hasDigit },
  { before: "[A-Za-z0-9]", body: "xapp-[0-9]-[A-Za-z0-9-]{10,256}", accept: hasDigit },
  { before: "[A-Za-z0-9]", body: "gh[pousr]_[A-Za-z0-9]{30,256}", accept: readsRandom },
  { before: "[A-Za-z0-9]", body: "github_pat_[A-Za-z0-9_]{20,256}", accept: readsRandom },
  // Telegram bot tokens: the secret part always starts with AA, so "12:30" followed by words never matches.
  { before: "[A-Za-z0-9_-]", body: "[0-9]{5,12}:AA[A-Za-z0-9_-]{33}", accept: readsRandom },
  {
    before: "[A-Za-z0-9_-]",
    body: "(?:[MNO][DTjz][AEIMQUYcgk][w-z0-5]){5,6}[A-Za-z0-9_-]{0,3}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27}",
    accept: always,
  },
  { before: "[A-Za-z0-9_-]", body: "eyJ[A-Za-z0-9_-]{4,512}\\.eyJ[A-Za-z0-9_-]{4}", accept: always },
  // Stripe secret and restricted keys (24 or more after the prefix), GitLab and npm access tokens, Google API keys.
  { before: "[A-Za-z0-9]", body: "[rs]k_(?:live|test)_[A-Za-z0-9]{24,256}", accept: bodyMixesKinds("sk_live_".length) },
  { before: "[A-Za-z0-9]", body: "glpat-[A-Za-z0-9_-]{20,256}", accept: bodyMixesKinds("glpat-".length) },
  { before: "[A-Za-z0-9]", body: "npm_[A-Za-z0-9]{36}", accept: bodyMixesKinds("npm_".length) },
  { before: "[A-Za-z0-9_-]", body: "AIza[A-Za-z0-9_-]{35}", accept: bodyMixesKinds("AIza".length) },
  { before: "[A-Za-z0-9]", body: "hooks\\.slack\\.com\\/(?:services|workflows|triggers)\\/T[A-Z0-9]{6,32}\\/[A-Za-z0-9]{6,32}\\/[A-Za-z0-9]{6}", accept: always },
];

/** Each shape twice: anywhere after a non-token character, and exactly at an offset (where a piece starts). */
const COMPILED = SPLIT_SHAPES.map((shape) => ({
  anywhere: new RegExp(`(?<!${shape.before})${shape.body}`, "gu"),
  at: new RegExp(shape.body, "uy"),
  accept: shape.accept,
}));

/** The shortest shape (`xoxb-` and 10, or `eyJ….eyJ…`): a shorter run holds none, and is not searched. */
const SHAPE_MIN_LENGTH = 15;

/** A run of joined pieces, and where each piece after the first starts in it. */
interface JoinedRun {
  text: string;
  starts: number[];
}

/** Whether `word`, an ordinary word, with the start of the next piece begins a key's prefix: a key cut inside it. */
const beginsPrefix = (word: string, next: string | undefined) =>
  next !== undefined && WORD_PREFIX.test(word + next.slice(0, WORD_PREFIX_MAX_LENGTH));

/**
 * Joins consecutive pieces that are not ordinary words, with an ordinary word that ends such a run as its last piece;
 * only runs of two or more pieces (the first pass saw the rest).
 */
function joinedRuns(text: string): JoinedRun[] {
  const runs: JoinedRun[] = [];
  let pieces: string[] = [];
  const flush = () => {
    if (pieces.length > 1) {
      const starts: number[] = [];
      let at = 0;
      for (const piece of pieces) {
        if (at > 0) starts.push(at);
        at += piece.length;
      }
      runs.push({ text: pieces.join(""), starts });
    }
    pieces = [];
  };
  const all = text.split(GAP).filter((piece) => piece !== "");
  for (const [i, piece] of all.entries()) {
    if (FALSE_FRIEND.test(piece)) flush();
    else if (!ORDINARY_WORD.test(piece)) pieces.push(piece);
    else if (beginsPrefix(piece, all[i + 1])) {
      flush();
      pieces.push(piece);
    } else {
      if (pieces.length > 0) pieces.push(piece);
      flush();
    }
  }
  flush();
  return runs;
}

function runHoldsShape(run: JoinedRun): boolean {
  if (run.text.length < SHAPE_MIN_LENGTH) return false;
  for (const shape of COMPILED) {
    for (const match of run.text.matchAll(shape.anywhere)) if (shape.accept(match[0])) return true;
    // A piece starts where the text had whitespace: a left boundary even though the joined text has none there.
    for (const start of run.starts) {
      shape.at.lastIndex = start;
      const match = shape.at.exec(run.text);
      if (match && shape.accept(match[0])) return true;
    }
  }
  return false;
}

/**
 * True when a prefixed key shape appears once whitespace between the pieces of a key is removed. `text` is folded
 * (foldForMatching). Never throws.
 */
export function holdsSplitCredential(text: string): boolean {
  if (typeof text !== "string" || !GAP.test(text)) return false;
  return joinedRuns(text).some(runHoldsShape);
}
