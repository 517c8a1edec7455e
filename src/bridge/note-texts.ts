import type { ReadAs } from "../parse/index.ts";
import type { AskUserQuestion } from "../contract/schema.ts";
import { ellipsize } from "../text.ts";

/** Every message the bridge says, in one place. */
export const TEXTS = {
  submitted: "Answer submitted.",
  skipped: "Skipped.",
  alreadyAnswered: "This question was already answered.",
  someoneElse: "This question is for someone else.",
  notValid: "This button is no longer valid.",
  notSubmitted: "Not submitted: the answer service is unreachable right now. Please try again in a moment.",
  ownWordsPrompt: "Reply with your own answer.",
  modalTitle: "Your answer",
  credential:
    "That looks like a password, key or token, so it was not recorded. Never send credentials here: use the secrets flow instead.",
  empty: "Please reply with a number, an option, or your own words.",
} as const;

const QUOTE_MAX = 80;

/** "✅ Recorded: Production (option 2)", one line per question when there are several. */
export function recordedText(questions: readonly AskUserQuestion[], readAs: ReadAs, prefix = "✅ Recorded"): string {
  const lines = questions
    .filter((q) => readAs[q.id]?.length)
    .map((q) => {
      const values = readAs[q.id]!.map((r) => {
        if (r.via === "text") return `“${ellipsize(r.value.replace(/\s+/g, " "), QUOTE_MAX)}” (your own words)`;
        const index = q.options.findIndex((o) => o.label === r.value);
        return `${r.value} (option ${index + 1})`;
      });
      return { header: q.header, text: values.join(", ") };
    });
  if (lines.length === 1 && questions.length === 1) return `${prefix}: ${lines[0]!.text}`;
  return [`${prefix}:`, ...lines.map((l) => `${l.header}: ${l.text}`)].join("\n");
}
