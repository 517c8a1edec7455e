import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  checkCsrfToken,
  csrfToken,
  decodeLinkToken,
  encodeLinkToken,
  LINK_TOKEN_MAX_LENGTH,
  newCsrfNonce,
} from "../../../src/gateway/links/link-token.ts";
import { linkedTargetIndexes, optionLinkUrl } from "../../../src/record/answer-links.ts";

const key = randomBytes(32);
const otherKey = randomBytes(32);
const subject = { questionId: "q0123456789abcdef0123", targetIndex: 2 };
const token = encodeLinkToken(key, subject);

/** The token with byte `index` of its decoded form flipped, encoded again. */
function flipped(index: number): string {
  const bytes = Buffer.from(token, "base64url");
  bytes[index] = bytes[index]! ^ 0x01;
  return bytes.toString("base64url");
}

describe("answer link tokens", () => {
  it("sign and verify: compact base64url naming the question and the target", () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token.length).toBeLessThanOrEqual(52);
    expect(decodeLinkToken(key, token)).toEqual(subject);
  });

  it("is bound to its question and its target: another's token differs and names its own", () => {
    const other = encodeLinkToken(key, { ...subject, questionId: "q0123456789abcdef0124" });
    const otherTarget = encodeLinkToken(key, { ...subject, targetIndex: 3 });
    expect(new Set([token, other, otherTarget]).size).toBe(3);
    expect(decodeLinkToken(key, other)).toEqual({ ...subject, questionId: "q0123456789abcdef0124" });
    expect(decodeLinkToken(key, otherTarget)).toEqual({ ...subject, targetIndex: 3 });
  });

  it.each(Array.from({ length: Buffer.from(token, "base64url").length }, (_, i) => i))("refuses the token with byte %i tampered", (index) => {
    expect(decodeLinkToken(key, flipped(index))).toBeUndefined();
  });

  it("refuses a token another key signed (another deployment's link)", () => {
    expect(decodeLinkToken(otherKey, token)).toBeUndefined();
  });

  it.each([
    ["empty", ""],
    ["truncated", token.slice(0, -1)],
    ["cut to the MAC", token.slice(0, 20)],
    ["extended", `${token}A`],
    ["oversize", "A".repeat(LINK_TOKEN_MAX_LENGTH + 1)],
    ["huge", "A".repeat(1_000_000)],
    ["not base64url", `${token.slice(0, -2)}+/`],
    ["padded", `${token}==`],
    ["garbage", "not-a-token"],
    ["a path", "../../etc/passwd"],
    ["unicode", "ä".repeat(30)],
  ])("refuses %s input without throwing", (_name, input) => {
    expect(decodeLinkToken(key, input)).toBeUndefined();
  });

  it.each([null, undefined, 42, {}, ["x"]])("refuses a non-string (%s)", (input) => {
    expect(decodeLinkToken(key, input)).toBeUndefined();
  });

  it("refuses a token whose version byte is unknown, even when signed", () => {
    // Version 2 is not this build's: a well-signed token of it still opens nothing.
    const bytes = Buffer.from(token, "base64url");
    bytes[0] = 2;
    expect(decodeLinkToken(key, bytes.toString("base64url"))).toBeUndefined();
  });

  it("refuses to sign what a token cannot name", () => {
    expect(() => encodeLinkToken(key, { questionId: "", targetIndex: 0 })).toThrow();
    expect(() => encodeLinkToken(key, { questionId: "q 1", targetIndex: 0 })).toThrow();
    expect(() => encodeLinkToken(key, { questionId: "q1", targetIndex: 256 })).toThrow();
    expect(() => encodeLinkToken(key, { questionId: "q1", targetIndex: -1 })).toThrow();
  });
});

describe("the page's CSRF token", () => {
  const nonce = newCsrfNonce();
  const csrf = csrfToken(key, token, nonce);

  it("fits its link and its browser's nonce only", () => {
    expect(checkCsrfToken(key, token, nonce, csrf)).toBe(true);
    expect(checkCsrfToken(key, encodeLinkToken(key, { ...subject, targetIndex: 1 }), nonce, csrf)).toBe(false);
    expect(checkCsrfToken(key, token, newCsrfNonce(), csrf)).toBe(false);
    expect(checkCsrfToken(otherKey, token, nonce, csrf)).toBe(false);
  });

  it.each([
    ["no nonce", undefined, csrf],
    ["no token", nonce, undefined],
    ["an empty token", nonce, ""],
    ["a tampered token", nonce, `${csrf.slice(0, -1)}${csrf.endsWith("A") ? "B" : "A"}`],
    ["a malformed nonce", "short", csrf],
    ["a long token", nonce, `${csrf}x`],
  ])("refuses %s", (_name, givenNonce, presented) => {
    expect(checkCsrfToken(key, token, givenNonce, presented)).toBe(false);
  });
});

describe("the per-option link and which targets have links", () => {
  it("adds the question id and the option's index to the link", () => {
    expect(optionLinkUrl("https://ask.example.com/a/TOKEN", "deploy_target", 1)).toBe("https://ask.example.com/a/TOKEN?q=deploy_target&o=1");
    expect(optionLinkUrl("https://ask.example.com/a/TOKEN?x=1", "env", 0)).toBe("https://ask.example.com/a/TOKEN?x=1&q=env&o=0");
  });

  it("links every target when asked, else only the surfaces that always have links", () => {
    const targets = [{ surface: "telegram" as const, chat: "1" }, { surface: "web" as const }];
    expect(linkedTargetIndexes({ targets, linksRequested: true }, new Set())).toEqual([0, 1]);
    expect(linkedTargetIndexes({ targets }, new Set())).toEqual([]);
    expect(linkedTargetIndexes({ targets }, new Set(["telegram"]))).toEqual([0]);
  });
});
