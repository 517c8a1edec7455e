import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AskUserQuestion } from "../../src/contract/schema.ts";
import { parseReply, type ParseOutcome } from "../../src/parse/index.ts";
import { decodeDiscordCustomId } from "../../src/platforms/discord/callback-data.ts";
import { decodeSlackActionId } from "../../src/platforms/slack/callback-data.ts";
import { decodeTelegramCallbackData } from "../../src/platforms/telegram/callback-data.ts";

const questions: AskUserQuestion[] = [
  { id: "deploy_target", header: "Deployment t", question: "Where should I deploy?", multiSelect: false, options: [{ label: "Staging (Recommended)" }, { label: "Production" }, { label: "Skip" }] },
  { id: "checks", header: "Checks", question: "Which checks?", multiSelect: true, options: [{ label: "Lint, format" }, { label: "Unit" }, { label: "E2E" }, { label: "1" }] },
  { id: "region", header: "Region", question: "Which region?", multiSelect: false, options: [{ label: "EU" }, { label: "US" }] },
];
const shapes = [questions.slice(0, 1), questions.slice(1, 2), questions.slice(0, 2), questions];

/** Replies built from the pieces people actually type, mixed with arbitrary Unicode. */
const reply = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc
    .array(fc.constantFrom("1", "2", "#3", "4)", "option 2", "skip", "/skip", "staging", "EU", "lint, format", ":", " - ", "=", ",", ";", "\n", " ", "“", "”", "sk-", "eyJ", "…", "１", "Ｅ", "1: ", "2. ", "region: "), { maxLength: 30 })
    .map((parts) => parts.join("")),
);

function isValid(outcome: ParseOutcome, asked: AskUserQuestion[]): boolean {
  const ids = asked.map((q) => q.id);
  switch (outcome.kind) {
    case "skip":
      return true;
    case "invalid":
      return ["empty", "credential", "too_many_lines", "not_open"].includes(outcome.reason) && typeof outcome.message === "string";
    case "answered":
      return ids.every((id) => (outcome.answers[id]?.length ?? 0) > 0) && Object.keys(outcome.answers).every((id) => ids.includes(id));
    case "partial":
      return outcome.missing.length > 0 && outcome.missing.every((id) => ids.includes(id) && !outcome.answers[id]) && Object.values(outcome.answers).every((v) => v.length > 0);
  }
}

describe("fuzzing (system suite)", () => {
  it("100,000 replies through parseReply: never a throw, always a valid outcome", () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.constantFrom(...shapes), reply, (asked, text) => {
        runs++;
        return isValid(parseReply(asked, text), asked);
      }),
      { numRuns: 100_000 },
    );
    expect(runs).toBe(100_000);
  }, 120_000);

  it("100,000 inputs through every callback-data decoder: never a throw, null or a well-formed callback", () => {
    const input = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.array(fc.constantFrom("a1", "a2", "|", "c", "o", "s", "q0123abcdef", "0", "3", "4", "-1", "01", "1e0", " ", "x"), { maxLength: 12 }).map((p) => p.join("")),
      fc.anything(),
    );
    let runs = 0;
    fc.assert(
      fc.property(input, (value) => {
        runs++;
        for (const decode of [decodeTelegramCallbackData, decodeDiscordCustomId, decodeSlackActionId]) {
          const decoded = decode(value as string);
          if (decoded === null) continue;
          if (typeof decoded.questionId !== "string" || decoded.questionId.length === 0) return false;
          const action = decoded.action;
          if (action.kind === "choice" && !(Number.isInteger(action.optionIndex) && action.optionIndex >= 0 && action.optionIndex < 4)) return false;
          if (!["choice", "other", "skip"].includes(action.kind)) return false;
        }
        return true;
      }),
      { numRuns: 100_000 },
    );
    expect(runs).toBe(100_000);
  }, 120_000);
});
