/**
 * The pure parts of the gateway's limits: the per-address token backoff (on a fake clock), the connection counts,
 * the Origin rule and address keys; and that ws still takes a per-connection frame limit (it is ws's internal
 * field, so a ws upgrade that moves it fails here first). The attacks themselves run against a gateway process in
 * test/system/security-limits.test.ts.
 */
import type { IncomingMessage } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { addressKey, createAuthBackoff, createGuardedTokenCheck, MAX_DELAY_MS } from "../../../src/gateway/auth/auth-backoff.ts";
import { createClientAddress } from "../../../src/gateway/server/client-address.ts";
import { createConnectionCounter, setFrameLimit } from "../../../src/gateway/server/limits.ts";
import { ADMIN, WEB } from "../../../src/gateway/auth/principal.ts";
import { isCrossOrigin } from "../../../src/gateway/server/origin.ts";

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("token backoff per address", () => {
  it("5 wrong tokens are checked; then the address is locked out 1 s, doubling with each wrong token, up to 60 s", () => {
    const time = clock();
    const backoff = createAuthBackoff({ now: time.now });
    for (let i = 0; i < 4; i++) {
      backoff.failed("10.0.0.1");
      expect(backoff.retryAfterMs("10.0.0.1")).toBe(0);
    }
    const lockouts: number[] = [];
    for (let i = 0; i < 9; i++) {
      backoff.failed("10.0.0.1");
      lockouts.push(backoff.retryAfterMs("10.0.0.1"));
      time.advance(lockouts.at(-1)!);
      expect(backoff.retryAfterMs("10.0.0.1")).toBe(0);
    }
    expect(lockouts).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, MAX_DELAY_MS, MAX_DELAY_MS, MAX_DELAY_MS]);
    expect(backoff.retryAfterMs("10.0.0.2")).toBe(0);
  });

  it("the guarded check never refuses a right token (issue 37 §4); a wrong one during a lockout is refused as locked out and not counted; a right one clears nothing", () => {
    const time = clock();
    const backoff = createAuthBackoff({ now: time.now });
    const check = createGuardedTokenCheck((t) => t === "right", backoff);
    for (let i = 0; i < 4; i++) expect(check("a", "wrong")).toEqual({ ok: false, retryAfterMs: 0 });
    expect(check("a", "right")).toEqual({ ok: true });
    // A right token (another client behind the same address, or a guesser's own valid token) does not reset the count.
    expect(check("a", "wrong")).toEqual({ ok: false, retryAfterMs: 0 }); // the fifth: checked, and locks
    expect(check("a", "right")).toEqual({ ok: true });
    expect(check("a", "wrong")).toEqual({ ok: false, retryAfterMs: 1_000 });
    expect(check("a", "")).toEqual({ ok: false, retryAfterMs: 1_000 }); // the same answer whatever is sent
    time.advance(999);
    expect(check("a", "wrong")).toEqual({ ok: false, retryAfterMs: 1 }); // not counted: the lockout did not grow
    expect(check("b", "wrong")).toEqual({ ok: false, retryAfterMs: 0 });
    time.advance(1);
    expect(check("a", "wrong")).toEqual({ ok: false, retryAfterMs: 0 }); // checked again, and locks for 2 s
    expect(backoff.retryAfterMs("a")).toBe(2_000);
    expect(check("a", "right")).toEqual({ ok: true });
  });

  it.each<[string, string[], string, string | undefined, string]>([
    ["no trusted proxies: the peer, the header ignored", [], "127.0.0.1", "203.0.113.7", "127.0.0.1"],
    ["a trusted peer: the right-most address", ["127.0.0.1"], "127.0.0.1", "198.51.100.1, 203.0.113.7", "203.0.113.7"],
    ["a peer not trusted: the peer", ["127.0.0.1"], "127.0.0.2", "203.0.113.7", "127.0.0.2"],
    ["trusted hops (a CIDR) skipped, spoofed entries left of the client unused", ["127.0.0.1", "10.0.0.0/8"], "127.0.0.1", "1.1.1.1, 203.0.113.7, 10.1.2.3", "203.0.113.7"],
    ["an IPv4-mapped peer, an IPv6 client", ["127.0.0.1"], "::ffff:127.0.0.1", "2001:db8::1", "2001:db8::1"],
    ["no header: the peer", ["127.0.0.1"], "127.0.0.1", undefined, "127.0.0.1"],
    ["garbage right of any address: the proxy that passed it on", ["127.0.0.1"], "127.0.0.1", "203.0.113.7, nonsense", "127.0.0.1"],
    ["every hop trusted: the left-most", ["10.0.0.0/8"], "10.0.0.1", "10.0.0.2, 10.0.0.3", "10.0.0.2"],
  ])("the client's address (GATEWAY_TRUSTED_PROXIES), %s", (_what, proxies, peer, header, expected) => {
    const req = { socket: { remoteAddress: peer }, headers: header === undefined ? {} : { "x-forwarded-for": header } } as unknown as IncomingMessage;
    expect(createClientAddress(proxies)(req)).toBe(expected);
  });

  it("a missing or non-string token is no guess: it is refused but not counted", () => {
    const backoff = createAuthBackoff();
    const check = createGuardedTokenCheck(() => false, backoff);
    for (const token of [undefined, "", 12345, null, { token: "x" }]) for (let i = 0; i < 10; i++) check("a", token);
    expect(backoff.size).toBe(0);
  });

  it("forgets an address 15 minutes after its last wrong token, and never holds more than its bound", () => {
    const time = clock();
    const backoff = createAuthBackoff({ now: time.now, maxAddresses: 100 });
    for (let i = 0; i < 5; i++) backoff.failed("a");
    time.advance(15 * 60_000);
    expect(backoff.retryAfterMs("a")).toBe(0);
    backoff.failed("a");
    expect(backoff.retryAfterMs("a")).toBe(0); // counting from 1 again
    for (let i = 0; i < 1_000; i++) backoff.failed(`10.1.${i >> 8}.${i & 255}`);
    expect(backoff.size).toBe(100);
  });

  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["::ffff:127.0.0.2", "127.0.0.2"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "2001:db8:1:2::/64"],
    ["2001:0db8:0000:0002:ffff::1", "2001:db8:0:2::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    [undefined, "unknown"],
  ])("addressKey(%s) = %s", (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});

