/**
 * Resource limits and token guessing (issue #17 §1 and §2), each attack run against the gateway as a child process
 * (`ask-user-bridge gateway`), its memory read from /proc/<pid>/status:
 *
 * - Memory: 40 connections without a token, each sending one 15 MiB frame, once raised the gateway from 99 to 514
 *   MiB (412 MiB still held after they closed). Now a frame may be 4 KiB before `connect` and 1 MiB after, and the
 *   connection is dropped as soon as a frame's header announces more: the payload is never read.
 * - Connections: at most 64 that have not authenticated and GATEWAY_MAX_CONNECTIONS in all (HTTP 503 past either);
 *   one that never authenticates is closed after the 10 s deadline. 500 idle sockets used to be accepted.
 * - Origin: a `/ws` upgrade from another origin (any web page) is refused, with or without a cookie.
 * - Guessing: thousands of wrong tokens used to be checked as fast as they came. Now, after 5 wrong tokens, an address
 *   is locked out for a delay that doubles with each further wrong token; another address is unaffected. The right
 *   token is never refused (issue 37 §4; the proxy case is in security-proxy.test.ts).
 * - A GATEWAY_TOKEN shorter than 32 characters stops the gateway at start, saying how to make a good one.
 *
 * The wire-level attacks use hand-written frames (test/helpers/ws-wire.ts), so a 15 MiB frame costs the test nothing.
 */
import { request, Agent } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { MAX_FRAME_BYTES } from "../../src/protocol/methods.ts";
import { cleanup, freePort, rpcOk, sleep, spawnCli, spawnGateway, tempDir, TOKEN, WRONG_TOKEN, type ChildGateway } from "../helpers/gateway.ts";
import { frame, frameHeader, mib, openWire, pump, vmRssKiB, type Wire } from "../helpers/ws-wire.ts";
import { until } from "./system-harness.ts";

const ATTACKERS = 40;
const ATTACK_FRAME_BYTES = 15 * 1024 * 1024;
const RSS_GROWTH_LIMIT_MIB = 64;
const PRE_AUTH_FRAME_BYTES = 4 * 1024;
const MAX_UNAUTHENTICATED = 64;

const startGatewayProcess = async (env: Record<string, string> = {}) =>
  spawnGateway({ GATEWAY_PORT: String(await freePort()), DATA_DIR: tempDir("aub-limits-"), ...env });

/** A request frame of exactly `size` bytes (ASCII), padded in its params. */
function requestOfSize(size: number, id: string, method = "question.list"): string {
  const head = `{"type":"req","id":"${id}","method":"${method}","params":{"pad":"`;
  const text = `${head}${"x".repeat(size - head.length - 3)}"}}`;
  expect(text.length).toBe(size);
  return text;
}

/** Waits for the gateway to drop the connection; fails when it is still open after `ms`. */
async function droppedWithin(wire: Wire, ms: number): Promise<number> {
  const result = await Promise.race([wire.closed, sleep(ms).then(() => undefined)]);
  if (!result) throw new Error(`the gateway kept the connection open for ${ms} ms`);
  return result.afterMs;
}

afterAll(cleanup);

