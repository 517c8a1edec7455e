import { ZWSP } from "../kit/escaping.ts";

/**
 * Matrix plain text (`body`). Every event the bot sends also carries an empty `m.mentions` (intentional mentions,
 * spec 1.7), so no body text pings anyone on a current homeserver; for older servers and clients, whose push rules
 * still read the body, a zero-width space after an `@` that starts a word stops `@room` and `@user:server` alike
 * (e-mail addresses are kept).
 */
export function toMatrixText(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}_])@(?=[\p{L}\p{N}_])/gu, `@${ZWSP}`);
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * The same text as `formatted_body` (org.matrix.custom.html): every character that could start a tag, an entity or
 * an attribute is escaped, so no link, pill (a mention) or markup can form; line breaks become `<br>`.
 */
export function toMatrixHtml(text: string): string {
  return toMatrixText(text)
    .replace(/[&<>"']/gu, (c) => HTML_ESCAPES[c]!)
    .replace(/\n/gu, "<br>");
}