describe("connection counts", () => {
  it("caps unauthenticated connections and all connections; authenticating or closing gives the place back, once", () => {
    const counter = createConnectionCounter({ maxConnections: 4, maxUnauthenticated: 2 });
    const a = counter.take(undefined);
    const b = counter.take(undefined);
    expect(counter.refusal(undefined)).toMatch(/waiting to authenticate/);
    expect(counter.refusal(ADMIN)).toBeUndefined();
    a.authenticated(ADMIN);
    a.authenticated(ADMIN);
    expect(counter.unauthenticated).toBe(1);
    const c = counter.take(undefined);
    counter.take(ADMIN);
    expect(counter.refusal(ADMIN)).toMatch(/GATEWAY_MAX_CONNECTIONS/);
    b.release();
    b.release();
    c.authenticated(ADMIN);
    c.release();
    expect([counter.open, counter.unauthenticated]).toEqual([2, 0]);
  });

  const agent = (id: string) => ({ kind: "agent" as const, credentialId: id, name: `agent ${id}` });
  const bot = { kind: "bot" as const, surface: "telegram" as const, credentialId: "b1", name: "tg" };

  it("holds one scoped credential to its share, at the upgrade and at a connect frame, and gives it back on close", () => {
    const counter = createConnectionCounter({ maxConnections: 100, maxPerCredential: 2 });
    const first = counter.take(agent("a1"));
    counter.take(agent("a1"));
    expect(counter.refusal(agent("a1"))).toMatch(/^credential a1 \(agent a1\) has 2 connections open, its limit \(GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL\)/);
    expect(counter.refusal(agent("a2"))).toBeUndefined();
    const viaConnect = counter.take(undefined);
    expect(viaConnect.authenticated(agent("a1"))).toMatch(/GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL/);
    expect(counter.unauthenticated).toBe(1);
    first.release();
    expect(viaConnect.authenticated(agent("a1"))).toBeUndefined();
    expect(counter.refusal(agent("a1"))).toMatch(/GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL/);
    expect(counter.refusal(ADMIN)).toBeUndefined(); // the admin token has no share
  });

  it("counts a credential's HTTP long-polls with its sockets (issue 37 §7), not in the gateway's total; each gives its place back once", () => {
    const counter = createConnectionCounter({ maxConnections: 100, maxPerCredential: 3 });
    counter.take(agent("a1"));
    const polls = [counter.hold(agent("a1")), counter.hold(agent("a1"))];
    expect(polls.every((poll) => poll.ok)).toBe(true);
    expect(counter.hold(agent("a1"))).toEqual({ ok: false, refusal: expect.stringMatching(/^credential a1 \(agent a1\) has 3 connections open, its limit \(GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL\)/) });
    expect(counter.refusal(agent("a1"))).toMatch(/GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL/); // a socket neither
    expect(counter.open).toBe(1);
    const first = polls[0]!;
    if (first.ok) first.release(), first.release();
    expect(counter.refusal(agent("a1"))).toBeUndefined();
    expect(counter.hold(agent("a1")).ok).toBe(true);
    expect(counter.hold(agent("a1")).ok).toBe(false);
    expect(counter.hold(ADMIN).ok).toBe(true); // the admin token has no share
  });

  it("keeps the last places for the admin token, bots and the Control UI", () => {
    const counter = createConnectionCounter({ maxConnections: 20, maxPerCredential: 100, reserved: 2 });
    for (let i = 0; i < 18; i++) counter.take(agent(`a${i % 3}`));
    expect(counter.refusal(agent("a9"))).toMatch(/last 2 places .* are kept for the admin token and bots/);
    expect(counter.refusal(undefined)).toMatch(/last 2 places/);
    expect(counter.refusal(bot)).toBeUndefined();
    counter.take(bot);
    expect(counter.refusal(WEB)).toBeUndefined();
    counter.take(ADMIN);
    expect(counter.refusal(ADMIN)).toMatch(/its limit \(GATEWAY_MAX_CONNECTIONS\)/);
  });
});

