/**
 * The second pass of credential detection: a key pasted in pieces (`sk-proj-Ab3d Ef6h …`, a JWT with a space after
 * each dot, a Stripe key cut in two) is joined again and searched for the prefixed shapes. It reads the folded text
 * (./fold.ts), in which zero-width and other invisible characters are already gone: only whitespace is left between
 * pieces.
 *
 * Why only these shapes, and why not simply remove every space: once the spaces go, ordinary text turns into long
 * mixed runs. "Deploy Version 2 To Production Tonight" becomes a 32-character token with capitals, small letters and
 * a digit (the entropy rule would refuse it), and "at 12:30 we deploy the new build to prod" becomes a chat bot's
 * token (digits, a colon, then 35 characters). So this pass
 * 1. joins only pieces that are not ordinary words. A word of letters, lower case after an optional capital, ends the
 *    run (and so does "sk-learn"): a key is cut into random chunks, a sentence into words. For the Stripe, GitLab,
 *    npm and Google shapes, cut once where a chunk happens to read as a word, two exceptions: a word that begins one
 *    of their prefixes with the next piece (`glp` + `at-Ab3…`, `sk` + `_live_…`) starts a run, and a word right after
 *    a run ends it as its last piece (`…Xy3 abc`). Not for the older shapes: `xoxb --dry-run` or `eyJ sure. eyJ
 *    characters` would read as keys;
 * 2. looks only for shapes that begin with a distinctive prefix, and for most of them the joined body must read as
 *    random (letters of both cases and a digit; for the newer shapes both cases, since a few percent of their
 *    bodies have no digit).
 * AWS key ids are left out: their alphabet (capitals and digits) is that of ordinary upper-case text once the spaces
 * are gone ("ASIA PACIFIC Q3 REVENUE"), and an id names a key rather than being the secret. The entropy rule is not
 * run here either. Every quantifier is bounded, so the scan stays linear on long input.
 */

import { PLATFORM_LIST } from "../platforms/descriptors.ts";
import type { SplitCredentialShape } from "../platforms/kit/descriptor.ts";

/** Whitespace: what is left between the pieces of a key once the text is folded. */
const GAP = /\s+/u;
/** An ordinary word: letters, lower case after an optional capital ("deploy", "Staging"). It ends a joined run. */
const ORDINARY_WORD = /^[A-Za-z][a-z]+$/u;
/** Words that begin like a key and are not one, which end a joined run too: scikit-learn's nickname. */
const FALSE_FRIEND = /^sk-learn(?![A-Za-z0-9_-])/iu;
/**
 * The prefixes of the newer shapes that begin with a word (`sk`, `npm`, `glpat`), and a character of the body after
 * them: a word and the next piece that match it are a key cut inside its prefix. The word is letters only, so the
 * `_` or `-`, and the body, come from the next piece.
 */
const WORD_PREFIX = /^(?:[rs]k_(?:live|test)_|npm_|glpat-)[A-Za-z0-9]/u;
/** How much of the next piece WORD_PREFIX needs to see (`sk` + `_live_` and a character). */
const WORD_PREFIX_LOOKAHEAD = 8;

/** Letters of both cases and a digit: what a random base62 body has and a joined phrase rarely has. */
const readsRandom = (match: string) => /[A-Z]/u.test(match) && /[a-z]/u.test(match) && /[0-9]/u.test(match);
const hasDigit = (match: string) => /[0-9]/u.test(match);
/**
 * Capitals and small letters in the body (what follows a prefix of `prefixLength`). A random body of 20 or more lacks
 * a digit a few percent of the time, and a case almost never; hashes, UUIDs and upper-case ids lack one.
 */
const bodyHasBothCases = (prefixLength: number) => (match: string) => {
  const body = match.slice(prefixLength);
  return /[A-Z]/u.test(body) && /[a-z]/u.test(body);
};
const always = () => true;

interface SplitShape {
  /** The characters that may not come right before the shape (as a character class). */
  before: string;
  /** The shape itself, without its left boundary. */
  body: string;
  /** Whether a match is random enough to be a key. */
  accept: (match: string) => boolean;
  /** Whether the ordinary word that ends a run may be the shape's last piece (the newer, fixed-length shapes). */
  wordTail?: boolean;
}

/** A platform shape's `accept`, by name. */
const ACCEPT: Record<SplitCredentialShape["accept"], (match: string) => boolean> = { random: readsRandom, digit: hasDigit, always };

