import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { normalizeAskUserInput, formatIssues } from "../../src/contract/normalize.ts";
import type { AskUserQuestion } from "../../src/contract/schema.ts";
import { parseReply, type ParseOutcome } from "../../src/parse/index.ts";

/**
 * The parser fixture suite (issue 3). Every `test/fixtures/parse/*.json` file is an array of
 * `{ name, questions, answered?, reply, expect }`; `expect` is the outcome without `message` and `readAs`.
 * Adding a case is adding JSON. `multiSelect` may be omitted (false).
 */
const FIXTURE_DIR = join(import.meta.dirname, "..", "fixtures", "parse");
const MIN_CASES = 100;

const idList = z.array(z.string());
const answers = z.record(z.string(), z.array(z.string()).min(1));
const fixtureCaseSchema = z.strictObject({
  name: z.string().min(1),
  questions: z.array(
    z.strictObject({
      id: z.string(),
      header: z.string(),
      question: z.string(),
      options: z.array(z.strictObject({ label: z.string(), description: z.string().optional() })),
      multiSelect: z.boolean().default(false),
    }),
  ),
  /** Ids answered by an earlier reply (a partial answer): parseReply's `answered` option. */
  answered: idList.optional(),
  reply: z.string(),
  expect: z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("answered"), answers }),
    z.strictObject({ kind: z.literal("partial"), answers, missing: idList.min(1) }),
    z.strictObject({ kind: z.literal("skip") }),
    z.strictObject({ kind: z.literal("invalid"), reason: z.enum(["empty", "credential", "too_many_lines", "not_open"]) }),
  ]),
});
type FixtureCase = z.infer<typeof fixtureCaseSchema>;

type Loaded = { title: string; fixture: FixtureCase } | { title: string; error: string };

/** Loads every fixture file; a malformed file or case becomes a failing entry named after it. */
function loadFixtures(): Loaded[] {
  const loaded: Loaded[] = [];
  const files = readdirSync(FIXTURE_DIR).filter((file) => file.endsWith(".json")).sort();
  for (const file of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(join(FIXTURE_DIR, file), "utf8"));
    } catch (error) {
      loaded.push({ title: file, error: `${file}: not valid JSON: ${(error as Error).message}` });
      continue;
    }
    if (!Array.isArray(raw)) {
      loaded.push({ title: file, error: `${file}: must be an array of cases` });
      continue;
    }
    const seen = new Set<string>();
    raw.forEach((item: unknown, index) => {
      const name = typeof (item as { name?: unknown })?.name === "string" ? (item as { name: string }).name : `#${index}`;
      const title = `${file} › ${name}`;
      const parsed = fixtureCaseSchema.safeParse(item);
      if (!parsed.success) {
        loaded.push({ title, error: `${title}: malformed fixture: ${z.prettifyError(parsed.error)}` });
        return;
      }
      if (seen.has(name)) {
        loaded.push({ title: `${title} (duplicate)`, error: `${title}: duplicate case name in ${file}` });
        return;
      }
      seen.add(name);
      // The questions must already be normalised: what the parser receives in production.
      const normalised = normalizeAskUserInput({ questions: parsed.data.questions });
      if (!normalised.ok) {
        loaded.push({ title, error: `${title}: questions are not valid:\n${formatIssues(normalised.issues)}` });
        return;
      }
      if (JSON.stringify(normalised.value.questions) !== JSON.stringify(parsed.data.questions)) {
        loaded.push({ title, error: `${title}: questions are not in normalised form (trimmed, headers cut to 12)` });
        return;
      }
      loaded.push({ title, fixture: parsed.data });
    });
  }
  return loaded;
}

/** The outcome as fixtures state it: without `message` and `readAs`. */
function comparable(outcome: ParseOutcome): Record<string, unknown> {
  const { message: _message, readAs: _readAs, ...rest } = outcome as ParseOutcome & { message?: unknown; readAs?: unknown };
  return rest;
}

const loaded = loadFixtures();

describe("parser fixtures", () => {
  it(`has at least ${MIN_CASES} cases`, () => {
    const count = loaded.filter((entry) => "fixture" in entry).length;
    expect(count).toBeGreaterThanOrEqual(MIN_CASES);
  });

  for (const entry of loaded) {
    if ("error" in entry) {
      it(entry.title, () => {
        throw new Error(entry.error);
      });
      continue;
    }
    const { questions, reply, answered, expect: expected } = entry.fixture;
    it(entry.title, () => {
      const outcome = parseReply(questions as AskUserQuestion[], reply, answered ? { answered } : {});
      expect(comparable(outcome)).toEqual(expected);
    });
  }
});
