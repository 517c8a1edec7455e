/** Line breaks of a typed reply: \n, \r\n, \r, and the Unicode line and paragraph separators. */
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/u;

/** Splits a reply into lines. */
export function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}