const SPLIT_SHAPES: readonly SplitShape[] = [
  { before: "[A-Za-z0-9]", body: "sk-[A-Za-z0-9_-]{20,256}", accept: readsRandom },
  { before: "[A-Za-z0-9]", body: "gh[pousr]_[A-Za-z0-9]{30,256}", accept: readsRandom },
  { before: "[A-Za-z0-9]", body: "github_pat_[A-Za-z0-9_]{20,256}", accept: readsRandom },
  { before: "[A-Za-z0-9_-]", body: "eyJ[A-Za-z0-9_-]{4,512}\\.eyJ[A-Za-z0-9_-]{4}", accept: always },
  // Stripe secret and restricted keys (24 or more after the prefix), GitLab and npm access tokens, Google API keys.
  { before: "[A-Za-z0-9]", body: "[rs]k_(?:live|test)_[A-Za-z0-9]{24,256}", accept: bodyHasBothCases("sk_live_".length), wordTail: true },
  { before: "[A-Za-z0-9]", body: "glpat-[A-Za-z0-9_-]{20,256}", accept: bodyHasBothCases("glpat-".length), wordTail: true },
  { before: "[A-Za-z0-9]", body: "npm_[A-Za-z0-9]{36}", accept: bodyHasBothCases("npm_".length), wordTail: true },
  { before: "[A-Za-z0-9_-]", body: "AIza[A-Za-z0-9_-]{35}", accept: bodyHasBothCases("AIza".length), wordTail: true },
  // Each chat platform's bot tokens and webhook URLs, from its descriptor (src/platforms/<platform>/platform.ts).
  ...PLATFORM_LIST.flatMap((p) => p.credentialShapes.split.map((shape) => ({ before: shape.before, body: shape.body, accept: ACCEPT[shape.accept] }))),
];

/** Each shape twice: anywhere after a non-token character, and exactly at an offset (where a piece starts). */
const COMPILED = SPLIT_SHAPES.map((shape) => ({
  anywhere: new RegExp(`(?<!${shape.before})${shape.body}`, "gu"),
  at: new RegExp(shape.body, "uy"),
  accept: shape.accept,
  wordTail: shape.wordTail === true,
}));

/** The shortest shape (`xoxb-` and 10, or `eyJ….eyJ…`): a shorter run holds none, and is not searched. */
const SHAPE_MIN_LENGTH = 15;

/** A run of joined pieces, where each piece after the first starts in it, and where an ordinary word ending it starts. */
interface JoinedRun {
  text: string;
  starts: number[];
  /** text.length when no ordinary word ends the run. */
  wordAt: number;
}

/** Whether `word`, an ordinary word, and the next piece begin one of the WORD_PREFIX prefixes. */
const beginsPrefix = (word: string, next: string | undefined) =>
  next !== undefined && WORD_PREFIX.test(word + next.slice(0, WORD_PREFIX_LOOKAHEAD));

/**
 * Joins consecutive pieces that are not ordinary words, with an ordinary word that ends such a run as its last piece;
 * only runs of two or more pieces (the first pass saw the rest).
 */
function joinedRuns(text: string): JoinedRun[] {
  const runs: JoinedRun[] = [];
  let pieces: string[] = [];
  const flush = (word?: string) => {
    if (word !== undefined) pieces.push(word);
    if (pieces.length > 1) {
      const starts: number[] = [];
      let at = 0;
      for (const piece of pieces) {
        if (at > 0) starts.push(at);
        at += piece.length;
      }
      runs.push({ text: pieces.join(""), starts, wordAt: at - (word?.length ?? 0) });
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
    } else flush(pieces.length > 0 ? piece : undefined);
  }
  flush();
  return runs;
}

function runHoldsShape(run: JoinedRun): boolean {
  for (const shape of COMPILED) {
    // The older shapes never take the word that ends a run.
    const text = shape.wordTail ? run.text : run.text.slice(0, run.wordAt);
    if (text.length < SHAPE_MIN_LENGTH) continue;
    for (const match of text.matchAll(shape.anywhere)) if (shape.accept(match[0])) return true;
    // A piece starts where the text had whitespace: a left boundary even though the joined text has none there.
    for (const start of run.starts) {
      if (start >= text.length) break;
      shape.at.lastIndex = start;
      const match = shape.at.exec(text);
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
