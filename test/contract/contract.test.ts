import { cpuMsSince } from "../helpers/cpu-time.ts";
import { describe, expect, it } from "vitest";
import { askUserInputJsonSchema, LIMITS, normalizeAskUserInput } from "../../src/index.ts";
import { renderPromptText } from "../../src/render/index.ts";
import { DISCORD_CONTENT_MAX } from "../../src/platforms/discord/payload.ts";
import { DISCORD_TEXT_INPUT_MAX } from "../../src/platforms/discord/modal.ts";
import { SLACK_INPUT_LABEL_MAX } from "../../src/platforms/slack/modal.ts";
import { SLACK_SECTION_TEXT_MAX } from "../../src/platforms/slack/payload.ts";
import { TELEGRAM_TEXT_MAX } from "../../src/platforms/telegram/payload.ts";

import { input, issuesOf, option, question, valueOf } from "../helpers/contract-inputs.ts";

describe("timeoutSeconds", () => {
  it.each([
    [5, 30],
    [9999, 3600],
    [undefined, 900],
    [30, 30],
    [3600, 3600],
    [120, 120],
    [-4, 30],
  ])("%s becomes %s", (given, expected) => {
    expect(valueOf(input(given === undefined ? {} : { timeoutSeconds: given })).timeoutSeconds).toBe(expected);
  });

  it.each([[12.5], ["60"], [Number.NaN], [Number.POSITIVE_INFINITY], [null]])("%s is an error at timeoutSeconds", (given) => {
    expect(issuesOf(input({ timeoutSeconds: given })).map((i) => i.path)).toEqual(["timeoutSeconds"]);
  });
});

describe("header", () => {
  it("cuts to 12 characters and trims again", () => {
    expect(valueOf(input({ questions: [question({ header: "Deployment target" })] })).questions[0]!.header).toBe("Deployment t");
    expect(valueOf(input({ questions: [question({ header: "  Deployment   target " })] })).questions[0]!.header).toBe("Deployment");
  });

  it("cuts emoji by grapheme cluster, never splitting a ZWJ family", () => {
    const family = "👨‍👩‍👧‍👦";
    const header = [family, "👍🏽", ..."🚀🚀🚀🚀🚀🚀🚀🚀🚀", family, "🇫🇷"].join("");
    const cut = valueOf(input({ questions: [question({ header })] })).questions[0]!.header;
    const segments = Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(cut), (s) => s.segment);
    expect(segments).toHaveLength(12);
    expect(segments[0]).toBe(family);
    expect(segments[1]).toBe("👍🏽");
    expect(segments[11]).toBe(family);
    expect(cut).toBe(header.slice(0, cut.length));
  });

  it.each([[""], ["   "]])("refuses a blank header %j", (header) => {
    expect(issuesOf(input({ questions: [question({ header })] }))).toEqual([{ path: "questions[0].header", message: "must not be empty" }]);
  });

  it("refuses two headers equal after the cut, at the later one, case-insensitively", () => {
    const issues = issuesOf(
      input({ questions: [question({ id: "a", header: "Deployment target" }), question({ id: "b", header: "DEPLOYMENT TIMING" })] }),
    );
    expect(issues.map((i) => i.path)).toEqual(["questions[1].header"]);
    expect(issues[0]!.message).toMatch(/duplicate header/);
  });
});

