import { describe, it, expect } from "vitest";
import type { PromptAction, PromptCallback } from "../../src/render/index.ts";
import { decodeDiscordCustomId, encodeDiscordCustomId } from "../../src/platforms/discord/callback-data.ts";
import { decodeSlackActionId, encodeSlackActionId } from "../../src/platforms/slack/callback-data.ts";
import { decodeTelegramCallbackData, encodeTelegramCallbackData } from "../../src/platforms/telegram/callback-data.ts";
import { DISCORD_CUSTOM_ID_MAX } from "../../src/platforms/discord/platform.ts";
import { SLACK_ACTION_ID_MAX } from "../../src/platforms/slack/platform.ts";
import { TELEGRAM_CALLBACK_DATA_MAX_BYTES } from "../../src/platforms/telegram/platform.ts";

type Encode = (callback: PromptCallback) => string;
type Decode = (input: unknown, opts?: { optionCount?: number }) => PromptCallback | null;

const platforms: Array<[string, Encode, Decode, number]> = [
  ["telegram", encodeTelegramCallbackData, decodeTelegramCallbackData, TELEGRAM_CALLBACK_DATA_MAX_BYTES],
  ["discord", encodeDiscordCustomId, decodeDiscordCustomId, DISCORD_CUSTOM_ID_MAX],
  ["slack", encodeSlackActionId, decodeSlackActionId, SLACK_ACTION_ID_MAX],
];

const uuid = "3f2b8c1e-9d4a-4b7e-8f60-1a2b3c4d5e6f";
const nanoid = "V1StGXR8_Z5jdHi6B-myT";
const id40 = "a".repeat(40);

const actions: Array<[string, PromptAction, string]> = [
  ["choice 0", { kind: "choice", optionIndex: 0 }, "c|0"],
  ["choice 1", { kind: "choice", optionIndex: 1 }, "c|1"],
  ["choice 2", { kind: "choice", optionIndex: 2 }, "c|2"],
  ["choice 3", { kind: "choice", optionIndex: 3 }, "c|3"],
  ["other", { kind: "other" }, "o"],
  ["skip", { kind: "skip" }, "s"],
];

const roundTrips = platforms.flatMap(([platform, encode, decode]) =>
  [uuid, nanoid, id40].flatMap((questionId) =>
    actions.map(([name, action, tail]) => ({ platform, name, questionId, action, tail, encode, decode })),
  ),
);

describe("callback data round trip", () => {
  it.each(roundTrips)("$platform $name ($questionId)", ({ questionId, action, tail, encode, decode }) => {
    const encoded = encode({ questionId, action });
    expect(encoded).toBe(`a1|${questionId}|${tail}`);
    expect(decode(encoded)).toEqual({ questionId, action });
    expect(decode(encoded, { optionCount: 4 })).toEqual({ questionId, action });
  });

  it.each(platforms)("%s fits a 40-character id under its limit", (_platform, encode, _decode, max) => {
    expect(new TextEncoder().encode(encode({ questionId: id40, action: { kind: "choice", optionIndex: 3 } })).length).toBeLessThanOrEqual(max);
  });
});

describe("encoding refuses programmer errors", () => {
  const longest = (max: number) => "x".repeat(max - "a1||c|0".length);

  it.each(platforms)("%s: the longest id that fits, and one more", (_platform, encode, decode, max) => {
    const fits = { questionId: longest(max), action: { kind: "choice", optionIndex: 0 } } as const;
    expect(encode(fits).length).toBe(max);
    expect(decode(encode(fits))).toEqual(fits);
    expect(() => encode({ ...fits, questionId: `${fits.questionId}x` })).toThrow(/over the limit of/u);
  });

  it.each(
    platforms.flatMap(([platform, encode]) =>
      (
        [
          ["empty id", { questionId: "", action: { kind: "skip" } }, /record id/u],
          ["id with a separator", { questionId: "a|b", action: { kind: "skip" } }, /record id/u],
          ["id with non-ASCII", { questionId: "é", action: { kind: "other" } }, /record id/u],
          ["index 4", { questionId: "q", action: { kind: "choice", optionIndex: 4 } }, /optionIndex/u],
          ["index -1", { questionId: "q", action: { kind: "choice", optionIndex: -1 } }, /optionIndex/u],
          ["index 1.5", { questionId: "q", action: { kind: "choice", optionIndex: 1.5 } }, /optionIndex/u],
          ["unknown kind", { questionId: "q", action: { kind: "text" } as unknown as PromptAction }, /unknown action kind/u],
        ] as Array<[string, PromptCallback, RegExp]>
      ).map(([name, callback, error]) => ({ platform, name, callback, error, encode })),
    ),
  )("$platform: $name", ({ callback, error, encode }) => {
    expect(() => encode(callback)).toThrow(error);
  });
});

describe("decoding never throws and returns null for anything off", () => {
  const malformed: Array<[string, unknown]> = [
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["an object", { questionId: "q", action: { kind: "skip" } }],
    ["an array", ["a1", "q", "s"]],
    ["empty string", ""],
    ["just the version", "a1"],
    ["no action", "a1|q"],
    ["empty action", "a1|q|"],
    ["wrong version", "a2|q|s"],
    ["upper-case version", "A1|q|s"],
    ["no version", "|q|s"],
    ["empty id", "a1||s"],
    ["id with a space", "a1|q 1|s"],
    ["id with non-ASCII", "a1|é|s"],
    ["unknown action", "a1|q|x"],
    ["label text as action", "a1|q|Production"],
    ["choice without index", "a1|q|c"],
    ["choice with empty index", "a1|q|c|"],
    ["index 4", "a1|q|c|4"],
    ["index 9", "a1|q|c|9"],
    ["index 10", "a1|q|c|10"],
    ["negative index", "a1|q|c|-1"],
    ["leading zero", "a1|q|c|01"],
    ["plus sign", "a1|q|c|+1"],
    ["exponent", "a1|q|c|1e0"],
    ["decimal", "a1|q|c|1.0"],
    ["hex", "a1|q|c|0x1"],
    ["space-padded index", "a1|q|c| 1"],
    ["full-width digit", "a1|q|c|１"],
    ["extra segment on choice", "a1|q|c|1|x"],
    ["extra segment on other", "a1|q|o|x"],
    ["extra segment on skip", "a1|q|s|"],
    ["trailing newline", "a1|q|s\n"],
    ["over every limit", `a1|${"x".repeat(300)}|s`],
  ];

  const table = platforms.flatMap(([platform, , decode]) => malformed.map(([name, input]) => ({ platform, name, input, decode })));

  it.each(table)("$platform: $name", ({ input, decode }) => {
    expect(decode(input)).toBeNull();
  });

  it.each(platforms)("%s: an index at or above the option count", (_platform, _encode, decode) => {
    expect(decode("a1|q|c|1", { optionCount: 2 })).toEqual({ questionId: "q", action: { kind: "choice", optionIndex: 1 } });
    expect(decode("a1|q|c|2", { optionCount: 2 })).toBeNull();
    expect(decode("a1|q|c|3", { optionCount: 3 })).toBeNull();
    expect(decode("a1|q|c|0", { optionCount: 0 })).toBeNull();
    expect(decode("a1|q|c|3", { optionCount: 99 })).not.toBeNull();
    expect(decode("a1|q|c|0", { optionCount: Number.NaN })).not.toBeNull();
  });
});
