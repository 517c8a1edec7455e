/**
 * The secrets this deployment is configured with (the gateway token, the metrics token, the bots' tokens, app token
 * and signing secrets): an answer that contains one is refused whatever its shape. The shape and entropy rules cannot
 * see them all: the gateway token is plain hex and a platform's signing secret may be 32 hex characters, which look
 * like the git SHAs people paste every day.
 */

/** Configured secrets shorter than this are ignored: a short one could be an ordinary word or number. */
export const KNOWN_SECRET_MIN_LENGTH = 12;

/**
 * What is left of a text to search for a secret: its letters and digits, in order. Anything else may be put between
 * the pieces of a secret to slip it through (whitespace, `-`, `.`, `+`, `~`, `*`, …), and so may what no one sees:
 * default-ignorable code points (zero-width and format characters, U+034F, Hangul fillers, which are letters) and
 * combining marks. NFKD folds fullwidth and other compatibility forms to plain ones first, and parts a letter from its
 * marks (`c` + U+0301 stays `c`, not `ć`). Linear in the length of the text.
 */
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+|\p{Default_Ignorable_Code_Point}+/gu;
const squeeze = (text: string) => text.normalize("NFKD").replace(NOT_LETTER_OR_DIGIT, "");
const HEX = /^[0-9a-f]+$/iu;

interface Needle {
  value: string;
  /** Searched in the squeezed text (both sides reduced to letters and digits) rather than in the text as written. */
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
 * Returns a test for "this text contains one of these secrets", also with anything but letters and digits put
 * between its pieces or removed (`abcd ef-01…`, `abcd+ef~01…`, zero-width characters, fullwidth forms). Secrets
 * shorter than KNOWN_SECRET_MIN_LENGTH, empty and undefined entries are ignored. Case matters, except for hex secrets.
 * The test never throws, and neither it nor anything it returns holds the text.
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
