import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHostCheck, hostRefusal } from "../src/web/host-check.ts";
import { clearedCookieHeader, isSameOrigin, readCookie, sessionCookieHeader, sessionCookieName } from "../src/web/session.ts";
import { createSessionSockets } from "../src/web/session-sockets.ts";
import { createMemorySessionStore, SESSION_ABSOLUTE_MS, SESSION_ID_PATTERN, SESSION_IDLE_MS } from "../src/web/session-store.ts";

const NOW = 1_800_000_000_000;
const HOUR = 60 * 60 * 1000;

describe("Control UI sessions (server-side, in memory)", () => {
  it("gives every sign-in its own random id, even in the same millisecond", () => {
    const store = createMemorySessionStore();
    const ids = Array.from({ length: 50 }, () => store.create(NOW));
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(SESSION_ID_PATTERN);
  });

  it("slides with use up to 12 hours idle, and ends after 7 days whatever the use", () => {
    expect([SESSION_IDLE_MS, SESSION_ABSOLUTE_MS]).toEqual([12 * HOUR, 7 * 24 * HOUR]);
    const store = createMemorySessionStore();
    const id = store.create(NOW);
    let t = NOW;
    for (let i = 0; i < 15; i++) expect(store.touch(id, (t += 11 * HOUR))).toBe(true); // 165 h of use, never 12 h idle
    expect(store.touch(id, NOW + SESSION_ABSOLUTE_MS - 1)).toBe(true);
    expect(store.touch(id, NOW + SESSION_ABSOLUTE_MS)).toBe(false);
    expect(store.touch(id, NOW + 1)).toBe(false); // ended for good

    const idle = store.create(NOW);
    expect(store.touch(idle, NOW + SESSION_IDLE_MS - 1)).toBe(true);
    expect(store.touch(idle, NOW + 2 * SESSION_IDLE_MS - 2)).toBe(true);
    expect(store.touch(idle, NOW + 3 * SESSION_IDLE_MS)).toBe(false);
  });

  it("revokes one session and leaves the others alone; unknown and property-name ids are simply not live", () => {
    const store = createMemorySessionStore();
    const [a, b] = [store.create(NOW), store.create(NOW)];
    store.revoke(a);
    expect(store.touch(a, NOW)).toBe(false);
    expect(store.touch(b, NOW)).toBe(true);
    store.revoke("nope");
    for (const id of ["constructor", "__proto__", "toString", ""]) expect(store.touch(id, NOW)).toBe(false);
  });

  it("keeps at most maxCount sessions, ending the least recently used first", () => {
    const store = createMemorySessionStore({ maxCount: 3 });
    const [a, b, c] = [store.create(NOW), store.create(NOW + 1), store.create(NOW + 2)];
    expect(store.touch(a, NOW + 3)).toBe(true); // b is now the least recently used
    const d = store.create(NOW + 4);
    expect([a, b, c, d].map((id) => store.touch(id, NOW + 5))).toEqual([true, false, true, true]);
  });
});

describe("open WebSockets of a session", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const fakeSocket = () => Object.assign(new EventEmitter(), { destroy: vi.fn(function (this: EventEmitter) { this.emit("close"); }) });

  it("keep a page's session in use, and are closed when the session ends", () => {
    vi.useFakeTimers();
    let now = NOW;
    const store = createMemorySessionStore({ idleMs: 10 * 60_000, absoluteMs: 60 * 60_000 });
    const sockets = createSessionSockets(store, () => now, 60_000);
    const [kept, revoked] = [store.create(now), store.create(now)];
    const [s1, s2, s3] = [fakeSocket(), fakeSocket(), fakeSocket()];
    sockets.add(kept, s1);
    sockets.add(revoked, s2);
    sockets.add(revoked, s3);
    expect(sockets.openCount()).toBe(3);
    for (let i = 0; i < 30; i++) {
      now += 60_000;
      vi.advanceTimersByTime(60_000);
    }
    expect(store.touch(kept, now)).toBe(true); // 30 minutes with the page open is use, not idleness
    store.revoke(revoked);
    sockets.end(revoked);
    expect([s2.destroy, s3.destroy].map((d) => d.mock.calls.length)).toEqual([1, 1]);
    expect(s1.destroy).not.toHaveBeenCalled();
    for (let i = 0; i < 31; i++) {
      now += 60_000;
      vi.advanceTimersByTime(60_000); // past the absolute hour
    }
    expect(s1.destroy).toHaveBeenCalledTimes(1);
    expect(sockets.openCount()).toBe(0);
    expect(vi.getTimerCount()).toBe(0); // no timer left once no socket is open
  });
});

