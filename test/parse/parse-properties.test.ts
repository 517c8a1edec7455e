import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { normalizeAskUserInput } from "../../src/contract/normalize.ts";
import type { AskUserQuestion } from "../../src/contract/schema.ts";
import { looksLikeCredential, parseNumberForm, parseReply, type ParseOutcome } from "../../src/parse/index.ts";
import { looseKey, looseLabelKey } from "../../src/kernel/text.ts";

const RUNS = Number(process.env.PARSE_PROPERTY_RUNS ?? 300);

// ---- arbitraries ----

const REALISTIC_LABELS = [
  "Staging (Recommended)",
  "Production",
  "Skip",
  "Red, green and blue",
  "Black; white",
  "\"Quoted\"",
  "Yes!",
  "1",
  "2",
  "node.js 20",
  "sk-test-00000000000000000000000000",
  "C:\\out",
  "https://example.com/a:b",
  "Ｗｉｄｅ",
  "日本語",
  "Café",
];

const labelArb = fc.oneof(fc.string({ unit: "grapheme", minLength: 1, maxLength: 24 }), fc.constantFrom(...REALISTIC_LABELS));

function questionArb(index: number, multiSelect: fc.Arbitrary<boolean>): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({
    id: fc.constant(`q_${index}`),
    header: fc.constantFrom("Target", "Window", "Features").map((h) => `${h}${index}`),
    question: fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }).map((q) => `${index + 1}) ${q}`),
    options: fc.uniqueArray(labelArb, { minLength: 2, maxLength: 4 }).map((labels) => labels.map((label) => ({ label }))),
    multiSelect,
  });
}

/** 1-3 questions that pass the contract's normaliser, as the parser receives them. */
function questionsArb(count: fc.Arbitrary<number> = fc.integer({ min: 1, max: 3 })): fc.Arbitrary<AskUserQuestion[]> {
  return count
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => questionArb(i, fc.boolean()))))
    .map((questions) => normalizeAskUserInput({ questions }))
    .filter((result) => result.ok)
    .map((result) => (result.ok ? result.value.questions : []));
}

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const replyUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 3, arbitrary: fc.constantFrom(",", ";", "\n", "\r\n", ":", " ", " - ", "=", ".", ")", "#", "1", "2", "3", "skip", "/skip", "option ", "\"", "!") },
);
// fast-check keeps strings short by default; half the replies use the full 10k range.
const replyArb = fc.oneof(fc.string({ unit: replyUnit, maxLength: 10_000 }), fc.string({ unit: replyUnit, maxLength: 10_000, size: "max" }));

// ---- outcome validity ----

const readValueSchema = z.strictObject({ value: z.string().min(1), via: z.enum(["number", "label", "text"]) });
const answersSchema = z.record(z.string(), z.array(z.string().min(1)).min(1));
const readAsSchema = z.record(z.string(), z.array(readValueSchema).min(1));
const outcomeSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("answered"), answers: answersSchema, readAs: readAsSchema }),
  z.strictObject({ kind: z.literal("partial"), answers: answersSchema, missing: z.array(z.string()).min(1), readAs: readAsSchema }),
  z.strictObject({ kind: z.literal("skip") }),
  z.strictObject({ kind: z.literal("invalid"), reason: z.enum(["empty", "credential", "too_many_lines", "not_open"]), message: z.string().min(1) }),
]);

/** Throws unless the outcome is a well-formed answer to these questions. */
function assertValidOutcome(questions: AskUserQuestion[], outcome: ParseOutcome): void {
  outcomeSchema.parse(outcome);
  if (outcome.kind !== "answered" && outcome.kind !== "partial") return;
  const ids = questions.map((q) => q.id);
  const answered = Object.keys(outcome.answers);
  const missing = outcome.kind === "partial" ? outcome.missing : [];
  expect(Object.keys(outcome.readAs)).toEqual(answered);
  expect([...answered, ...missing].sort()).toEqual([...ids].sort());
  expect(missing).toEqual(ids.filter((id) => missing.includes(id)));
  expect(answered.length).toBeGreaterThan(0);
  for (const question of questions) {
    const read = outcome.readAs[question.id];
    if (!read) continue;
    expect(outcome.answers[question.id]).toEqual(read.map((r) => r.value));
    if (!question.multiSelect) expect(read).toHaveLength(1);
    const labels = question.options.map((o) => o.label);
    for (const { value, via } of read) {
      if (via === "text") expect(value).toBe(value.trim());
      else expect(labels).toContain(value);
    }
    expect(new Set(read.map((r) => looseKey(r.value))).size).toBe(read.length);
  }
}

// ---- helpers for the read-as-itself properties ----

