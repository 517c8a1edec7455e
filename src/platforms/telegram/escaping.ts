import { ZWSP } from "../kit/escaping.ts";

/**
 * Telegram text is sent without parse_mode, so no markup applies; only `@username` mentions notify.
 * A zero-width space after an `@` that starts a word stops the mention (e-mail addresses are kept).
 */
export function toTelegramText(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}_])@(?=[\p{L}\p{N}_])/gu, `@${ZWSP}`);
}
