import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createSessionSigner, isSameOrigin, readCookie, sessionCookieHeader } from "../src/web/session.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";
const NOW = 1_800_000_000_000;

describe("Control UI session cookie", () => {
  const signer = createSessionSigner(TOKEN, 60);

  it("verifies what it issued until it expires, and never contains the token", () => {
    const value = signer.issue(NOW);
    expect(value).toMatch(/^v1\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(value).not.toContain(TOKEN);
    expect(signer.verify(value, NOW)).toBe(true);
    expect(signer.verify(value, NOW + 59_000)).toBe(true);
    expect(signer.verify(value, NOW + 60_000)).toBe(false);
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["the raw token", TOKEN],
    ["a later expiry with the old signature", (v: string) => v.replace(/^v1\.(\d+)/, (_m, e: string) => `v1.${Number(e) + 1000}`)],
    ["a flipped signature character", (v: string) => v.slice(0, -1) + (v.endsWith("A") ? "B" : "A")],
    ["another token's cookie", () => createSessionSigner("f".repeat(32), 60).issue(NOW)],
  ] as const)("refuses %s", (_name, make) => {
    const value = typeof make === "function" ? make(signer.issue(NOW)) : make;
    expect(signer.verify(value, NOW)).toBe(false);
  });

  it("reads one cookie out of a Cookie header", () => {
    expect(readCookie("a=1; aub_session=v1.2.x; b=3", "aub_session")).toBe("v1.2.x");
    expect(readCookie("xaub_session=1", "aub_session")).toBeUndefined();
    expect(readCookie(undefined, "aub_session")).toBeUndefined();
  });

  it("sets an HttpOnly, SameSite=Strict cookie on /, Secure behind HTTPS", () => {
    expect(sessionCookieHeader("v", 60, false)).toBe("aub_session=v; Path=/; Max-Age=60; HttpOnly; SameSite=Strict");
    expect(sessionCookieHeader("v", 60, true)).toMatch(/; Secure$/);
  });

  const req = (headers: Record<string, string>) => ({ headers: { host: "127.0.0.1:8787", ...headers } }) as unknown as IncomingMessage;
  it.each([
    [{}, true],
    [{ origin: "http://127.0.0.1:8787" }, true],
    [{ origin: "http://evil.example" }, false],
    [{ origin: "null" }, false],
    [{ "sec-fetch-site": "same-origin", origin: "null" }, true],
    [{ "sec-fetch-site": "cross-site", origin: "http://127.0.0.1:8787" }, false],
    [{ "sec-fetch-site": "same-site" }, false],
  ])("same-origin check for %j is %s", (headers, expected) => {
    expect(isSameOrigin(req(headers))).toBe(expected);
  });
});
