/**
 * Credential detection (parser rule 3). Bots reuse it to refuse, and delete, a pasted secret.
 * Every pattern is anchored on a left boundary so that each scan stays linear on long input.
 */

/** Known token shapes. Each is searched anywhere in the text, after a non-token character. */
const KNOWN_SHAPES: readonly RegExp[] = [
  // OpenAI-style keys: sk- followed by at least 20 of [A-Za-z0-9_-]. "sk-learn" is too short.
  /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20}/u,
  // Slack tokens: xoxa-, xoxb-, xoxp-, xoxr- followed by a token body.
  /(?<![A-Za-z0-9])xox[abpr]-[A-Za-z0-9-]{10}/u,
  // GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ followed by at least 30 alphanumerics; fine-grained PATs.
  /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{30}/u,
  /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20}/u,
  // AWS access key ids.
  /(?<![A-Za-z0-9])AKIA[A-Z0-9]{16}/u,
  // Telegram bot tokens: the bot id, a colon, then 35 characters.
  /(?<![A-Za-z0-9_-])[0-9]+:[A-Za-z0-9_-]{35}/u,
  // PEM private keys (RSA, EC, OPENSSH, ENCRYPTED, or plain).
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/u,
  // JWTs: a base64url JSON header and payload, both starting with {" (eyJ).
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\./u,
];

/** A token at least this long may be a credential by entropy alone. */
export const HIGH_ENTROPY_MIN_LENGTH = 32;
/** Shannon entropy, in bits per character, from which a long mixed token counts as a credential. */
export const HIGH_ENTROPY_MIN_BITS = 4;

/** Characters of base64, base64url and hex: what generated secrets are made of. */
const TOKEN_RUN = /[A-Za-z0-9+/=_-]+/gu;
/** Hex digits and dashes only: UUIDs and git SHAs, never credentials. */
const HEX_LIKE = /^[0-9a-fA-F-]+$/u;
/** A word that is a URL or a file path: its "/" separates ordinary path segments, not base64. */
const PATH_LIKE = /:\/\/|^~?\.{0,2}\/|\\/u;

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

function isHighEntropyToken(token: string): boolean {
  return (
    token.length >= HIGH_ENTROPY_MIN_LENGTH &&
    /[A-Z]/u.test(token) &&
    /[a-z]/u.test(token) &&
    /[0-9]/u.test(token) &&
    !HEX_LIKE.test(token) &&
    shannonEntropy(token) >= HIGH_ENTROPY_MIN_BITS
  );
}

/** The tokens the entropy rule looks at: runs of base64/hex characters, with URLs and paths cut at "/" and "\". */
function entropyTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.split(/\s+/u)) {
    if (word.length < HIGH_ENTROPY_MIN_LENGTH) continue;
    const parts = PATH_LIKE.test(word) ? word.split(/[/\\]/u) : [word];
    for (const part of parts) {
      for (const match of part.matchAll(TOKEN_RUN)) tokens.push(match[0]);
    }
  }
  return tokens;
}

/**
 * True when the text contains something that looks like a credential: a known token shape
 * (sk-, xox?-, gh?_, github_pat_, AKIA, a Telegram bot token, a PEM private key, a JWT)
 * or a token of 32+ characters mixing upper case, lower case and digits with at least 4 bits of entropy per character.
 * UUIDs, git SHAs and ordinary words never are. Never throws; a non-string is not a credential.
 */
export function looksLikeCredential(text: string): boolean {
  if (typeof text !== "string" || text.length === 0) return false;
  if (KNOWN_SHAPES.some((shape) => shape.test(text))) return true;
  return entropyTokens(text).some(isHighEntropyToken);
}
