/**
 * Making plain text safe for each platform. Question text can contain anything, so every payload
 * passes through one of these: nothing may ping people, inject markup, or link.
 */

const ZWSP = "\u200B";

/** Breaks `@everyone`, `@here` and `@channel` with a zero-width space after the `@`. */
export function neutralizeBroadcastMentions(text: string): string {
  return text.replace(/@(?=(everyone|here|channel)\b)/giu, `@${ZWSP}`);
}

/**
 * Telegram text is sent without parse_mode, so no markup applies; only `@username` mentions notify.
 * A zero-width space after an `@` that starts a word stops the mention (e-mail addresses are kept).
 */
export function toTelegramText(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}_])@(?=[\p{L}\p{N}_])/gu, `@${ZWSP}`);
}

/**
 * Discord content: backslash-escapes markdown (`\ * _ ~ \` | [ ] <`, and `# > -` at a line start),
 * so no formatting, masked link or `<@id>` mention renders, then breaks `@everyone` and `@here`.
 * The payload also carries `allowed_mentions: { parse: [] }`.
 */
export function toDiscordContent(text: string): string {
  const escaped = text.replace(/[\\*_~`|[\]<]/gu, "\\$&").replace(/^([ \t]*)([#>-])/gmu, "$1\\$2");
  return neutralizeBroadcastMentions(escaped);
}

/** Slack text: escapes `&`, `<` and `>` (so `<!channel>`, `<@U123>` and links never form), then breaks `@channel`. */
export function toSlackText(text: string): string {
  const escaped = text.replace(/&/gu, "&amp;").replace(/</gu, "&lt;").replace(/>/gu, "&gt;");
  return neutralizeBroadcastMentions(escaped);
}

/**
 * The way back from Slack: Slack delivers message text in its own markup (`&amp;`, `&lt;`, `&gt;`, and `<…>` for
 * links, mentions and channels). The parser wants what the person typed.
 */
export function slackTextToPlain(text: string): string {
  return text
    .replace(/<([^<>]*)>/gu, (_whole, inner: string) => {
      const bar = inner.indexOf("|");
      const target = bar === -1 ? inner : inner.slice(0, bar);
      const label = bar === -1 ? undefined : inner.slice(bar + 1);
      if (target.startsWith("@") || target.startsWith("#")) return label ? `${target[0]}${label.replace(/^[@#]/u, "")}` : target;
      if (target.startsWith("!")) return label ?? `@${target.slice(1).split("^")[0]}`;
      return label ?? target;
    })
    .replace(/&lt;/gu, "<")
    .replace(/&gt;/gu, ">")
    .replace(/&amp;/gu, "&");
}
