/** What every platform's text escaping shares. */

export const ZWSP = "\u200B";

/** Breaks `@everyone`, `@here` and `@channel` with a zero-width space after the `@`. */
export function neutralizeBroadcastMentions(text: string): string {
  return text.replace(/@(?=(everyone|here|channel)\b)/giu, `@${ZWSP}`);
}
