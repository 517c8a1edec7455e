/**
 * Credential detection (parser rule 3). Bots reuse it to refuse, and delete, a pasted secret.
 * Every pattern is anchored on a left boundary so that each scan stays linear on long input.
 * Both passes read the text folded (./fold.ts: invisible characters removed, fullwidth and other compatibility forms
 * made plain), never the text as recorded: the known shapes and the entropy rule first, then the prefixed shapes again
 * over the text with its whitespace removed (./split-credential.ts), for a key pasted in pieces.
 */
import { foldForMatching } from "./fold.ts";
import { holdsSplitCredential } from "./split-credential.ts";
import { PLATFORM_LIST } from "../platforms/descriptors.ts";

/** Known token shapes. Each is searched anywhere in the text, after a non-token character. */
const KNOWN_SHAPES: readonly RegExp[] = [
  // OpenAI-style keys: sk- followed by at least 20 of [A-Za-z0-9_-]. "sk-learn" is too short.
  /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20}/u,
  // GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ followed by at least 30 alphanumerics; fine-grained PATs.
  /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{30}/u,
  /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20}/u,
  // AWS access key ids (AKIA) and temporary session key ids (ASIA: base32, exactly 16 after the prefix, so that a
  // longer capitalised identifier such as ASIAPACIFICSALESTEAM is not one).
  /(?<![A-Za-z0-9])AKIA[A-Z0-9]{16}/u,
  /(?<![A-Za-z0-9])ASIA[A-Z2-7]{16}(?![A-Za-z0-9])/u,
  // Google API keys, Stripe secret and restricted keys, GitLab and npm access tokens.
  /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}/u,
  /(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9]{16}/u,
  /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20}/u,
  /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}/u,
  // PEM private keys (RSA, EC, OPENSSH, ENCRYPTED, or plain).
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/u,
  // JWTs: a base64url JSON header and payload, both starting with {" (eyJ), whitespace allowed after the dots.
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.\s*eyJ[A-Za-z0-9_-]+\./u,
  // Each chat platform's bot tokens and webhook URLs, from its descriptor (src/platforms/<platform>/platform.ts).
  ...PLATFORM_LIST.flatMap((p) => p.credentialShapes.known),
];

/** A token at least this long may be a credential by entropy alone. */
export const HIGH_ENTROPY_MIN_LENGTH = 32;
/** Shannon entropy, in bits per character, from which a long mixed token counts as a credential. */
export const HIGH_ENTROPY_MIN_BITS = 4;

/** Characters of base64, base64url and hex: what generated secrets are made of. */
const TOKEN_RUN = /[A-Za-z0-9+/=_-]+/gu;
/**
 * Identifiers and commands (`ThisIsAVeryLongPascalCaseName2024`, `NODE_OPTIONS=--max-old-space-size=4096`) are made of
 * words: cut at every change of case, at digits and at separators, their pieces average 4 characters or more. Random
 * base62 or base64 of 32+ characters does so about once in 10,000 (its pieces average under 2).
 */
const WORD_PIECE = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/gu;
const WORDS_MIN_MEAN_PIECE_LENGTH = 4;
/** Hex digits and dashes only: UUIDs and git SHAs, never credentials. */
const HEX_LIKE = /^[0-9a-fA-F-]+$/u;
/** A word that is a file path: its "/" separates ordinary path segments, not base64. */
const PATH_LIKE = /^~?\.{0,2}\/|\\/u;
/** Where a URL's path starts (after the scheme and authority), and where its query or fragment starts. */
const URL_PATH = /[/?#]/u;
const URL_QUERY = /[?#]/u;

/** Shannon entropy of a string, in bits per character (per code point). */
export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  let total = 0;
  for (const ch of text) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
    total++;
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / total;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function readsAsWords(token: string): boolean {
  const pieces = token.match(WORD_PIECE) ?? [];
  const letters = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return pieces.length > 0 && letters / pieces.length >= WORDS_MIN_MEAN_PIECE_LENGTH;
}

function isHighEntropyToken(token: string): boolean {
  return (
    token.length >= HIGH_ENTROPY_MIN_LENGTH &&
    /[A-Z]/u.test(token) &&
    /[a-z]/u.test(token) &&
    /[0-9]/u.test(token) &&
    !HEX_LIKE.test(token) &&
    shannonEntropy(token) >= HIGH_ENTROPY_MIN_BITS &&
    !readsAsWords(token)
  );
}

/**
 * The parts of a word holding a URL that the entropy rule reads: what precedes the URL, its authority (user info and
 * host), and its query and fragment (`?token=…`, `#access_token=…`). Not its path: a path names a page, and the ids
 * of shared documents (Google Docs and Drive, Notion) are as random as any key. Known shapes are still searched there.
 */
function urlParts(word: string, schemeEnd: number): string[] {
  const rest = word.slice(schemeEnd + 3);
  const pathAt = rest.search(URL_PATH);
  if (pathAt === -1) return [word.slice(0, schemeEnd), rest];
  const afterAuthority = rest.slice(pathAt);
  const queryAt = afterAuthority.search(URL_QUERY);
  return [word.slice(0, schemeEnd), rest.slice(0, pathAt), queryAt === -1 ? "" : afterAuthority.slice(queryAt)];
}

/** The tokens the entropy rule looks at: runs of base64/hex characters, with paths cut at "/" and "\" (URLs: urlParts). */
function entropyTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.split(/\s+/u)) {
    if (word.length < HIGH_ENTROPY_MIN_LENGTH) continue;
    const schemeEnd = word.indexOf("://");
    let parts: string[];
    if (schemeEnd !== -1) parts = urlParts(word, schemeEnd).flatMap((part) => part.split("/"));
    else parts = PATH_LIKE.test(word) ? word.split(/[/\\]/u) : [word];
    for (const part of parts) {
      for (const match of part.matchAll(TOKEN_RUN)) tokens.push(match[0]);
    }
  }
  return tokens;
}

/**
 * True when the text contains something that looks like a credential: a known token shape
 * (sk-, gh?_, github_pat_, AKIA, ASIA, AIza, sk_live_, glpat-, npm_, a PEM private key, a JWT, and each chat
 * platform's bot tokens and webhook URLs, from its descriptor), one of the prefixed shapes split by whitespace, or a token
 * of 32+ characters mixing upper case, lower case and digits with at least 4 bits of entropy per character that does
 * not read as words (outside the path of a URL); all of them also with invisible characters inside or in fullwidth
 * forms (foldForMatching).
 * UUIDs, git SHAs and ordinary words never are. Never throws; a non-string is not a credential.
 */
export function looksLikeCredential(text: string): boolean {
  if (typeof text !== "string" || text.length === 0) return false;
  const folded = foldForMatching(text);
  if (KNOWN_SHAPES.some((shape) => shape.test(folded))) return true;
  if (entropyTokens(folded).some(isHighEntropyToken)) return true;
  return holdsSplitCredential(folded);
}
