/**
 * Issue 24, the contract's part (src/contract/normalize.ts), which the SDK's local check and the gateway share:
 *
 * - item 11: authored text (header, question, label, description) must not hold characters that change how it reads
 *   without being seen: bidi controls and marks, and zero-width characters. "Yes" and "Yes\u200B" were two options;
 *   "\u202EoN\u202C" showed as "No". A ZWJ inside an emoji sequence ("👩‍💻 Dev") is fine.
 * - item 6: however many problems an input has, at most MAX_ISSUES are listed, then "and N more", and finding them
 *   stays cheap (80,000 unknown fields, 300,000 questions).
 */
import { describe, expect, it } from "vitest";
import { capIssues, createIssueList, MAX_ISSUES, moreIssues } from "../../src/kernel/issues.ts";
import { createAskUserTool, formatIssues, type ContractIssue } from "../../src/index.ts";

import { input, issuesOf, option, question, valueOf } from "../helpers/contract-inputs.ts";

/** Every character refused, by the code point the message names. */
const HIDDEN: Array<[string, string]> = [
  ["U+202A", "\u202A"],
  ["U+202B", "\u202B"],
  ["U+202C", "\u202C"],
  ["U+202D", "\u202D"],
  ["U+202E", "\u202E"],
  ["U+2066", "\u2066"],
  ["U+2067", "\u2067"],
  ["U+2068", "\u2068"],
  ["U+2069", "\u2069"],
  ["U+200E", "\u200E"], // LRM
  ["U+200F", "\u200F"], // RLM
  ["U+061C", "\u061C"], // ALM
  ["U+200B", "\u200B"],
  ["U+200C", "\u200C"],
  ["U+200D", "\u200D"], // a ZWJ that joins no emoji
  ["U+2060", "\u2060"],
  ["U+FEFF", "\uFEFF"],
];

/** Each authored field, with `text` put into it, and the path its issue must have. */
const FIELDS: Array<[string, (text: string) => unknown]> = [
  ["questions[0].header", (text) => input({ questions: [question({ header: `Tar${text}get` })] })],
  ["questions[0].question", (text) => input({ questions: [question({ question: `Where should${text} this deploy?` })] })],
  ["questions[0].options[1].label", (text) => input({ questions: [question({ options: [option("Yes"), option(`No${text}pe`)] })] })],
  ["questions[0].options[0].description", (text) => input({ questions: [question({ options: [option("Yes", `Safe${text} to try`), option("No")] })] })],
];

const CASES = FIELDS.flatMap(([path, build]) => HIDDEN.map(([name, char]) => [path, name, build(char)] as const));

describe("hidden characters in authored text (issue 24 item 11)", () => {
  it.each(CASES)("%s with %s is refused, naming the field and the character", (path, name, given) => {
    expect(issuesOf(given)).toEqual([{ path, message: `must not contain invisible or bidi control characters (${name})` }]);
  });

  it('"Yes" and "Yes\\u200B" are not two options', () => {
    const issues = issuesOf(input({ questions: [question({ options: [option("Yes"), option("Yes\u200B")] })] }));
    expect(formatIssues(issues)).toBe("questions[0].options[1].label: must not contain invisible or bidi control characters (U+200B)");
  });

  it('"\\u202EoN\\u202C" (shown as "No") is refused, with both characters named', () => {
    expect(issuesOf(input({ questions: [question({ options: [option("Yes"), option("\u202EoN\u202C")] })] }))).toEqual([
      { path: "questions[0].options[1].label", message: "must not contain invisible or bidi control characters (U+202E, U+202C)" },
    ]);
  });

  it.each([["👩‍💻 Dev"], ["🧑🏽‍💻 Ops"], ["🏳️‍🌈 Pride"], ["❤️‍🔥 Hot"], ["👨‍👩‍👧‍👦 Family"], ["🏴‍☠️"]])("a ZWJ inside an emoji sequence is fine: %s", (label) => {
    const value = valueOf(input({ questions: [question({ header: label, question: `${label}?`, options: [option(label, label), option("No")] })] }));
    expect(value.questions[0]!.options[0]).toEqual({ label, description: label });
    expect(value.questions[0]!.question).toBe(`${label}?`);
  });

  it.each([["Yes\u200D"], ["\u200DYes"], ["a\u200Db"], ["👩\u200D Dev"], ["Dev \u200D💻"]])("a ZWJ that joins no two emoji is refused: %j", (label) => {
    expect(issuesOf(input({ questions: [question({ options: [option("No"), option(label)] })] }))).toEqual([
      { path: "questions[0].options[1].label", message: "must not contain invisible or bidi control characters (U+200D)" },
    ]);
  });

  it("every problem is still reported, each at its path", () => {
    const issues = issuesOf({
      questions: [
        question({ id: "Bad", header: "\u2066H\u2069", options: [option("Other"), option("B\u200E", "d\uFEFF")] }),
        question({ id: "b", header: "B", question: "\u200F?" }),
      ],
      extra: 1,
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "extra", message: "unknown field" },
        { path: "questions[0].id", message: expect.stringMatching(/snake_case/) },
        { path: "questions[0].header", message: "must not contain invisible or bidi control characters (U+2066, U+2069)" },
        { path: "questions[0].options[0].label", message: expect.stringMatching(/authored Other option/) },
        { path: "questions[0].options[1].label", message: "must not contain invisible or bidi control characters (U+200E)" },
        { path: "questions[0].options[1].description", message: "must not contain invisible or bidi control characters (U+FEFF)" },
        { path: "questions[1].question", message: "must not contain invisible or bidi control characters (U+200F)" },
      ]),
    );
    expect(issues).toHaveLength(7);
  });

  it("the SDK's tool refuses them before asking anyone", async () => {
    let asked = 0;
    const tool = createAskUserTool({ session: { kind: "main", key: "s" }, ask: async () => (asked++, { status: "no_answer", reason: "expired" }) })!;
    const result = await tool.execute(input({ questions: [question({ options: [option("Yes"), option("Yes\u200B")] })] }));
    expect(result).toMatchObject({ status: "invalid_input", issues: [{ path: "questions[0].options[1].label", message: expect.stringContaining("U+200B") }] });
    expect(asked).toBe(0);
  });
});

