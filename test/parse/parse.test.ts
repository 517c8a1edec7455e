import { cpuMsSince } from "../helpers/cpu-time.ts";
import { describe, expect, it } from "vitest";
import type { AskUserQuestion } from "../../src/contract/schema.ts";
import {
  createKeyedLineReader,
  INVALID_MESSAGES,
  isBlankText,
  looksLikeCredential,
  parseNumberForm,
  parseReply,
  readValue,
  shannonEntropy,
  type ReadAs,
} from "../../src/parse/index.ts";

function question(id: string, labels: string[], extra: Partial<AskUserQuestion> = {}): AskUserQuestion {
  return { id, header: id[0]?.toUpperCase() + id.slice(1), question: `Which ${id}?`, options: labels.map((label) => ({ label })), multiSelect: false, ...extra };
}

const env = question("env", ["Staging (Recommended)", "Production"]);
const features = question("features", ["Logs", "Metrics", "Traces"], { multiSelect: true });
const windowQ = question("window", ["Now", "Tonight"]);
const replicas = question("replicas", ["2", "1", "3"]);

describe("parseReply readAs", () => {
  it.each<[string, AskUserQuestion[], string, ReadAs]>([
    ["label", [env], "production", { env: [{ value: "Production", via: "label" }] }],
    ["label without (Recommended)", [env], "staging", { env: [{ value: "Staging (Recommended)", via: "label" }] }],
    ["number", [env], "2", { env: [{ value: "Production", via: "number" }] }],
    ["option N", [env], "option 1", { env: [{ value: "Staging (Recommended)", via: "number" }] }],
    ["own words", [env], "  both, please ", { env: [{ value: "both, please", via: "text" }] }],
    ["out-of-range number", [env], "7", { env: [{ value: "7", via: "text" }] }],
    ["numeric label beats position", [replicas], "1", { replicas: [{ value: "1", via: "label" }] }],
    ["#N is a position", [replicas], "#1", { replicas: [{ value: "2", via: "number" }] }],
    [
      "multi-select mix",
      [features],
      "3, logs, audit",
      { features: [{ value: "Traces", via: "number" }, { value: "Logs", via: "label" }, { value: "audit", via: "text" }] },
    ],
    [
      "several questions",
      [env, windowQ],
      "2: tonight\n1: 2",
      { env: [{ value: "Production", via: "number" }], window: [{ value: "Tonight", via: "label" }] },
    ],
  ])("%s", (_name, questions, reply, readAs) => {
    const outcome = parseReply(questions, reply);
    expect(outcome.kind).toBe("answered");
    expect(outcome).toMatchObject({ readAs });
  });

  it("is present on partial outcomes, for the answered questions only", () => {
    expect(parseReply([env, windowQ], "2: now")).toEqual({
      kind: "partial",
      answers: { window: ["Now"] },
      missing: ["env"],
      readAs: { window: [{ value: "Now", via: "label" }] },
    });
  });
});

describe("parseReply invalid outcomes", () => {
  it.each<[string, AskUserQuestion[], string, keyof typeof INVALID_MESSAGES]>([
    ["empty", [env], "", "empty"],
    ["credential", [env], "sk-abcdefghijklmnopqrstuvwxyz012345", "credential"],
    ["too many lines", [env, windowQ], "a\nb\nc", "too_many_lines"],
  ])("%s carries a message that does not quote the reply", (_name, questions, reply, reason) => {
    const outcome = parseReply(questions, reply);
    expect(outcome).toMatchObject({ kind: "invalid", reason });
    if (outcome.kind !== "invalid") return;
    expect(outcome.message.length).toBeGreaterThan(0);
    if (reply) expect(outcome.message).not.toContain(reply);
  });

  it.each<[string, unknown]>([
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["an object", { text: "production" }],
    ["an array", ["production"]],
  ])("treats %s as an empty reply", (_name, reply) => {
    expect(parseReply([env], reply as string)).toMatchObject({ kind: "invalid", reason: "empty" });
  });

  it("never throws on malformed questions", () => {
    expect(() => parseReply(null as unknown as AskUserQuestion[], "1")).not.toThrow();
    expect(() => parseReply([{ id: "x" } as AskUserQuestion], "1")).not.toThrow();
    expect(() => parseReply([], "production")).not.toThrow();
  });
});

describe("parseReply speed on hostile 10k-character replies", () => {
  const longLabel = question("palette", ["Red, green and blue", "Black; white", "A b c d e f g h i j k l m n o p"], { multiSelect: true });
  const hostile: Array<[string, string]> = [
    ["exclamation marks", "!".repeat(10_000) + "x"],
    ["full stops", ".".repeat(10_000) + "x"],
    ["colons", ":".repeat(10_000)],
    ["commas", ",".repeat(9_999) + "a"],
    ["number list", "1 ".repeat(5_000)],
    ["sk- prefixes", "sk-".repeat(3_333)],
    ["eyJ runs", "eyJ".repeat(3_333) + ".eyJ"],
    ["digits then colon", "1".repeat(9_999) + ":"],
    ["PEM header start", "-----BEGIN " + "A ".repeat(4_990)],
    ["dashes with spaces", " - ".repeat(3_333)],
    ["lone surrogates", "\ud800".repeat(10_000)],
    ["whitespace", " \t".repeat(5_000) + "x"],
    ["many lines", "1: a\n".repeat(2_000)],
    ["words and separators", "a, b c; ".repeat(1_250)],
  ];
  it.each(hostile)("%s", (_name, reply) => {
    for (const questions of [[env], [features], [longLabel], [env, windowQ, features]]) {
      const started = process.cpuUsage();
      parseReply(questions, reply);
      expect(cpuMsSince(started)).toBeLessThan(250);
    }
  });
});