/** Flips the case of the characters where case folding round-trips (not the context-sensitive Greek sigma). */
function flipCase(text: string, upper: boolean[]): string {
  let i = 0;
  let out = "";
  for (const ch of text) {
    const u = ch.toUpperCase();
    const l = ch.toLowerCase();
    const safe = u.length === ch.length && l.length === ch.length && u.toLowerCase() === l && l.toUpperCase() === u && !/[σςΣ]/u.test(ch);
    out += safe ? (upper[i % upper.length] ? u : l) : ch;
    i++;
  }
  return out;
}

const paddingArb = fc.string({ unit: fc.constantFrom(" ", "\t", "\u00a0", "\u3000"), maxLength: 4 });
const singleQuestionArb = questionsArb(fc.constant(1)).filter(
  // A label with no loose form is untypeable; the contract should refuse it (see the parser's report).
  ([q]) => q !== undefined && q.options.every((o) => looseLabelKey(o.label) !== "" && looseKey(o.label) !== ""),
);

describe("parseReply properties", () => {
  it("never throws and always returns a valid outcome, for arbitrary Unicode up to 10k characters", () => {
    fc.assert(
      fc.property(questionsArb(), replyArb, (questions, reply) => {
        assertValidOutcome(questions, parseReply(questions, reply));
      }),
      { numRuns: RUNS },
    );
  });

  it("never throws on arbitrary values where a string is expected", () => {
    fc.assert(
      fc.property(questionsArb(), fc.anything(), (questions, reply) => {
        assertValidOutcome(questions, parseReply(questions, reply as string));
      }),
      { numRuns: 100 },
    );
  });

  it("reads every option label, in any case and with padding, as itself", () => {
    fc.assert(
      fc.property(
        singleQuestionArb,
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        paddingArb,
        paddingArb,
        ([question], pick, upper, before, after) => {
          if (!question) return;
          const label = question.options[pick % question.options.length]?.label ?? "";
          const outcome = parseReply([question], before + flipCase(label, upper) + after);
          expect(outcome).toEqual({
            kind: "answered",
            answers: { [question.id]: [label] },
            readAs: { [question.id]: [{ value: label, via: "label" }] },
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("reads every in-range number, in every number form, as its option", () => {
    fc.assert(
      fc.property(
        singleQuestionArb.filter(([q]) => q !== undefined && q.options.every((o) => parseNumberForm(o.label) === null)),
        fc.nat(),
        fc.constantFrom("N", "#N", "N.", "N)", "option N", "Option N", "  N  "),
        ([question], pick, form) => {
          if (!question) return;
          const n = (pick % question.options.length) + 1;
          const label = question.options[n - 1]?.label ?? "";
          const outcome = parseReply([question], form.replace("N", String(n)));
          expect(outcome).toEqual({
            kind: "answered",
            answers: { [question.id]: [label] },
            readAs: { [question.id]: [{ value: label, via: "number" }] },
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("reads numbered lines, one per question, in any order, as each question's option", () => {
    // "#N" is a position unless a label loosely equals it, so such labels are left out here.
    const noHashLabels = questionsArb(fc.integer({ min: 2, max: 3 })).filter((qs) => qs.every((q) => q.options.every((o) => !looseKey(o.label).startsWith("#"))));
    fc.assert(
      fc.property(noHashLabels, fc.array(fc.nat(), { minLength: 3, maxLength: 3 }), (questions, picks) => {
        const chosen = questions.map((q, i) => ((picks[i] ?? 0) % q.options.length) + 1);
        const reply = chosen.map((n, i) => `${i + 1}: #${n}`).reverse().join("\n");
        const readAs = Object.fromEntries(questions.map((q, i) => [q.id, [{ value: q.options[(chosen[i] ?? 1) - 1]?.label, via: "number" }]]));
        expect(parseReply(questions, reply)).toMatchObject({ kind: "answered", readAs });
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses a reply carrying a known token shape and never echoes it", () => {
    const base62 = fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), minLength: 36, maxLength: 48 });
    const secretArb = fc.tuple(fc.constantFrom("sk-", "ghp_", "xoxb-12345-", "github_pat_11"), base62).map(([prefix, body]) => prefix + body);
    fc.assert(
      fc.property(questionsArb(), secretArb, fc.constantFrom("", "here: ", "1: ", "key=", "Logs, "), fc.constantFrom("", " thanks", "\n"), (questions, secret, before, after) => {
        expect(looksLikeCredential(secret)).toBe(true);
        const outcome = parseReply(questions, before + secret + after);
        expect(outcome).toMatchObject({ kind: "invalid", reason: "credential" });
        expect(JSON.stringify(outcome)).not.toContain(secret.slice(4));
      }),
      { numRuns: 100 },
    );
  });
});
