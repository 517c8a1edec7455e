/**
 * Issue 37 §4, against the gateway as a child process (`ask-user-bridge gateway`): behind deploy/nginx.conf or the
 * Caddyfile every client reaches the gateway from 127.0.0.1, like the bots, the CLI, the hook and the MCP server on
 * the same machine, and the proxy names the client in X-Forwarded-For. The token backoff was keyed by the socket's
 * address, so nine wrong tokens from the internet gave the admin token 429 for 16 s.
 *
 * Here a request "through the proxy" is what nginx sends: from 127.0.0.1, with `X-Forwarded-For` ending in the
 * client's address (`$proxy_add_x_forwarded_for`: what the client sent, then the address nginx got it from).
 *
 * - Without GATEWAY_TRUSTED_PROXIES the attack still locks 127.0.0.1 out for wrong tokens, but the admin token (over
 *   /rpc, an upgrade, a connect frame, /metrics and the Control UI's sign-in) is let in throughout.
 * - With GATEWAY_TRUSTED_PROXIES=127.0.0.1 the backoff counts the client named by the proxy: the attacker is locked
 *   out; another internet client and the local clients are not; a header the attacker writes itself (left of what
 *   the proxy appends), or one sent by a peer that is not a trusted proxy, changes nothing.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, freePort, spawnGateway, tempDir, TOKEN, WRONG_TOKEN, type ChildGateway } from "../helpers/gateway.ts";
import { frame, openWire } from "../helpers/ws-wire.ts";

const ATTACKER = "203.0.113.7";
const OTHER_CLIENT = "198.51.100.9";

afterAll(cleanup);

interface Reply {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** One HTTP request to the gateway from `localAddress` (127.0.0.1: the proxy, or a local client). */
function send(gateway: ChildGateway, path: string, options: { localAddress?: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: options.body === undefined ? "GET" : "POST", localAddress: options.localAddress ?? "127.0.0.1", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"], body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** POST /rpc/question.list with `token`; `forwardedFor`: as nginx passes on a client's request. */
const rpc = (gateway: ChildGateway, token: string, forwardedFor?: string, localAddress?: string) =>
  send(gateway, "/rpc/question.list", {
    ...(localAddress ? { localAddress } : {}),
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
    body: "{}",
  });

/** The Control UI's sign-in form, posted from the page itself. */
function signIn(gateway: ChildGateway, token: string, forwardedFor?: string): Promise<Reply> {
  const host = new URL(gateway.url).host;
  return send(gateway, "/login", {
    headers: { "content-type": "application/x-www-form-urlencoded", host, origin: `http://${host}`, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
    body: `token=${token}`,
  });
}

/** Whether a connect frame with `token` on a fresh socket from 127.0.0.1 succeeds. */
async function connects(gateway: ChildGateway, token: string): Promise<boolean> {
  const { wire } = await openWire(gateway.wsUrl);
  wire!.socket.write(frame(JSON.stringify({ type: "req", id: "c", method: "connect", params: { token } })));
  await wire!.waitFor('"id":"c"');
  const ok = wire!.received().toString().includes('"ok":true');
  wire!.socket.destroy();
  return ok;
}

/** The attack of the issue: nine wrong tokens from one internet client, through the proxy. */
async function nineWrongTokens(gateway: ChildGateway): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 9; i++) statuses.push((await rpc(gateway, WRONG_TOKEN, ATTACKER)).status);
  return statuses;
}

describe("without GATEWAY_TRUSTED_PROXIES (every client behind the proxy is 127.0.0.1)", () => {
  let gateway: ChildGateway;
  beforeAll(async () => {
    gateway = await spawnGateway({ GATEWAY_PORT: String(await freePort()), DATA_DIR: tempDir("aub-proxy-") });
  }, 60_000);
  afterAll(() => gateway?.kill());

  it("nine wrong tokens from the internet lock 127.0.0.1 out for wrong tokens only: the admin token is let in on every path", async () => {
    const statuses = await nineWrongTokens(gateway);
    // 5 checked, then locked out (the header is not believed: the proxy's address counts them all).
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429]);
    const locked = await rpc(gateway, WRONG_TOKEN);
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(locked.body)).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED", message: expect.stringMatching(/too many wrong tokens/) } });
    // What the issue saw refused with 429: the admin token of the local CLI, bots, hook and MCP server.
    expect((await rpc(gateway, TOKEN)).status).toBe(200);
    const upgrade = await openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(upgrade.status).toBe(101);
    upgrade.wire!.socket.destroy();
    expect(await connects(gateway, TOKEN)).toBe(true);
    expect(await connects(gateway, WRONG_TOKEN)).toBe(false);
    expect((await send(gateway, "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await send(gateway, "/metrics", { headers: { authorization: `Bearer ${WRONG_TOKEN}` } })).status).toBe(429);
    expect((await signIn(gateway, TOKEN)).status).toBe(303);
    const wrongSignIn = await signIn(gateway, WRONG_TOKEN);
    expect(wrongSignIn.body).toContain("Too many wrong tokens from this address");
  }, 30_000);
});

describe("with GATEWAY_TRUSTED_PROXIES=127.0.0.1 (as deploy/ sets it)", () => {
  let gateway: ChildGateway;
  beforeAll(async () => {
    gateway = await spawnGateway({ GATEWAY_PORT: String(await freePort()), DATA_DIR: tempDir("aub-proxy-"), GATEWAY_TRUSTED_PROXIES: "127.0.0.1,::1" });
  }, 60_000);
  afterAll(() => gateway?.kill());

  it("the attacker is locked out by its own address; other internet clients and the local clients are not", async () => {
    expect(await nineWrongTokens(gateway)).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429]);
    // The attacker's own header, left of what nginx appends, is not believed: still counted as the attacker.
    expect((await rpc(gateway, WRONG_TOKEN, `${OTHER_CLIENT}, ${ATTACKER}`)).status).toBe(429);
    // The right token from the attacker's address is let in too (the backoff slows wrong tokens only).
    expect((await rpc(gateway, TOKEN, ATTACKER)).status).toBe(200);
    // Another internet client through the proxy, and the local clients (no header): their wrong tokens are checked.
    expect((await rpc(gateway, WRONG_TOKEN, OTHER_CLIENT)).status).toBe(401);
    expect((await rpc(gateway, WRONG_TOKEN)).status).toBe(401);
    expect((await rpc(gateway, TOKEN)).status).toBe(200);
    expect(await connects(gateway, TOKEN)).toBe(true);
    // The Control UI's sign-in and /metrics count by the same address.
    expect((await signIn(gateway, WRONG_TOKEN, ATTACKER)).body).toContain("Too many wrong tokens from this address");
    expect((await signIn(gateway, WRONG_TOKEN, OTHER_CLIENT)).body).not.toContain("Too many wrong tokens");
    expect((await signIn(gateway, TOKEN, ATTACKER)).status).toBe(303);
    expect((await send(gateway, "/metrics", { headers: { authorization: `Bearer ${WRONG_TOKEN}`, "x-forwarded-for": ATTACKER } })).status).toBe(429);
    expect((await send(gateway, "/metrics", { headers: { authorization: `Bearer ${WRONG_TOKEN}`, "x-forwarded-for": OTHER_CLIENT } })).status).toBe(401);
  }, 30_000);

  it("X-Forwarded-For from a peer that is not a trusted proxy is ignored: a client cannot pick whom it is counted as", async () => {
    const victim = "192.0.2.44";
    // From 127.0.0.2 (not a trusted proxy), claiming to be the victim: counted as 127.0.0.2.
    for (let i = 0; i < 6; i++) await rpc(gateway, WRONG_TOKEN, victim, "127.0.0.2");
    expect((await rpc(gateway, WRONG_TOKEN, undefined, "127.0.0.2")).status).toBe(429);
    expect((await rpc(gateway, WRONG_TOKEN, victim)).status).toBe(401);
  }, 30_000);
});