describe("memory: oversized frames are dropped at their header", () => {
  let gateway: ChildGateway;
  beforeAll(async () => {
    gateway = await startGatewayProcess();
    // Warm up: code loaded, a few requests served, so that what grows afterwards is what the attack cost.
    for (let i = 0; i < 20; i++) await rpcOk(gateway.url, "question.list", {});
  }, 60_000);
  afterAll(() => gateway?.kill());

  it(`${ATTACKERS} connections without a token, each sending one 15 MiB frame, grow the gateway's RSS by less than ${RSS_GROWTH_LIMIT_MIB} MiB`, async () => {
    const pid = gateway.run.child.pid!;
    await sleep(300);
    const before = vmRssKiB(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, vmRssKiB(pid))), 20);
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: ATTACKERS }, async () => {
        const { status, wire } = await openWire(gateway.wsUrl);
        expect(status).toBe(101);
        wire!.socket.write(frameHeader(ATTACK_FRAME_BYTES));
        const sent = await pump(wire!, ATTACK_FRAME_BYTES);
        const dropped = wire!.isClosed();
        wire!.socket.destroy();
        await wire!.closed;
        return { sent, dropped };
      }),
    );
    const attackMs = Date.now() - started;
    await sleep(1_000);
    clearInterval(sampler);
    const after = vmRssKiB(pid);
    peak = Math.max(peak, after);
    const sentMiB = results.reduce((n, r) => n + r.sent, 0) / 1024 / 1024;
    console.log(
      `[security-limits] ${ATTACKERS} × ${ATTACK_FRAME_BYTES / 1024 / 1024} MiB frames without a token in ${attackMs} ms: ` +
        `${results.filter((r) => r.dropped).length} dropped by the gateway before the frame was sent, ${sentMiB.toFixed(1)} MiB taken by the sockets in all; ` +
        `gateway VmRSS before=${mib(before)} MiB, peak=${mib(peak)} MiB, after=${mib(after)} MiB, ` +
        `growth peak=${mib(peak - before)} MiB after=${mib(after - before)} MiB (limit ${RSS_GROWTH_LIMIT_MIB})`,
    );
    expect(peak - before).toBeLessThan(RSS_GROWTH_LIMIT_MIB * 1024);
    expect(results.every((r) => r.dropped)).toBe(true);
    // The gateway still serves.
    expect(await rpcOk(gateway.url, "question.list", {})).toMatchObject({ questions: expect.any(Array) });
  }, 120_000);
});

describe("frame limits: 4 KiB before connect, 1 MiB after; a bigger frame drops the connection at its header", () => {
  let gateway: ChildGateway;
  beforeAll(async () => {
    gateway = await startGatewayProcess();
  }, 60_000);
  afterAll(() => gateway?.kill());

  it("before connect: a 4,096-byte frame is answered; a 4,097-byte one drops the connection before its payload is sent", async () => {
    const { wire } = await openWire(gateway.wsUrl);
    wire!.socket.write(frame(requestOfSize(PRE_AUTH_FRAME_BYTES, "edge")));
    await wire!.waitFor('"id":"edge"');
    expect(wire!.received().toString()).toContain("UNAUTHORIZED");
    wire!.socket.write(frameHeader(PRE_AUTH_FRAME_BYTES + 1)); // the header only: no payload ever follows
    expect(await droppedWithin(wire!, 2_000)).toBeLessThan(2_000);
  });

  it("before connect: fragments adding up to more than 4 KiB drop the connection too", async () => {
    const { wire } = await openWire(gateway.wsUrl);
    wire!.socket.write(frame(Buffer.alloc(3_000, "x"), { fin: false }));
    wire!.socket.write(frameHeader(3_000, { opcode: 0x0 }));
    await droppedWithin(wire!, 2_000);
  });

  it("after a connect frame: frames up to 1 MiB are read; one announcing 1 MiB + 1 byte drops the connection before its payload", async () => {
    const { wire } = await openWire(gateway.wsUrl);
    wire!.socket.write(frame(JSON.stringify({ type: "req", id: "c1", method: "connect", params: { token: TOKEN } })));
    await wire!.waitFor('"id":"c1","ok":true');
    wire!.socket.write(frame(requestOfSize(64 * 1024, "mid")));
    await wire!.waitFor('"id":"mid"');
    wire!.socket.write(frame(requestOfSize(MAX_FRAME_BYTES, "max")));
    await wire!.waitFor('"id":"max"');
    wire!.socket.write(frameHeader(MAX_FRAME_BYTES + 1));
    await droppedWithin(wire!, 2_000);
  });

  it("with a bearer token at the upgrade: 1 MiB is read at once, 1 MiB + 1 byte drops the connection", async () => {
    const { wire } = await openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    wire!.socket.write(frame(requestOfSize(MAX_FRAME_BYTES, "max")));
    await wire!.waitFor('"id":"max"');
    wire!.socket.write(frameHeader(MAX_FRAME_BYTES + 1));
    await droppedWithin(wire!, 2_000);
    // The gateway keeps serving everyone else.
    expect(await rpcOk(gateway.url, "question.list", { limit: 1 })).toMatchObject({ questions: expect.any(Array) });
  });

  it("the ws client library sees the drop as a closed connection, and the HTTP mirror still answers 413 FRAME_TOO_LARGE", async () => {
    const socket = new WebSocket(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    socket.on("error", () => {}); // ECONNRESET: the gateway stopped reading
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.send(requestOfSize(MAX_FRAME_BYTES + 1, "big"));
    expect([1006, 1009]).toContain(await closed);
    const res = await fetch(`${gateway.url}/rpc/question.list`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: requestOfSize(MAX_FRAME_BYTES + 1, "big") });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ ok: false, error: { code: "FRAME_TOO_LARGE" } });
  });
});

