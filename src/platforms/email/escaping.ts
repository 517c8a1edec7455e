import { neutralizeBroadcastMentions } from "../kit/escaping.ts";

/**
 * The mail's plain-text part: mail has no markup and no mentions, so the text goes as it is (with `@everyone` and the
 * like broken, as everywhere). Nothing in a text part can run or link by itself; a mail client may still turn a URL in
 * it into a link, as it would for any sender.
 */
export function toEmailText(text: string): string {
  return neutralizeBroadcastMentions(text);
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for an HTML element's content or a quoted attribute value: no tag, entity or attribute can form. */
export function escapeEmailHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (c) => HTML_ESCAPES[c]!);
}

/** The same text for the mail's HTML part: escaped, line breaks as `<br>`. */
export function toEmailHtml(text: string): string {
  return escapeEmailHtml(toEmailText(text)).replace(/\r?\n/gu, "<br>\n");
}
