import { ZWSP } from "../kit/escaping.ts";

/**
 * Mattermost text (its Markdown): backslash-escapes the Markdown that would format or link (`\ * _ ~ \` | [ ] < >`,
 * and `#`, `>`, `-`, `+` and `1.` at a line start), then breaks every mention with a zero-width space after the `@`:
 * `@channel`, `@here`, `@all` and `@someone` in quoted text notify nobody.
 */
export function toMattermostText(text: string): string {
  const escaped = text
    .replace(/[\\*_~`|[\]<>]/gu, "\\$&")
    .replace(/^([ \t]*)([#+-])/gmu, "$1\\$2")
    .replace(/^([ \t]*\d+)([.)])/gmu, "$1\\$2");
  return escaped.replace(/(?<![\p{L}\p{N}_])@(?=[\p{L}\p{N}._-])/gu, `@${ZWSP}`);
}
