import { neutralizeBroadcastMentions } from "../kit/escaping.ts";

/**
 * Discord content: backslash-escapes markdown (`\ * _ ~ \` | [ ] <`, and `# > -` at a line start),
 * so no formatting, masked link or `<@id>` mention renders, then breaks `@everyone` and `@here`.
 * The payload also carries `allowed_mentions: { parse: [] }`.
 */
export function toDiscordContent(text: string): string {
  const escaped = text.replace(/[\\*_~`|[\]<]/gu, "\\$&").replace(/^([ \t]*)([#>-])/gmu, "$1\\$2");
  return neutralizeBroadcastMentions(escaped);
}
