import { ellipsize } from "../kernel/text.ts";

/**
 * Control characters, bidi controls, zero-width and other invisible format characters, which could disguise what an
 * agent asks a person to approve (`rm -rf /` shown as something harmless) and which the contract refuses anyway.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]/gu;

/**
 * An agent's text (a command, a file path, a tool's input) made fit for a one-line question a person reads on a
 * phone: line breaks become ⏎, tabs a space, every hidden character is shown as its code (`\u{202E}`), runs of
 * spaces fold, and the whole is cut to `max` characters with an ellipsis. Platform markup is escaped later, by
 * each renderer, as for any question.
 */
export function quoteForPrompt(text: string, max: number): string {
  const visible = text
    .replace(/\r\n|\r|\n/g, " ⏎ ")
    .replace(/\t/g, " ")
    .replace(HIDDEN, (ch) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`)
    .replace(/ {2,}/g, " ")
    .trim();
  return ellipsize(visible, max);
}