describe("labels", () => {
  it.each([["Other"], ["Other (please specify)"], ["other…"], ["Other:"], ["OTHER ?"], ["  other.  "]])("refuses an authored Other option %j", (label) => {
    const issues = issuesOf(input({ questions: [question({ options: [option("Yes"), option(label)] })] }));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe("questions[0].options[1].label");
    expect(issues[0]!.message).toMatch(/free text is always added automatically/);
  });

  it.each([["Otherwise skip"], ["Other team"], ["Otherwise"], ["Another"]])("accepts %j", (label) => {
    expect(valueOf(input({ questions: [question({ options: [option("Yes"), option(label)] })] })).questions[0]!.options[1]!.label).toBe(label);
  });

  it.each([
    ["Staging", " staging "],
    ["Staging", "Staging (Recommended)"],
    ["Yes", "Yes!"],
    ["Yes", "\"yes\""],
    ["Ship it", "ship   it."],
  ])("refuses %j and %j together, at the later one", (a, b) => {
    const issues = issuesOf(input({ questions: [question({ options: [option(a), option(b)] })] }));
    expect(issues.map((i) => i.path)).toEqual(["questions[0].options[1].label"]);
    expect(issues[0]!.message).toMatch(/cannot be typed apart/);
  });

  it("refuses a 65-character label and accepts 64", () => {
    expect(issuesOf(input({ questions: [question({ options: [option("x".repeat(65)), option("b")] })] }))).toEqual([
      { path: "questions[0].options[0].label", message: "must be at most 64 characters (got 65)" },
    ]);
    expect(valueOf(input({ questions: [question({ options: [option("x".repeat(64)), option("b")] })] })).questions[0]!.options[0]!.label).toHaveLength(64);
  });

  it("counts label length in grapheme clusters", () => {
    const label = "👨‍👩‍👧".repeat(64);
    expect(normalizeAskUserInput(input({ questions: [question({ options: [option(label), option("b")] })] })).ok).toBe(true);
  });

  it("refuses a blank label", () => {
    expect(issuesOf(input({ questions: [question({ options: [option("  "), option("b")] })] }))).toEqual([
      { path: "questions[0].options[0].label", message: "must not be empty" },
    ]);
  });

  it("trims labels and drops blank descriptions", () => {
    const value = valueOf(input({ questions: [question({ options: [option("  A ", "  "), option("B", " why ")] })] }));
    expect(value.questions[0]!.options).toEqual([{ label: "A" }, { label: "B", description: "why" }]);
  });
});

describe("ids, counts and unknown fields", () => {
  it("refuses duplicate ids at the later occurrence", () => {
    const issues = issuesOf(input({ questions: [question({ header: "A" }), question({ header: "B" })] }));
    expect(issues.map((i) => i.path)).toEqual(["questions[1].id"]);
  });

  it.each([["Deploy"], ["1st"], ["deploy-target"], [""], ["_x"]])("refuses id %j", (id) => {
    expect(issuesOf(input({ questions: [question({ id })] })).map((i) => i.path)).toEqual(["questions[0].id"]);
  });

  it("reports an unknown field at either level at its own path", () => {
    const issues = issuesOf({ foo: 1, questions: [question({ isSecret: true, options: [{ label: "a", extra: 1 }, { label: "b" }] })] });
    expect(issues.map((i) => i.path).sort()).toEqual(["foo", "questions[0].isSecret", "questions[0].options[0].extra"]);
    expect(issues.every((i) => i.message === "unknown field")).toBe(true);
  });

  it("reports a bad id in question 0 and a lone option in question 1, each with its path", () => {
    const issues = issuesOf(input({ questions: [question({ id: "Bad Id", header: "A" }), question({ id: "b", header: "B", options: [option("only")] })] }));
    expect(issues).toEqual([
      { path: "questions[0].id", message: expect.stringMatching(/snake_case/) },
      { path: "questions[1].options", message: "must have 2 to 4 options (got 1)" },
    ]);
  });

  it("reports the items' problems even when a count is out of range", () => {
    const five = ["a", "b", "c", "d", "e"].map((l) => option(l));
    const issues = issuesOf({
      questions: [
        question({ id: "Bad", header: "A" }),
        question({ id: "b", header: "B", options: [...five.slice(0, 4), { label: 7 }] }),
        question({ id: "c", header: "C" }),
        question({ id: "d", header: "D", extra: true }),
      ],
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "questions", message: "must have 1 to 3 questions (got 4)" },
        { path: "questions[0].id", message: expect.stringMatching(/snake_case/) },
        { path: "questions[1].options", message: "must have 2 to 4 options (got 5)" },
        { path: "questions[1].options[4].label", message: "must be a string (got number)" },
        { path: "questions[3].extra", message: "unknown field" },
      ]),
    );
  });

  it.each([
    [{ questions: [] }, [{ path: "questions", message: "must have 1 to 3 questions (got 0)" }]],
    [{}, [{ path: "questions", message: "is required" }]],
    [{ questions: "x" }, [{ path: "questions", message: "must be a array (got string)" }]],
  ])("reports %j", (given, expected) => {
    expect(issuesOf(given)).toEqual(expected);
  });

  it.each([[null], [undefined], ["text"], [42], [[]], [{ questions: [null, 1, "q"] }]])("never throws on %j", (given) => {
    const result = normalizeAskUserInput(given);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.length).toBeGreaterThan(0);
  });

  it("never throws on a hostile getter", () => {
    const hostile = { get questions() { throw new Error("boom"); } };
    expect(normalizeAskUserInput(hostile).ok).toBe(false);
  });

  it("lists missing required fields together", () => {
    const issues = issuesOf({ questions: [{ options: [option("a"), option("b")] }] });
    expect(issues.map((i) => i.path).sort()).toEqual(["questions[0].header", "questions[0].id", "questions[0].question"]);
  });
});

