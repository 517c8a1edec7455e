/** `ask`'s flags for when nobody answers (issue 20), table-driven: what each parses to, and what each refuses. */
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.ts";
import { parseEscalateFlags, parseLateAnswerSeconds, parseRemindFlags } from "../../src/cli/follow-up-flags.ts";

describe("--escalate", () => {
  it.each([
    [["600=slack:C0123ABCD"], [{ afterSeconds: 600, targets: [{ surface: "slack", chat: "C0123ABCD" }] }]],
    [
      ["600=slack:C0123ABCD,telegram:-1001234567890:42+77", "1200=web"],
      [
        { afterSeconds: 600, targets: [{ surface: "slack", chat: "C0123ABCD" }, { surface: "telegram", chat: "-1001234567890", users: ["42", "77"] }] },
        { afterSeconds: 1200, targets: [{ surface: "web" }] },
      ],
    ],
    [[" 60 = discord:987654321098765432 , "], [{ afterSeconds: 60, targets: [{ surface: "discord", chat: "987654321098765432" }] }]],
  ])("%j parses", (flags, steps) => {
    expect(parseEscalateFlags(flags)).toEqual(steps);
  });

  it.each([
    ["slack:C0123ABCD", /SECONDS=TARGET/],
    ["600=", /names no target/],
    ["ten=slack:C1", /"ten" is not a whole number of seconds/],
    ["0=slack:C1", /at least 1/],
    ["1.5=slack:C1", /not a whole number/],
    ["600=pigeon:1", /--escalate "pigeon:1": unknown surface/],
  ])("%j is a usage error", (flag, message) => {
    expect(() => parseEscalateFlags([flag])).toThrow(UsageError);
    expect(() => parseEscalateFlags([flag])).toThrow(message);
  });

  it("is undefined when not given", () => {
    expect(parseEscalateFlags(undefined)).toBeUndefined();
  });
});

describe("--remind and --late-answer-seconds", () => {
  it.each([
    [undefined, undefined],
    [["300"], [300]],
    [["600", "120"], [600, 120]],
    [["none"], []],
    [["NONE"], []],
  ])("--remind %j → %j", (flags, offsets) => {
    expect(parseRemindFlags(flags)).toEqual(offsets);
  });

  it.each([[["0"]], [["-5"]], [["5m"]], [["none", "300"]]])("--remind %j is a usage error", (flags) => {
    expect(() => parseRemindFlags(flags)).toThrow(UsageError);
  });

  it.each([
    [undefined, undefined],
    ["0", 0],
    ["3600", 3600],
  ])("--late-answer-seconds %j → %j", (flag, value) => {
    expect(parseLateAnswerSeconds(flag)).toBe(value);
  });

  it.each(["-1", "1h", ""])("--late-answer-seconds %j is a usage error", (flag) => {
    expect(() => parseLateAnswerSeconds(flag)).toThrow(UsageError);
  });
});