describe("the Origin rule for /ws", () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  it.each<[Record<string, string>, boolean]>([
    [{ host: "127.0.0.1:8787" }, false],
    [{ host: "127.0.0.1:8787", origin: "http://127.0.0.1:8787" }, false],
    [{ host: "127.0.0.1:8787", origin: "https://127.0.0.1:8787" }, false],
    [{ host: "Gateway.Example", origin: "https://gateway.example" }, false],
    [{ host: "gateway.example:443", origin: "https://gateway.example" }, false],
    [{ host: "127.0.0.1:8787", origin: "http://localhost:8787" }, true],
    [{ host: "127.0.0.1:8787", origin: "http://127.0.0.1:8788" }, true],
    [{ host: "127.0.0.1:8787", origin: "http://evil.example" }, true],
    [{ host: "127.0.0.1:8787", origin: "null" }, true],
    [{ host: "127.0.0.1:8787", origin: "file://" }, true],
    [{ host: "127.0.0.1:8787", origin: "chrome-extension://127.0.0.1:8787" }, true],
    [{ origin: "http://127.0.0.1:8787" }, true],
  ])("%j → cross-origin %s", (headers, cross) => {
    expect(isCrossOrigin(req(headers))).toBe(cross);
  });
});

describe("ws takes a per-connection frame limit", () => {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", maxPayload: 1024 * 1024 });
  afterAll(() => new Promise<void>((resolve) => wss.close(() => resolve())));

  it("a limit set on one accepted connection drops a bigger frame there, at its header", async () => {
    const accepted = new Promise<WebSocket>((resolve) => wss.once("connection", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`);
    client.on("error", () => {});
    await new Promise((resolve) => client.once("open", resolve));
    const server = await accepted;
    expect(setFrameLimit(server, 16)).toBe(true);
    const messages: string[] = [];
    server.on("message", (data) => messages.push(data.toString()));
    const error = new Promise<Error & { code?: string }>((resolve) => server.once("error", resolve));
    client.send("sixteen bytes ok");
    client.send("seventeen bytes !");
    expect((await error).code).toBe("WS_ERR_UNSUPPORTED_MESSAGE_LENGTH");
    expect(messages).toEqual(["sixteen bytes ok"]);
    server.terminate();
  });

  it("reports false when the socket has no such receiver", () => {
    expect(setFrameLimit({} as WebSocket, 16)).toBe(false);
  });
});
