import { looseKey } from "../text.ts";

const SEPARATOR_RUN = /[\s,;\uFF0C\uFF1B]+/u;

/**
 * True when a reply (or a line of one) has nothing to read (rule 2): it is empty, blank, or nothing but
 * separators such as `,,`, or every piece of it vanishes under loose matching (`...`, `!`).
 */
export function isBlankText(text: string): boolean {
  return text.split(SEPARATOR_RUN).every((piece) => looseKey(piece) === "");
}
