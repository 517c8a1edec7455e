/**
 * The secrets this deployment is configured with (the gateway token, the bots' tokens, app token and signing
 * secrets): an answer that contains one is refused whatever its shape. The shape and entropy rules cannot see them
 * all: the gateway token is plain hex and a Slack signing secret 32 hex characters, which look like the git SHAs
 * people paste every day.
 */

/** Configured secrets shorter than this are ignored: a short one could be an ordinary word or number. */
export const KNOWN_SECRET_MIN_LENGTH = 12;

/** What may be put between the pieces of a secret to slip it through: whitespace, invisible characters, separators. */
const SEPARATORS = /[\s\u00AD\u180E\u200B-\u200D\u2060\uFEFF._:;,|/\\'"`-]+/gu;
const HEX = /^[0-9a-f]+$/iu;

const squeeze = (text: string) => text.replace(SEPARATORS, "");

interface Needle {
  value: string;
  /** Searched in the squeezed text (separators removed on both sides) rather than in the text as written. */
  squeezed: boolean;
  /** Hex means the same in either case, so a hex secret is matched case-insensitively; every other one exactly. */
  foldCase: boolean;
}

function needleOf(secret: string): Needle | undefined {
  if (secret.length < KNOWN_SECRET_MIN_LENGTH) return undefined;
  const squeezed = squeeze(secret);
  if (squeezed.length < KNOWN_SECRET_MIN_LENGTH) return { value: secret, squeezed: false, foldCase: false };
  const foldCase = HEX.test(squeezed);
  return { value: foldCase ? squeezed.toLowerCase() : squeezed, squeezed: true, foldCase };
}

/**
 * Returns a test for "this text contains one of these secrets", also with whitespace and separators removed
 * (`abcd ef-01…`). Secrets shorter than KNOWN_SECRET_MIN_LENGTH, empty and undefined entries are ignored. Case
 * matters, except for hex secrets. The test never throws, and neither it nor anything it returns holds the text.
 */
export function createKnownSecretMatcher(secrets: readonly (string | undefined)[]): (text: string) => boolean {
  const needles = [...new Set(secrets.map((s) => (typeof s === "string" ? s.trim() : "")))]
    .map(needleOf)
    .filter((n): n is Needle => n !== undefined);
  if (needles.length === 0) return () => false;
  return (text: string): boolean => {
    if (typeof text !== "string" || text.length < KNOWN_SECRET_MIN_LENGTH) return false;
    const squeezed = squeeze(text);
    const folded = squeezed.toLowerCase();
    return needles.some((n) => (n.squeezed ? (n.foldCase ? folded : squeezed) : text).includes(n.value));
  };
}