describe("cookies and where requests come from", () => {
  it("names the cookie after the port, so two gateways on one host keep their own", () => {
    expect(sessionCookieName(8787)).toBe("aub_session_8787");
    expect(sessionCookieName(8797)).not.toBe(sessionCookieName(8787));
  });

  it("reads one cookie out of a Cookie header", () => {
    expect(readCookie("a=1; aub_session_8787=abc; b=3", "aub_session_8787")).toBe("abc");
    expect(readCookie("aub_session_87870=abc", "aub_session_8787")).toBeUndefined();
    expect(readCookie("xaub_session_8787=1", "aub_session_8787")).toBeUndefined();
    expect(readCookie(undefined, "aub_session_8787")).toBeUndefined();
  });

  it("sets an HttpOnly, SameSite=Strict cookie on /, Secure behind HTTPS, and clears it with Max-Age=0", () => {
    expect(sessionCookieHeader("aub_session_8787", "v", 60, false)).toBe("aub_session_8787=v; Path=/; Max-Age=60; HttpOnly; SameSite=Strict");
    expect(sessionCookieHeader("aub_session_8787", "v", 60, true)).toMatch(/; Secure$/);
    expect(clearedCookieHeader("aub_session_8787", false)).toBe("aub_session_8787=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
  });

  const req = (headers: Record<string, string>, localPort = 8787) => ({ headers: { host: "127.0.0.1:8787", ...headers }, socket: { localPort } }) as unknown as IncomingMessage;
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

  it.each<[string | undefined, string | undefined, number, boolean]>([
    [undefined, "127.0.0.1:8787", 8787, true],
    [undefined, "localhost:8787", 8787, true],
    [undefined, "LOCALHOST:8787", 8787, true],
    [undefined, "[::1]:8787", 8787, true],
    [undefined, "127.0.0.1:8788", 8787, false],
    [undefined, "localhost", 8787, false],
    [undefined, "localhost", 80, true],
    [undefined, "evil.example:8787", 8787, false],
    [undefined, "127.0.0.1.evil.example:8787", 8787, false],
    [undefined, "192.168.1.5:8787", 8787, false],
    [undefined, undefined, 8787, false],
    ["https://aub.example.com", "aub.example.com", 8787, true],
    ["https://aub.example.com", "aub.example.com:443", 8787, true],
    ["https://aub.example.com/", "AUB.example.com", 8787, true],
    ["https://aub.example.com", "aub.example.com:8787", 8787, false],
    ["https://aub.example.com", "evil.example", 8787, false],
    ["http://192.168.1.5:8787", "192.168.1.5:8787", 8787, true],
    ["http://192.168.1.5:8787", "localhost:8787", 8787, true],
  ])("publicUrl %s: Host %s at port %i is %s", (publicUrl, host, port, expected) => {
    const headers = host === undefined ? {} : { host };
    const request = { headers, socket: { localPort: port } } as unknown as IncomingMessage;
    expect(createHostCheck(publicUrl)(request)).toBe(expected);
  });

  it("refuses a publicUrl that is not an http(s) URL, and never echoes a refused Host", () => {
    expect(() => createHostCheck("aub.example.com")).toThrow(/not a URL/);
    expect(() => createHostCheck("ftp://aub.example.com")).toThrow(/http/);
    expect(hostRefusal("https://aub.example.com", 8787)).toContain("localhost:8787, 127.0.0.1:8787, aub.example.com");
  });
});
