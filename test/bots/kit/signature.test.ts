/** The bots' signature check (bots/kit/signature.ts): an HMAC, compared in constant time and safe for any length. */
import { describe, expect, it } from "vitest";
import { hmacMatches, hmacOf, sameSecret } from "../../../bots/kit/signature.ts";

describe("the bots' signature check", () => {
  // RFC 4231 test case 2 ("Jefe" / "what do ya want for nothing?").
  const JEFE = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

  it("an HMAC-SHA256, in hex by default", () => {
    expect(hmacOf("Jefe", "what do ya want for nothing?")).toBe(JEFE);
    expect(hmacOf("Jefe", "what do ya want for nothing?", "base64url")).toBe(Buffer.from(JEFE, "hex").toString("base64url"));
  });

  it.each([
    [`sha256=${JEFE}`, true],
    [`sha256=${JEFE.replace(/^5/, "6")}`, false],
    [`sha256=${JEFE.slice(1)}`, false],
    [`${JEFE}`, false],
    ["", false],
    [undefined, false],
    [42, false],
  ])("%j matches: %s", (given, matches) => {
    expect(hmacMatches(given, "Jefe", "what do ya want for nothing?", { prefix: "sha256=" })).toBe(matches);
  });

  it("equal secrets only, whatever the lengths", () => {
    expect(sameSecret("token", "token")).toBe(true);
    expect(sameSecret("token", "tokens")).toBe(false);
    expect(sameSecret("é", "e")).toBe(false);
    expect(sameSecret(null, "")).toBe(false);
  });
});
