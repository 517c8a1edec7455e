import { neutralizeBroadcastMentions } from "../kit/escaping.ts";

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
