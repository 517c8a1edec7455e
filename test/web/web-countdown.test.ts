/** The Control UI's expiry clock text (src/web/static/countdown.js): a pure function, so checked here without a browser. */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a browser module in JavaScript (typed by JSDoc, checked with `tsc -p src/web/static`)
import { timeLeft } from "../../src/web/static/countdown.js";

describe("the Control UI's time left", () => {
  it.each([
    [3_600_000, "1 h"],
    [3_599_000, "60 min"],
    [900_000, "15 min"],
    [899_001, "15 min"],
    [150_000, "3 min"],
    [120_000, "2 min"],
    [119_999, "2 min"],
    [119_000, "1:59"],
    [61_000, "1:01"],
    [59_500, "1:00"],
    [9_000, "0:09"],
    [1, "0:01"],
    [0, "0:00"],
    [-5_000, "0:00"],
  ])("%i ms left reads %s", (ms, text) => {
    expect(timeLeft(ms)).toBe(text);
  });
});