describe("looksLikeCredential", () => {
  it.each<[string, boolean]>([
    ["sk-abcdefghij0123456789", true],
    ["sk-abcdefghij012345678", false],
    ["sk-learn", false],
    ["task-abcdefghijklmnopqrstuvwxyz", false],
    ["xoxb-1234567890-abcdefghij", true],
    ["xoxb-", false],
    ["ghp_ocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnFRIBXu", true],
    ["github_pat_11ABCDEFG0123456789_abcdef", true],
    ["AKIAIOSFODNN7EXAMPLE", true],
    ["AKIA1234", false],
    ["123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", true],
    ["12:30", false],
    ["-----BEGIN EC PRIVATE KEY-----", true],
    ["-----BEGIN CERTIFICATE-----", false],
    ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", true],
    ["eyJhbGciOiJIUzI1NiJ9", false],
    ["u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dKLzd", true],
    ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaA1", false],
    ["550e8400-e29b-41d4-a716-446655440000", false],
    ["DeadBeefDeadBeefDeadBeefDeadBeef01234567", false],
    ["da39a3ee5e6b4b0d3255bfef95601890afd80709", false],
    ["https://github.com/OpenClaw/AskUserBridge/pull/1234", false],
    ["node.js 20", false],
    ["", false],
  ])("%s → %s", (text, expected) => {
    expect(looksLikeCredential(text)).toBe(expected);
  });

  it("is false for non-strings", () => {
    expect(looksLikeCredential(undefined as unknown as string)).toBe(false);
  });

  it("measures entropy in bits per character", () => {
    expect(shannonEntropy("")).toBe(0);
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("abcd")).toBe(2);
  });
});

describe("parseNumberForm", () => {
  it.each<[string, number | null]>([
    ["2", 2],
    ["#2", 2],
    ["2.", 2],
    ["2)", 2],
    ["option 2", 2],
    ["Option 2!", 2],
    [" \uff12 ", 2],
    ["12", 12],
    ["2 3", null],
    ["two", null],
    ["-1", null],
    ["1.5", null],
    ["(2)", null],
  ])("%s → %s", (text, expected) => {
    expect(parseNumberForm(text)).toBe(expected);
  });
});

describe("readValue", () => {
  it.each<[string, AskUserQuestion, string, string[]]>([
    ["single-select keeps the whole text", env, "1, 2", ["1, 2"]],
    ["multi-select splits", features, "1, 2", ["Logs", "Metrics"]],
    ["skip is own words without a Skip option", env, "skip", ["skip"]],
    ["skip picks a Skip option", question("step", ["Retry", "Skip"]), "/skip", ["Skip"]],
    ["blank reads as nothing", features, " ,, ", []],
  ])("%s", (_name, q, text, values) => {
    expect(readValue(q, text).map((v) => v.value)).toEqual(values);
  });
});

describe("createKeyedLineReader", () => {
  const read = createKeyedLineReader([env, windowQ]);
  it.each<[string, { questionIndex: number; value: string } | null]>([
    ["1: staging", { questionIndex: 0, value: "staging" }],
    ["2. now", { questionIndex: 1, value: "now" }],
    ["2) now", { questionIndex: 1, value: "now" }],
    ["1 - staging", { questionIndex: 0, value: "staging" }],
    ["window=now", { questionIndex: 1, value: "now" }],
    ["Env : 1:30", { questionIndex: 0, value: "1:30" }],
    ["Which window?: now", { questionIndex: 1, value: "now" }],
    ["1:", { questionIndex: 0, value: "" }],
    ["1:30", null],
    ["14:30", null],
    ["2026-07-08", null],
    ["1.", null],
    // A number past the last question still names a position: the parser refuses the line (it is not text).
    ["3: now", { questionIndex: 2, value: "now" }],
    ["10: now", null],
    ["env. staging", null],
    ["https://example.com", null],
    ["C:\\temp", null],
  ])("%s", (line, expected) => {
    expect(read(line)).toEqual(expected);
  });
});

describe("isBlankText", () => {
  it.each<[string, boolean]>([
    ["", true],
    [" \n\t", true],
    [",,", true],
    [" ; , ", true],
    ["...", true],
    ["?", false],
    ["a", false],
    ["1:", false],
  ])("%j → %s", (text, expected) => {
    expect(isBlankText(text)).toBe(expected);
  });
});