describe("a bounded list of problems (issue 24 item 6)", () => {
  const keys = (count: number, prefix = "k") => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, 1]));
  const timed = <T>(work: () => T): [T, number] => {
    const started = performance.now();
    const result = work();
    return [result, performance.now() - started];
  };

  it.each<[string, unknown, string, number]>([
    ["80,000 unknown fields in the input", { ...input(), ...keys(80_000) }, "k", 80_000],
    ["80,000 unknown fields in a question", input({ questions: [{ ...question(), ...keys(80_000) }] }), "questions[0].k", 80_000],
    ["80,000 unknown fields in an option", input({ questions: [question({ options: [{ label: "a", ...keys(80_000) }, option("b")] })] }), "questions[0].options[0].k", 80_000],
  ])("%s: the first 20 are listed, then “and N more”, quickly", (_name, given, prefix, count) => {
    const [issues, ms] = timed(() => issuesOf(given));
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues.slice(0, MAX_ISSUES)).toEqual(Array.from({ length: MAX_ISSUES }, (_, i) => ({ path: `${prefix}${i}`, message: "unknown field" })));
    expect(issues[MAX_ISSUES]).toEqual({ path: "", message: `and ${count - MAX_ISSUES} more` });
    expect(formatIssues(issues).split("\n").at(-1)).toBe(`and ${count - MAX_ISSUES} more`);
    expect(ms).toBeLessThan(300);
  });

  it("problems at every level are counted together, none twice", () => {
    const issues = issuesOf({ ...keys(10, "top"), questions: [{ ...question(), ...keys(10, "q") }, { ...question({ id: "b", header: "B" }), ...keys(10, "r") }] });
    expect(issues.slice(0, MAX_ISSUES).map((i) => i.path)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `top${i}`),
      ...Array.from({ length: 10 }, (_, i) => `questions[0].q${i}`),
    ]);
    expect(issues[MAX_ISSUES]).toEqual({ path: "", message: "and 10 more" });
  });

  it("exactly 20 problems are all listed, with no count", () => {
    const issues = issuesOf({ ...input(), ...keys(20) });
    expect(issues).toHaveLength(20);
    expect(issues.every((i) => i.message === "unknown field")).toBe(true);
  });

  it.each<[string, unknown, ContractIssue]>([
    ["300,000 questions", { questions: Array.from({ length: 300_000 }, () => ({})) }, { path: "questions", message: "must have 1 to 3 questions (got 300000)" }],
    ["300,000 options", input({ questions: [question({ options: Array.from({ length: 300_000 }, () => ({})) })] }), { path: "questions[0].options", message: "must have 2 to 4 options (got 300000)" }],
  ])("%s: the count is reported, the first items' problems listed, and only a few items read", (_name, given, countIssue) => {
    const [issues, ms] = timed(() => issuesOf(given));
    expect(issues[0]).toEqual(countIssue);
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues[MAX_ISSUES]!.message).toMatch(/^and [0-9]+ more$/);
    expect(ms).toBeLessThan(300);
  });

  it("capIssues is the same rule and keeps a cut list as it is", () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ path: `p${i}`, message: "m" }));
    const cut = capIssues(many);
    expect(cut).toEqual([...many.slice(0, 20), moreIssues(30)]);
    expect(capIssues(cut)).toEqual(cut);
    expect(capIssues([...many, moreIssues(100)])).toEqual([...many.slice(0, 20), moreIssues(130)]);
    expect(capIssues(many.slice(0, 3))).toEqual(many.slice(0, 3));
  });

  it("createIssueList builds only what it lists", () => {
    const list = createIssueList();
    let built = 0;
    list.addEach(1_000_000, (i) => (built++, { path: `k${i}`, message: "unknown field" }));
    list.add({ path: "x", message: "y" });
    list.add(moreIssues(5));
    expect(built).toBe(MAX_ISSUES);
    expect(list.size).toBe(1_000_006);
    expect(list.list().at(-1)).toEqual(moreIssues(1_000_006 - MAX_ISSUES));
  });
});