describe("connections: 64 unauthenticated, GATEWAY_MAX_CONNECTIONS in all, and the 10 s deadline", () => {
  const MAX = 80;
  let gateway: ChildGateway;
  const wires: Wire[] = [];
  beforeAll(async () => {
    gateway = await startGatewayProcess({ GATEWAY_MAX_CONNECTIONS: String(MAX) });
  }, 60_000);
  afterAll(async () => {
    for (const wire of wires) wire.socket.destroy();
    await gateway?.kill();
  });

  it("of 500 idle sockets without a token, 64 are let in and the rest get 503; one with the token still gets in", async () => {
    const opened = Date.now();
    const upgrades = await Promise.all(Array.from({ length: 500 }, () => openWire(gateway.wsUrl)));
    const accepted = upgrades.filter((u) => u.status === 101);
    wires.push(...accepted.map((u) => u.wire!));
    const refused = upgrades.filter((u) => u.status === 503);
    console.log(`[security-limits] 500 idle upgrades without a token: ${accepted.length} let in, ${refused.length} refused with 503 ("${refused[0]?.response.split("\r\n\r\n")[1]?.trim()}")`);
    expect(accepted).toHaveLength(MAX_UNAUTHENTICATED);
    expect(refused).toHaveLength(500 - MAX_UNAUTHENTICATED);
    expect(refused[0]!.response).toMatch(/waiting to authenticate/);

    // Authenticated at the upgrade: not counted as waiting.
    const agent = await openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(agent.status).toBe(101);
    wires.push(agent.wire!);
    // One of the waiting ones authenticates with connect: its place is free for a new one without a token.
    const first = accepted[0]!.wire!;
    first.socket.write(frame(JSON.stringify({ type: "req", id: "c1", method: "connect", params: { token: TOKEN } })));
    await first.waitFor('"id":"c1","ok":true');
    const next = await openWire(gateway.wsUrl);
    expect(next.status).toBe(101);
    wires.push(next.wire!);
    expect((await openWire(gateway.wsUrl)).status).toBe(503);

    // Those that never authenticate are closed at the deadline (10 s), and their places come free.
    const waiting = [...accepted.slice(1).map((u) => u.wire!), next.wire!];
    const closedAfter = await Promise.all(waiting.map((wire) => wire.closed.then(() => Date.now() - opened)));
    expect(Math.max(...closedAfter)).toBeLessThan(16_000);
    expect(first.isClosed()).toBe(false);
    const again = await openWire(gateway.wsUrl);
    expect(again.status).toBe(101);
    wires.push(again.wire!);
  }, 60_000);

  it(`GATEWAY_MAX_CONNECTIONS=${MAX} caps every connection, authenticated ones too`, async () => {
    const open = wires.filter((w) => !w.isClosed()).length;
    const agents = await Promise.all(Array.from({ length: MAX - open }, () => openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } })));
    expect(agents.map((a) => a.status)).toEqual(agents.map(() => 101));
    wires.push(...agents.map((a) => a.wire!));
    const over = await openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(over.status).toBe(503);
    expect(over.response).toMatch(/GATEWAY_MAX_CONNECTIONS/);
    // One closes: one more may come in. The HTTP mirror is not capped.
    agents[0]!.wire!.socket.destroy();
    await agents[0]!.wire!.closed;
    await sleep(200);
    expect((await openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(101);
    expect(await rpcOk(gateway.url, "question.list", { limit: 1 })).toMatchObject({ questions: expect.any(Array) });
  }, 30_000);
});

