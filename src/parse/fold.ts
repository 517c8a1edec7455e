/**
 * The text the credential filter matches, folded so that look-alike and invisible characters cannot hide a secret
 * (issue #24 item 7). Only for matching: what is recorded is always the text as the person wrote it.
 *
 * - Default-ignorable code points and format characters (Unicode category Cf) are removed: zero-width spaces and
 *   joiners, direction marks (U+200E), invisible operators (U+2063), the soft hyphen, the BOM, the combining grapheme
 *   joiner (U+034F, category Mn but default-ignorable), variation selectors, Hangul fillers. Nobody sees them, so a
 *   key with them inside reads, to a person, as the key.
 * - Then NFKC turns compatibility forms into their plain ones: fullwidth `ｓｋ＿ｌｉｖｅ＿` becomes `sk_live_`, a
 *   no-break or ideographic space a space. (No compatibility mapping yields a default-ignorable code point, so one
 *   removal before it is enough.)
 *
 * Both steps are linear in the length of the text.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]+/gu;

/** The text with invisible characters removed and compatibility forms folded (NFKC). Never throws. */
export function foldForMatching(text: string): string {
  return text.replace(INVISIBLE, "").normalize("NFKC");
}
