/**
 * Teams text. A bot message is markdown (Teams' default text format) and may carry HTML: `<at>…</at>` is how a
 * mention is written, `<a>` a link. So `&`, `<` and `>` become entities (no tag, mention or link can form), and the
 * markdown that would format or link (`\ * _ ~ \` [ ] #`) is backslash-escaped. A mention also needs an entity the bot
 * would have to add on purpose, so plain text never notifies anyone; `@channel`-style words are broken anyway, for
 * clients that highlight them.
 */
import { neutralizeBroadcastMentions } from "../kit/escaping.ts";

const MARKDOWN = /[\\*_~`[\]#]/gu;

export function toTeamsText(text: string): string {
  const escaped = text.replace(/&/gu, "&amp;").replace(/</gu, "&lt;").replace(/>/gu, "&gt;").replace(MARKDOWN, (c) => `\\${c}`);
  return neutralizeBroadcastMentions(escaped);
}

/**
 * An Adaptive Card TextBlock: its markdown subset (bold, italic, lists, links) is escaped; HTML is never read there,
 * so `<` and `>` stay as they are.
 */
export function toTeamsCardText(text: string): string {
  return neutralizeBroadcastMentions(text.replace(MARKDOWN, (c) => `\\${c}`));
}

/**
 * A card's plain text, which Teams shows as it is (an Input.Text's label: no markdown, no HTML): only the broadcast
 * mentions are broken, as in the card's TextBlocks, so a question that says `@channel` reads the same in its field.
 */
export function toTeamsPlainCardText(text: string): string {
  return neutralizeBroadcastMentions(text);
}

/**
 * The way back: the text a person typed, from a message activity's `text`. Teams sends HTML-escaped text and writes
 * each mention as `<at>Name</at>`; the bot's own mentions (`botMentions`, the names in its mention entities) are
 * removed, other tags dropped, and entities decoded.
 */
export function teamsTextToPlain(text: string, botMentions: readonly string[] = []): string {
  let plain = text;
  for (const mention of botMentions) plain = plain.split(mention).join(" ");
  return plain
    .replace(/<at>([^<]*)<\/at>/giu, "@$1")
    .replace(/<br\s*\/?>/giu, "\n")
    .replace(/<\/?[A-Za-z][^<>]*>/gu, "")
    .replace(/&nbsp;/gu, " ")
    .replace(/&lt;/gu, "<")
    .replace(/&gt;/gu, ">")
    .replace(/&quot;/gu, '"')
    .replace(/&#39;/gu, "'")
    .replace(/&amp;/gu, "&")
    .replace(/[ \t]{2,}/gu, " ")
    .trim();
}
