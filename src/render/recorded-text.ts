/**
 * How a typed reply was read, said back to the person: the chat bots' confirmation and the Control UI's
 * "Read as …" note are both this text.
 */
import type { AskUserQuestion } from "../contract/schema.ts";
import type { ReadAs } from "../contract/parse-outcome.ts";
import { ellipsize } from "../kernel/text.ts";

const QUOTE_MAX = 80;

/** "✅ Recorded: Production (option 2)", one line per question when there are several. */
export function recordedText(questions: readonly AskUserQuestion[], readAs: ReadAs, prefix = "✅ Recorded"): string {
  // Own keys only: a question id such as `constructor` must not find Object.prototype's.
  const read = (q: AskUserQuestion) => (Object.hasOwn(readAs, q.id) ? readAs[q.id] : undefined) ?? [];
  const lines = questions
    .filter((q) => read(q).length > 0)
    .map((q) => {
      const values = read(q).map((r) => {
        if (r.via === "text") return `“${ellipsize(r.value.replace(/\s+/g, " "), QUOTE_MAX)}” (your own words)`;
        const index = q.options.findIndex((o) => o.label === r.value);
        return `${r.value} (option ${index + 1})`;
      });
      return { header: q.header, text: values.join(", ") };
    });
  if (lines.length === 1 && questions.length === 1) return `${prefix}: ${lines[0]!.text}`;
  return [`${prefix}:`, ...lines.map((l) => `${l.header}: ${l.text}`)].join("\n");
}
