import { graphemes } from "../kernel/text.ts";

/** Text that has a body that may be cut, and a footer (reply guidance) that is always kept whole. */
export interface PromptText {
  body: string;
  footer: string;
}

/** Turns plain text into a platform's safe text (escaping may make it longer). */
export type ToPlatformText = (text: string) => string;

const ELLIPSIS = "…";

/** Joins a body and footer with a blank line between them. */
export function joinPromptText({ body, footer }: PromptText): string {
  return footer ? `${body}\n\n${footer}` : body;
}

/**
 * Cuts `text` at a grapheme boundary so that `toPlatform(cut + "…" + after)` is at most `max`
 * UTF-16 code units (the stricter way to count for every platform), and returns the platform text.
 */
export function cutToFit(text: string, max: number, toPlatform: ToPlatformText, after = ""): string {
  const whole = toPlatform(text + after);
  if (whole.length <= max) return whole;
  const parts = graphemes(text);
  const build = (n: number): string => toPlatform(parts.slice(0, n).join("").trimEnd() + ELLIPSIS + after);
  let lo = 0;
  let hi = parts.length - 1;
  // Largest n whose result fits; escaping only grows with n, so a binary search works.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (build(mid).length <= max) lo = mid;
    else hi = mid - 1;
  }
  const result = build(lo);
  if (result.length > max) throw new Error(`cutToFit: even an empty body exceeds ${max} characters`);
  return result;
}

/** Fits a prompt into `max` platform characters, cutting the body and keeping the footer whole. */
export function fitPromptText(text: PromptText, max: number, toPlatform: ToPlatformText): string {
  return cutToFit(text.body, max, toPlatform, text.footer ? `\n\n${text.footer}` : "");
}
