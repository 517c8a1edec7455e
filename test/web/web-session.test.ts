import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHostCheck, hostRefusal } from "../../src/web/host-check.ts";
import { clearedCookieHeader, isSameOrigin, readCookie, sessionCookieHeader, sessionCookieName } from "../../src/web/session.ts";
import { createSessionSockets } from "../../src/web/session-sockets.ts";
import { adminSessionTag, createMemorySessionStore, createSessionCheck, SESSION_ABSOLUTE_MS, SESSION_ID_PATTERN, SESSION_IDLE_MS } from "../../src/web/session-store.ts";
import { createMemoryCredentialStore } from "../../src/gateway/auth/store.ts";

const NOW = 1_800_000_000_000;
const HOUR = 60 * 60 * 1000;

describe("Control UI sessions over the store (memory here; SQLite and PostgreSQL in web-sessions-shared.test.ts)", () => {
  const open = (options: { idleMs?: number; absoluteMs?: number; recheckMs?: number } = {}) => {
    const store = createMemorySessionStore();
    return { store, check: createSessionCheck({ store, adminTag: adminSessionTag("t".repeat(32)), ...options }) };
  };

  it("gives every sign-in its own random id, even in the same millisecond, and stores only its SHA-256", async () => {
    const { store, check } = open();
    const ids = await Promise.all(Array.from({ length: 50 }, () => check.create({ kind: "admin" }, NOW)));
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(SESSION_ID_PATTERN);
    expect((await store.find(ids)).size).toBe(0);
    const hashes = ids.map((id) => createHash("sha256").update(id).digest("hex"));
    expect((await store.find(hashes)).size).toBe(50);
  });

  it("slides with use up to 12 hours idle, and ends after 7 days whatever the use", async () => {
    expect([SESSION_IDLE_MS, SESSION_ABSOLUTE_MS]).toEqual([12 * HOUR, 7 * 24 * HOUR]);
    const { check } = open();
    const id = await check.create({ kind: "admin" }, NOW);
    let t = NOW;
    for (let i = 0; i < 15; i++) expect(await check.holder(id, (t += 11 * HOUR))).toEqual({ kind: "admin" }); // 165 h of use, never 12 h idle
    expect(await check.holder(id, NOW + SESSION_ABSOLUTE_MS - 1)).toEqual({ kind: "admin" });
    expect(await check.holder(id, NOW + SESSION_ABSOLUTE_MS)).toBeUndefined();

    const idle = await check.create({ kind: "admin" }, NOW);
    expect(await check.holder(idle, NOW + SESSION_IDLE_MS - 1)).toBeDefined();
    expect(await check.holder(idle, NOW + 2 * SESSION_IDLE_MS - 2)).toBeDefined();
    expect(await check.holder(idle, NOW + 3 * SESSION_IDLE_MS)).toBeUndefined();
  });

  it("writes a session's last use at most once a minute, however often it is used", async () => {
    const { store, check } = open({ recheckMs: 0 });
    const touch = vi.spyOn(store, "touch");
    const id = await check.create({ kind: "admin" }, NOW);
    for (let ms = 0; ms < 5 * 60_000; ms += 1_000) expect(await check.holder(id, NOW + ms)).toBeDefined();
    expect(touch.mock.calls.length).toBe(4); // at 1, 2, 3 and 4 minutes
  });

  it("ends one session and leaves the others alone; unknown, malformed and property-name ids are simply not live", async () => {
    const { store, check } = open();
    const find = vi.spyOn(store, "find");
    const [a, b] = [await check.create({ kind: "admin" }, NOW), await check.create({ kind: "admin" }, NOW)];
    await check.end(a);
    expect(await check.holder(a, NOW)).toBeUndefined();
    expect(await check.holder(b, NOW)).toBeDefined();
    await check.end("nope");
    find.mockClear();
    for (const id of ["constructor", "__proto__", "toString", "", "x".repeat(44), "a".repeat(42) + "!", "a".repeat(43) + "\n"]) expect(await check.holder(id, NOW)).toBeUndefined();
    expect(find).not.toHaveBeenCalled(); // not a session id's shape: the store is not asked
    expect(await check.holder("A".repeat(43), NOW)).toBeUndefined();
  });

  it("refuses an admin session made with another GATEWAY_TOKEN (a rotated token signs the admin out everywhere)", async () => {
    const store = createMemorySessionStore();
    const before = createSessionCheck({ store, adminTag: adminSessionTag("old-token-old-token-old") });
    const id = await before.create({ kind: "admin" }, NOW);
    expect(await before.holder(id, NOW)).toEqual({ kind: "admin" });
    const after = createSessionCheck({ store, adminTag: adminSessionTag("new-token-new-token-new") });
    expect(await after.holder(id, NOW)).toBeUndefined();
  });

  it("a person's session holds its credential while it is live, and ends with it", async () => {
    const credentials = createMemoryCredentialStore();
    await credentials.add({ id: "c1", name: "alice", role: "person", createdAtMs: NOW }, "hash-of-alice");
    await credentials.add({ id: "c2", name: "ci", role: "agent", createdAtMs: NOW }, "hash-of-ci");
    const check = createSessionCheck({ store: credentials.sessions, adminTag: "tag", recheckMs: 0 });
    const alice = await check.create({ kind: "person", credentialId: "c1" }, NOW);
    expect(await check.holder(alice, NOW)).toEqual({ kind: "person", credentialId: "c1", name: "alice", tokenHash: "hash-of-alice" });
    // A session for a credential that is no person's (no sign-in makes one) is refused all the same.
    expect(await check.holder(await check.create({ kind: "person", credentialId: "c2" }, NOW), NOW)).toBeUndefined();
    expect(await check.holder(await check.create({ kind: "person", credentialId: "unknown" }, NOW), NOW)).toBeUndefined();
    await credentials.revoke("alice", NOW + 1);
    expect(await check.holder(alice, NOW + 2)).toBeUndefined();
  });

  it("reads the store at most once per recheck interval per session, and sees a sign-out elsewhere after it", async () => {
    const store = createMemorySessionStore();
    const here = createSessionCheck({ store, adminTag: "tag", recheckMs: 1_000 });
    const elsewhere = createSessionCheck({ store, adminTag: "tag", recheckMs: 1_000 });
    const id = await here.create({ kind: "admin" }, NOW);
    const find = vi.spyOn(store, "find");
    for (let ms = 0; ms < 1_000; ms += 100) expect(await here.holder(id, NOW + ms)).toBeDefined();
    expect(find).toHaveBeenCalledTimes(1);
    await elsewhere.end(id);
    expect(await here.holder(id, NOW + 999)).toBeDefined(); // its cached answer, under a second old
    expect(await here.holder(id, NOW + 1_000)).toBeUndefined();
  });
});

