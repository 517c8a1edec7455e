import { neutralizeBroadcastMentions, ZWSP } from "../kit/escaping.ts";

/**
 * WhatsApp formats text itself: `*bold*`, `_italic_`, `~strike~`, backticks for monospace, and `> ` at a line's start
 * for a quote. It has no escape character, so a zero-width space after each marker stops it from pairing up, and one
 * before a line-leading `>` stops the quote. A 1:1 chat has no mentions to defuse; links never preview (the bot
 * sends `preview_url: false`). `@everyone` and the like mean nothing there, but are broken all the same, as everywhere.
 */
export function toWhatsAppText(text: string): string {
  return neutralizeBroadcastMentions(text).replace(/[*_~`]/gu, (marker) => `${marker}${ZWSP}`).replace(/^>/gmu, `${ZWSP}>`);
}