describe("text lengths (LIMITS)", () => {
  const withOption = (o: Record<string, unknown>) => question({ options: [o, option("b")] });
  it.each<[string, Record<string, unknown>, string]>([
    ["questions[0].question", question({ question: "q".repeat(1001) }), "must be at most 1000 characters (got 1001)"],
    ["questions[0].question", question({ question: "q".repeat(1_000_000) }), "must be at most 1000 characters (got 1000000)"],
    ["questions[0].options[0].description", withOption({ label: "a", description: "d".repeat(301) }), "must be at most 300 characters (got 301)"],
    ["questions[0].id", question({ id: "a".repeat(65) }), "must be at most 64 characters (got 65)"],
    ["questions[0].header", question({ header: "h".repeat(257) }), "must be at most 256 characters (got 257)"],
    ["questions[0].header", question({ header: "é".repeat(400_000) }), "must be at most 256 characters (got 400000)"],
    // Over 512 code units a label is refused before it is segmented into characters.
    ["questions[0].options[0].label", withOption({ label: "x".repeat(513) }), "must be at most 64 characters (got 513 UTF-16 code units)"],
    ["questions[0].options[0].label", withOption({ label: `a${"\u0301".repeat(900_000)}` }), "must be at most 64 characters (got 900001 UTF-16 code units)"],
  ])("refuses %s: %s", (path, q, message) => {
    expect(issuesOf(input({ questions: [q] }))).toEqual([{ path, message }]);
  });

  it.each<[string, Record<string, unknown>]>([
    ["a question of exactly 1000", question({ question: "q".repeat(1000) })],
    ["a description of exactly 300", withOption({ label: "a", description: "d".repeat(300) })],
    ["an id of exactly 64", question({ id: "a".repeat(64) })],
    ["a header of exactly 256 (cut to 12)", question({ header: "h".repeat(256) })],
    ["64 four-code-unit emoji in a label", withOption({ label: "🚀".repeat(64) })],
  ])("accepts %s", (_name, q) => {
    expect(normalizeAskUserInput(input({ questions: [q] })).ok).toBe(true);
  });

  it("reports every field over its cap at once, each at its path", () => {
    const big = { ...question({ id: "a".repeat(100), question: "q".repeat(2000) }), options: [option("a", "d".repeat(400)), option("b")] };
    expect(issuesOf(input({ questions: [big] })).map((i) => i.path)).toEqual(["questions[0].id", "questions[0].question", "questions[0].options[0].description"]);
  });

  it.each([
    ["a 1 MB question", question({ question: "q".repeat(1_000_000) })],
    ["a header of 500,000 non-ASCII characters", question({ header: "é".repeat(500_000) })],
    ["a label of 900,000 combining marks (one character)", withOption({ label: `a${"\u0301".repeat(900_000)}` })],
  ])("refuses %s without segmenting it (Intl.Segmenter takes minutes on long non-ASCII text)", (_name, q) => {
    const started = process.cpuUsage();
    expect(normalizeAskUserInput(input({ questions: [q] })).ok).toBe(false);
    expect(cpuMsSince(started)).toBeLessThan(200);
  });

  it("states the caps in the JSON Schema", () => {
    const q = (askUserInputJsonSchema as any).properties.questions.items;
    expect(q.properties.question.maxLength).toBe(LIMITS.questionMaxLength);
    expect(q.properties.id.maxLength).toBe(LIMITS.idMaxLength);
    expect(q.properties.header.maxLength).toBe(LIMITS.headerMaxLength);
    expect(q.properties.options.items.properties.description.maxLength).toBe(LIMITS.descriptionMaxLength);
    expect(q.properties.options.items.properties.label.maxLength).toBe(LIMITS.labelMaxLength);
  });

  describe("fit what the platforms show", () => {
    const longest = (described: boolean) =>
      valueOf({
        questions: [
          {
            id: "q",
            header: "H".repeat(LIMITS.headerMaxGraphemes),
            question: "q".repeat(LIMITS.questionMaxLength),
            options: ["a", "b", "c", "d"].map((l) => option(l.repeat(LIMITS.labelMaxGraphemes), described ? "d".repeat(LIMITS.descriptionMaxLength) : undefined)),
            multiSelect: true, // the longest guidance
          },
        ],
      }).questions;

    it("the longest question with four full labels fits a Discord message whole", () => {
      expect(renderPromptText(longest(false)).length).toBeLessThanOrEqual(DISCORD_CONTENT_MAX);
    });

    it("with four full descriptions too, it fits a Slack section and a Telegram message whole", () => {
      const text = renderPromptText(longest(true));
      expect(text.length).toBeLessThanOrEqual(SLACK_SECTION_TEXT_MAX);
      expect(text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
    });

    it("the question fits Slack's modal label; an answer fits Discord's text input, and a keyed Telegram reply", () => {
      expect(LIMITS.questionMaxLength).toBeLessThanOrEqual(SLACK_INPUT_LABEL_MAX);
      expect(LIMITS.answerMaxLength).toBeLessThanOrEqual(DISCORD_TEXT_INPUT_MAX);
      expect(`3: ${"x".repeat(LIMITS.answerMaxLength)}`.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
    });

    it("a typed reply holds an answer of the longest kind to every question, one line each keyed by id", () => {
      const line = `${"a".repeat(LIMITS.idMaxLength)}: ${"x".repeat(LIMITS.answerMaxLength)}`;
      expect(Array.from({ length: LIMITS.maxQuestions }, () => line).join("\n").length).toBeLessThanOrEqual(LIMITS.replyMaxLength);
    });
  });
});

describe("normalised value", () => {
  it("keeps the seed example and fills defaults", () => {
    expect(valueOf(input())).toEqual({
      questions: [
        {
          id: "deploy_target",
          header: "Target",
          question: "Where should this deploy?",
          options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
          multiSelect: false,
        },
      ],
      timeoutSeconds: 900,
    });
  });
});

describe("askUserInputJsonSchema", () => {
  const schema = askUserInputJsonSchema as any;
  it("states the counts, the id pattern and no extra fields", () => {
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["questions"]);
    expect(schema.properties.questions).toMatchObject({ minItems: 1, maxItems: 3 });
    const q = schema.properties.questions.items;
    expect(q.additionalProperties).toBe(false);
    expect(q.required).toEqual(["id", "header", "question", "options"]);
    expect(q.properties.id.pattern).toBe("^[a-z][a-z0-9_]*$");
    expect(q.properties.options).toMatchObject({ minItems: 2, maxItems: 4 });
    expect(q.properties.options.items.required).toEqual(["label"]);
    expect(schema.properties.timeoutSeconds.type).toBe("integer");
    expect(schema.properties.timeoutSeconds.description).toMatch(/30-3600/);
  });

  it("accepts the seed's example (checked by a tiny JSON Schema walker)", () => {
    const seed = {
      questions: [
        {
          id: "deploy_target",
          header: "Deploy target",
          question: "Where should I deploy this build?",
          options: [{ label: "Staging (Recommended)", description: "Safe to try" }, { label: "Production" }],
        },
      ],
      timeoutSeconds: 900,
    };
    expect(validate(schema, seed)).toEqual([]);
    expect(validate(schema, { ...seed, questions: [] })).not.toEqual([]);
    expect(validate(schema, { ...seed, extra: 1 })).not.toEqual([]);
    expect(validate(schema, { ...seed, questions: [{ ...seed.questions[0], question: "q".repeat(1001) }] })).toEqual(["$.questions[0].question: too long"]);
  });
});

/** A minimal JSON Schema validator for the keywords our schema uses. */
function validate(schema: any, value: unknown, path = "$"): string[] {
  const errors: string[] = [];
  if (schema.type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${path}: not an object`];
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in obj)) errors.push(`${path}.${key}: required`);
    for (const [key, v] of Object.entries(obj)) {
      const sub = schema.properties?.[key];
      if (!sub) {
        if (schema.additionalProperties === false) errors.push(`${path}.${key}: not allowed`);
      } else errors.push(...validate(sub, v, `${path}.${key}`));
    }
  } else if (schema.type === "array") {
    if (!Array.isArray(value)) return [`${path}: not an array`];
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${path}: too few`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${path}: too many`);
    value.forEach((v, i) => errors.push(...validate(schema.items, v, `${path}[${i}]`)));
  } else if (schema.type === "string") {
    if (typeof value !== "string") return [`${path}: not a string`];
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) errors.push(`${path}: pattern`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) errors.push(`${path}: too long`);
  } else if (schema.type === "integer") {
    if (!Number.isInteger(value)) errors.push(`${path}: not an integer`);
  } else if (schema.type === "boolean") {
    if (typeof value !== "boolean") errors.push(`${path}: not a boolean`);
  }
  return errors;
}