describe("open WebSockets of a session", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const fakeSocket = () => Object.assign(new EventEmitter(), { destroy: vi.fn(function (this: EventEmitter) { this.emit("close"); }) });

  it("keep a page's session in use, and are closed when the session ends", async () => {
    vi.useFakeTimers();
    let now = NOW;
    const store = createMemorySessionStore();
    const check = createSessionCheck({ store, adminTag: "tag", idleMs: 10 * 60_000, absoluteMs: 60 * 60_000 });
    const sockets = createSessionSockets(check, () => now, 1_000);
    const [kept, ended] = [await check.create({ kind: "admin" }, now), await check.create({ kind: "admin" }, now)];
    const [s1, s2, s3] = [fakeSocket(), fakeSocket(), fakeSocket()];
    sockets.add(kept, s1);
    sockets.add(ended, s2);
    sockets.add(ended, s3);
    expect(sockets.openCount()).toBe(3);
    const tick = async (ms: number) => {
      for (let i = 0; i < ms / 1_000; i++) {
        now += 1_000;
        await vi.advanceTimersByTimeAsync(1_000);
      }
    };
    await tick(30 * 60_000);
    expect(await check.holder(kept, now)).toBeDefined(); // 30 minutes with the page open is use, not idleness
    // Signed out elsewhere (another instance): the next ticks close its sockets.
    await createSessionCheck({ store, adminTag: "tag" }).end(ended);
    await tick(2_000);
    expect([s2.destroy, s3.destroy].map((d) => d.mock.calls.length)).toEqual([1, 1]);
    expect(s1.destroy).not.toHaveBeenCalled();
    await tick(31 * 60_000); // past the absolute hour
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