describe("origin: /ws refuses upgrades from other web pages, cookie or not", () => {
  let gateway: ChildGateway;
  beforeAll(async () => {
    gateway = await startGatewayProcess();
  }, 60_000);
  afterAll(() => gateway?.kill());

  it.each<[string, (own: URL) => string]>([
    ["another site", () => "http://evil.example"],
    ["the same host on another port", (own) => `http://${own.hostname}:${Number(own.port) + 1}`],
    ["localhost for 127.0.0.1 (another origin to a browser)", (own) => `http://localhost:${own.port}`],
    ["null (a sandboxed frame or a file)", () => "null"],
    ["a non-web scheme", (own) => `chrome-extension://${own.host}`],
  ])("Origin: %s → 403, with or without a session cookie or even the token", async (_what, origin) => {
    const value = origin(new URL(gateway.url));
    const attempts: Array<Record<string, string>> = [{ origin: value }, { origin: value, cookie: "aub_session=v1.9999999999.AAAA" }, { origin: value, authorization: `Bearer ${TOKEN}` }];
    for (const headers of attempts) {
      const upgrade = await openWire(gateway.wsUrl, { headers });
      expect(upgrade.status, JSON.stringify(headers)).toBe(403);
    }
  });

  it.each<[string, (own: URL) => Record<string, string>]>([
    ["no Origin (agents, bots, the CLI)", () => ({})],
    ["the gateway's own origin (the Control UI)", (own) => ({ origin: own.origin })],
    ["its own host over https (TLS ended at a proxy)", (own) => ({ origin: `https://${own.host}` })],
  ])("%s → let in", async (_what, headers) => {
    const upgrade = await openWire(gateway.wsUrl, { headers: headers(new URL(gateway.url)) });
    expect(upgrade.status).toBe(101);
    upgrade.wire!.socket.destroy();
  });
});

describe("token guessing: backoff per address", () => {
  let gateway: ChildGateway;
  beforeAll(async () => {
    gateway = await startGatewayProcess();
  }, 60_000);
  afterAll(() => gateway?.kill());

  /** POST /rpc/question.list from a chosen source address, over a keep-alive agent. */
  function post(token: string, localAddress: string, agent?: Agent): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
    const url = new URL(gateway.url);
    return new Promise((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: "/rpc/question.list", method: "POST", localAddress, ...(agent ? { agent } : {}), headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } },
        (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"], body }));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
  }

  it("thousands of wrong tokens from one address are refused as locked out after the fifth; another address is unaffected; the right token is never refused", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const statuses: Record<number, number> = {};
    let sent = 0;
    const started = Date.now();
    // From 127.0.0.1: 3,000 wrong tokens over 32 connections, as fast as they go (the issue saw 8,064 in 3 s, all
    // checked), for 3 s at most so that the lockout stays short.
    const flood = Promise.all(
      Array.from({ length: 32 }, async () => {
        while (sent < 3_000 && Date.now() - started < 3_000) {
          sent++;
          const { status, retryAfter } = await post(WRONG_TOKEN, "127.0.0.1", agent);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status === 429) expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
        }
      }),
    );
    // Meanwhile from 127.0.0.2 (another loopback address): the right token works, a wrong one is checked (401).
    await sleep(500);
    const other = { right: await post(TOKEN, "127.0.0.2"), wrong: await post(WRONG_TOKEN, "127.0.0.2"), rightAgain: await post(TOKEN, "127.0.0.2") };
    const otherWs = new WebSocket(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` }, localAddress: "127.0.0.2" });
    await new Promise((resolve, reject) => otherWs.once("open", resolve).once("error", reject));
    otherWs.terminate();
    await flood;
    const floodMs = Date.now() - started;
    agent.destroy();
    console.log(`[security-limits] ${sent} wrong tokens from 127.0.0.1 in ${floodMs} ms: ${statuses[401] ?? 0} checked (401), ${statuses[429] ?? 0} refused as locked out (429); 127.0.0.2 meanwhile: ${other.right.status}, ${other.wrong.status}, ${other.rightAgain.status}`);
    expect(sent).toBeGreaterThan(500);
    expect(statuses[401]).toBeGreaterThanOrEqual(5);
    expect(statuses[401]).toBeLessThanOrEqual(8); // 5 free, then one each time a lockout (1 s, 2 s, …) runs out
    expect(statuses[429]).toBe(sent - statuses[401]!);
    expect([other.right.status, other.wrong.status, other.rightAgain.status]).toEqual([200, 401, 200]);

    // During the lockout, 127.0.0.1's wrong tokens are refused as locked out on every path, but the right token is
    // never refused (issue 37 §4: behind a proxy every client is 127.0.0.1). (First make sure at least 4 s of lockout
    // are left: when the flood's last one is about to run out, wait for it, and a wrong token then starts the next,
    // longer one.)
    let locked;
    for (;;) {
      locked = await post(WRONG_TOKEN, "127.0.0.1");
      if (locked.status === 429 && Number(locked.retryAfter) >= 4) break;
      if (locked.status === 429) await sleep(Number(locked.retryAfter) * 1000);
    }
    expect(JSON.parse(locked.body)).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED", message: expect.stringMatching(/too many wrong tokens/) } });
    expect((await post(TOKEN, "127.0.0.1")).status).toBe(200);
    // The right token cleared nothing: still locked out for wrong ones.
    expect((await post(WRONG_TOKEN, "127.0.0.1")).status).toBe(429);
    expect((await openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${WRONG_TOKEN}` } })).status).toBe(429);
    const rightUpgrade = await openWire(gateway.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(rightUpgrade.status).toBe(101);
    rightUpgrade.wire!.socket.destroy();
    for (const [id, token, answer] of [["c0", WRONG_TOKEN, /too many wrong tokens/], ["c1", TOKEN, /"ok":true/]] as const) {
      const { wire } = await openWire(gateway.wsUrl);
      wire!.socket.write(frame(JSON.stringify({ type: "req", id, method: "connect", params: { token } })));
      await wire!.waitFor(`"id":"${id}"`);
      expect(wire!.received().toString()).toMatch(answer);
      wire!.socket.destroy();
    }

    // Once the delay has passed, a wrong token is checked again (401, and starts the next lockout).
    await until(async () => (await post(WRONG_TOKEN, "127.0.0.1")).status === 401, "the lockout to pass", 40_000, 500);
    expect((await post(TOKEN, "127.0.0.1")).status).toBe(200);
  }, 60_000);

  it("wrong tokens in connect frames count too: the sixth wrong connect from that address is refused as locked out; the right token still connects", async () => {
    for (let i = 0; i < 5; i++) {
      const { wire } = await openWire(gateway.wsUrl, { localAddress: "127.0.0.3" });
      wire!.socket.write(frame(JSON.stringify({ type: "req", id: `w${i}`, method: "connect", params: { token: WRONG_TOKEN } })));
      await wire!.waitFor(`"id":"w${i}"`);
      expect(wire!.received().toString()).toContain("wrong or missing token");
      wire!.socket.destroy(); // (the gateway closes it too, but the lockout of 1 s must not pass while waiting)
    }
    const { wire } = await openWire(gateway.wsUrl, { localAddress: "127.0.0.3" });
    wire!.socket.write(frame(JSON.stringify({ type: "req", id: "sixth", method: "connect", params: { token: WRONG_TOKEN } })));
    await wire!.waitFor('"id":"sixth"');
    expect(wire!.received().toString()).toMatch(/too many wrong tokens from this address: try again in \d+ s/);
    expect((await openWire(gateway.wsUrl, { localAddress: "127.0.0.3", headers: { authorization: `Bearer ${WRONG_TOKEN}` } })).status).toBe(429);
    const right = await openWire(gateway.wsUrl, { localAddress: "127.0.0.3" });
    right.wire!.socket.write(frame(JSON.stringify({ type: "req", id: "right", method: "connect", params: { token: TOKEN } })));
    await right.wire!.waitFor('"id":"right"');
    expect(right.wire!.received().toString()).toContain('"ok":true');
    right.wire!.socket.destroy();
    // 127.0.0.1 is not affected by 127.0.0.3.
    expect((await post(TOKEN, "127.0.0.1")).status).toBe(200);
  }, 30_000);
});

describe("GATEWAY_TOKEN shorter than 32 characters", () => {
  it("stops the gateway at start, naming the variable and how to make a good token", async () => {
    const run = spawnCli(["gateway"], { GATEWAY_TOKEN: "a".repeat(31), GATEWAY_PORT: String(await freePort()), DATA_DIR: tempDir("aub-limits-") });
    const { code, stdout, stderr } = await run.exited;
    expect(code).not.toBe(0);
    expect(stdout).not.toMatch(/listening on/);
    expect(stderr).toMatch(/GATEWAY_TOKEN: must be at least 32 characters/);
    expect(stderr).toContain("openssl rand -hex 32");
  });

  it("32 characters are enough", async () => {
    const gateway = await startGatewayProcess({ GATEWAY_TOKEN: "b".repeat(32) });
    await gateway.kill();
  }, 60_000);
});
