/**
 * Security of the Control UI's sessions, as an attacker would try them (issue #17 §2 Host header, §7, §8):
 *
 * - DNS rebinding: a page on a name the attacker controls (evil.example), pointed at this machine, gets nothing,
 *   even with a valid session cookie: the cookie-authenticated page, `/rpc` and `/ws` answer only to `localhost`,
 *   `127.0.0.1` and `[::1]` at the gateway's port, and to GATEWAY_PUBLIC_URL's host. The bearer token is unaffected.
 * - Sessions: a random id per sign-in, kept on the server (sign-out ends it, also for open WebSockets), a cookie
 *   named after the port, 12 hours idle and 7 days at most; `?token=` never signs in.
 * - Question ids that are JavaScript property names (`constructor`, `prototype`, `length`, `name`) through the protocol.
 *
 * Most run against `ask-user-bridge gateway` as a child process (the defaults people get); the lifetimes and
 * GATEWAY_PUBLIC_URL use in-process gateways with a clock and a public URL handed to the Control UI.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startGateway, type RunningGateway } from "../../src/gateway/run.ts";
import { createControlUi, type ControlUiOptions } from "../../src/web/index.ts";
import { cleanup, freePort, gatewayConfig, rpcOk, sleep, spawnGateway, tempDir, TOKEN, type ChildGateway } from "../helpers/gateway.ts";

const HOUR = 60 * 60 * 1000;
const SECRET_QUESTION = "Top secret rebinding plan?";

interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One HTTP request with exactly these headers (fetch would not let a test set Host). */
function send(base: string, path: string, { method = "GET", headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const hostOf = (base: string) => new URL(base).host;
const portOf = (base: string) => Number(new URL(base).port);

/** Signs in with the form (as the page does) and returns the cookie pair to send back, e.g. `aub_session_8787=…`. */
async function signIn(base: string, host = hostOf(base)): Promise<{ cookie: string; setCookie: string }> {
  const res = await send(base, "/login", { method: "POST", headers: { ...FORM, host, origin: `http://${host}` }, body: `token=${TOKEN}` });
  expect(res.status).toBe(303);
  const setCookie = res.headers["set-cookie"]?.[0] ?? "";
  return { cookie: setCookie.split(";")[0]!, setCookie };
}

const rpcWith = (base: string, method: string, headers: Record<string, string>, params: unknown = {}) =>
  send(base, `/rpc/${method}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(params) });

/** A WebSocket with these headers: whether the upgrade went through, what a question.list got, and how it closed. */
function openWs(base: string, headers: Record<string, string>) {
  return new Promise<{ refused?: number; socket?: WebSocket; list?: Promise<any>; closed: Promise<number> }>((resolve) => {
    let closed!: (code: number) => void;
    const closedPromise = new Promise<number>((r) => (closed = r));
    const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws`, { headers });
    ws.on("close", (code) => closed(code));
    ws.once("unexpected-response", (_req, res) => {
      resolve({ refused: res.statusCode ?? 0, closed: closedPromise });
      ws.terminate();
    });
    ws.once("error", () => resolve({ refused: -1, closed: closedPromise }));
    ws.once("open", () => {
      const list = new Promise((r) => ws.once("message", (data) => r(JSON.parse(data.toString()))));
      ws.send(JSON.stringify({ type: "req", id: 1, method: "question.list", params: {} }));
      resolve({ socket: ws, list, closed: closedPromise });
    });
  });
}

async function inProcessGateway(ui: Omit<ControlUiOptions, "token"> = {}, port = 0): Promise<RunningGateway> {
  return startGateway(gatewayConfig(tempDir(), { GATEWAY_PORT: port }), { log: () => {}, webApp: (ctx) => createControlUi({ ...ctx, ...ui }) });
}

describe("the Control UI against rebinding and session attacks (gateway as a process)", () => {
  let gw: ChildGateway;
  let base: string;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    gw = await spawnGateway({ GATEWAY_PORT: String(port), DATA_DIR: tempDir("aub-websec-") });
    base = gw.url;
    await rpcOk(base, "question.request", { questions: [{ id: "plan", header: "Plan", question: SECRET_QUESTION, options: [{ label: "A" }, { label: "B" }] }], timeoutSeconds: 900 });
  }, 120_000);
  afterAll(async () => {
    await cleanup();
  });

  describe("DNS rebinding: a valid session cookie under a foreign Host gets nothing", () => {
    const EVIL = () => `evil.example:${port}`;

    it("the page, sign-in and sign-out answer 421 and set no cookie", async () => {
      const { cookie } = await signIn(base);
      for (const [method, path, body] of [["GET", "/", undefined], ["GET", "/ui/app.js", undefined], ["POST", "/login", `token=${TOKEN}`], ["POST", "/logout", ""]] as const) {
        const res = await send(base, path, { method, headers: { host: EVIL(), cookie, origin: `http://${EVIL()}`, ...FORM }, body });
        expect(res.status, `${method} ${path}`).toBe(421);
        expect(res.headers["set-cookie"]).toBeUndefined();
        expect(res.text).not.toContain(SECRET_QUESTION);
        expect(res.text).not.toContain("evil.example");
      }
      // The session was not touched by the refused sign-out.
      expect((await send(base, "/", { headers: { cookie } })).status).toBe(200);
    });

    it.each(["evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "127.0.0.1", "localhost", "192.168.1.5"])(
      "/rpc with the cookie and Host %s (at the port, or a wrong one) is refused, with no data",
      async (name) => {
        const { cookie } = await signIn(base);
        const hosts = name.includes("evil") || name.startsWith("192.") ? [`${name}:${port}`, name] : [`${name}:${port + 1}`, name];
        for (const host of hosts) {
          const res = await rpcWith(base, "question.list", { host, cookie, origin: `http://${host}` });
          expect(res.status, host).toBe(401);
          expect(res.text).not.toContain(SECRET_QUESTION);
        }
      },
    );

    it("/ws with the cookie and a foreign Host is never authenticated and gets no events", async () => {
      const { cookie } = await signIn(base);
      const ws = await openWs(base, { host: EVIL(), cookie, origin: `http://${EVIL()}` });
      if (ws.refused !== undefined) {
        expect([401, 403, 421]).toContain(ws.refused); // refusing the upgrade outright is fine too
        return;
      }
      expect(await ws.list).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
      await rpcOk(base, "question.request", { questions: [{ id: "plan", header: "Plan", question: `${SECRET_QUESTION} (event)`, options: [{ label: "A" }, { label: "B" }] }] });
      const frames: string[] = [];
      ws.socket!.on("message", (data) => frames.push(data.toString()));
      await sleep(300);
      expect(frames.join("\n")).not.toContain(SECRET_QUESTION);
      ws.socket!.terminate();
    });

    it("the gateway's own names at its port still work, and a bearer token works under any Host", async () => {
      const { cookie } = await signIn(base);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
        expect((await rpcWith(base, "question.list", { host, cookie, origin: `http://${host}` })).status, host).toBe(200);
        expect((await send(base, "/", { headers: { host, cookie } })).status, host).toBe(200);
      }
      const ws = await openWs(base, { host: `localhost:${port}`, cookie, origin: `http://localhost:${port}` });
      expect(await ws.list).toMatchObject({ ok: true });
      ws.socket!.terminate();
      const bearer = await rpcWith(base, "question.list", { host: `evil.example:${port}`, authorization: `Bearer ${TOKEN}` });
      expect(bearer.status).toBe(200);
    });
  });

  describe("sessions", () => {
    it("every sign-in, even at the same moment, gets its own random session id in a cookie named after the port", async () => {
      const signIns = await Promise.all(Array.from({ length: 8 }, () => signIn(base)));
      const values = signIns.map((s) => s.cookie.split("=")[1]!);
      expect(new Set(values).size).toBe(8);
      for (const { cookie, setCookie } of signIns) {
        expect(cookie).toMatch(new RegExp(`^aub_session_${port}=[A-Za-z0-9_-]{43}$`));
        expect(setCookie).toMatch(/; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/);
        expect(setCookie).not.toContain(TOKEN);
      }
      const secure = await send(base, "/login", { method: "POST", headers: { ...FORM, "x-forwarded-proto": "https" }, body: `token=${TOKEN}` });
      expect(secure.headers["set-cookie"]?.[0]).toMatch(/; Secure$/);
    });

    it("?token= in the address never signs in, right or wrong, and says why", async () => {
      for (const path of [`/?token=${TOKEN}`, `/?token=${"w".repeat(32)}`, `/?foo=1&token=${TOKEN}`]) {
        const res = await send(base, path);
        expect(res.status).toBe(401);
        expect(res.headers["set-cookie"]).toBeUndefined();
        expect(res.text).toContain("no longer signs in");
        expect(res.text).not.toContain(SECRET_QUESTION);
      }
    });

    it("sign-out ends the session on the server: the old cookie opens nothing, and its open WebSocket is closed", async () => {
      const { cookie } = await signIn(base);
      const { cookie: other } = await signIn(base);
      const ws = await openWs(base, { cookie, origin: base });
      expect(await ws.list).toMatchObject({ ok: true });

      // Another site cannot sign anyone out.
      for (const headers of [{ origin: "http://evil.example" }, { "sec-fetch-site": "cross-site" }] as Array<Record<string, string>>) {
        const forged = await send(base, "/logout", { method: "POST", headers: { ...FORM, cookie, ...headers }, body: "" });
        expect(forged.status).toBe(403);
        expect(forged.headers["set-cookie"]).toBeUndefined();
      }
      expect((await send(base, "/", { headers: { cookie } })).status).toBe(200);

      const out = await send(base, "/logout", { method: "POST", headers: { ...FORM, cookie, origin: base, "sec-fetch-site": "same-origin" }, body: "" });
      expect(out.status).toBe(303);
      expect(out.headers.location).toBe("/");
      expect(out.headers["set-cookie"]?.[0]).toBe(`aub_session_${port}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`);
      expect(await ws.closed).not.toBe(1000);
      const page = await send(base, "/", { headers: { cookie } });
      expect(page.status).toBe(401);
      expect(page.text).not.toContain(SECRET_QUESTION);
      expect((await rpcWith(base, "question.list", { cookie })).status).toBe(401);
      const again = await openWs(base, { cookie, origin: base });
      if (again.refused === undefined) {
        expect(await again.list).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
        again.socket!.terminate();
      }
      // Only that session ended.
      expect((await rpcWith(base, "question.list", { cookie: other })).status).toBe(200);
    });

    it("a cookie from the gateway on another port (same host, same token) opens nothing here", async () => {
      const neighbour = await inProcessGateway();
      try {
        const theirs = await signIn(neighbour.url);
        expect(theirs.cookie.startsWith(`aub_session_${portOf(neighbour.url)}=`)).toBe(true);
        const value = theirs.cookie.split("=")[1]!;
        // The browser sends both gateways' cookies to either port: each must only know its own.
        for (const cookie of [theirs.cookie, `aub_session_${port}=${value}`, `aub_session=${value}`]) {
          expect((await send(base, "/", { headers: { cookie } })).status, cookie).toBe(401);
          expect((await rpcWith(base, "question.list", { cookie })).status, cookie).toBe(401);
        }
        expect((await rpcWith(neighbour.url, "question.list", { cookie: theirs.cookie })).status).toBe(200);
      } finally {
        await neighbour.close();
      }
    });
  });

  describe("question ids that are JavaScript property names, through the protocol", () => {
    const byId = (id: string, multiSelect = false) => ({ id, header: id, question: `Which for ${id}?`, multiSelect, options: [{ label: "Yes" }, { label: "No" }] });

    it("a partial typed reply leaves `constructor` open, holds the rest, and the next reply completes it", async () => {
      const { id } = await rpcOk(base, "question.request", { questions: [byId("prototype"), byId("constructor"), byId("length", true)] });
      const partial = await rpcOk(base, "question.reply", { id, text: "1: yes" });
      expect(partial).toMatchObject({ kind: "partial", missing: ["constructor", "length"], record: { partialAnswers: { prototype: ["Yes"] } } });
      expect(Object.keys(partial.readAs)).toEqual(["prototype"]);
      // Numbers keep their first meaning after a partial answer (issue 18): question 1 is answered, 2 and 3 are open.
      const done = await rpcOk(base, "question.reply", { id, text: "2: no\n3: yes, no" });
      expect(done).toMatchObject({ kind: "answered", record: { status: "answered", answers: { prototype: ["Yes"], constructor: ["No"], length: ["Yes", "No"] } } });
    });

    it("question.resolve takes them, and an answer missing `constructor` or `name` is refused rather than filled in", async () => {
      const { id } = await rpcOk(base, "question.request", { questions: [byId("constructor"), byId("name"), byId("length")] });
      const missing = await rpcWith(base, "question.resolve", { authorization: `Bearer ${TOKEN}` }, { id, answers: { length: ["Yes"] } });
      expect(missing.status).toBe(422);
      expect(JSON.parse(missing.text).error.issues.map((i: { path: string }) => i.path)).toEqual(["answers.constructor", "answers.name"]);
      const record = await rpcOk(base, "question.resolve", { id, answers: { constructor: "yes", name: ["No"], length: "no" } });
      expect(record.answers).toEqual({ constructor: ["Yes"], name: ["No"], length: ["No"] });
    });
  });
});

describe("sign-in guessing (gateway as a process)", () => {
  it("backs off wrong tokens on the sign-in form per address, as it does every other token check; a right one signs in throughout", async () => {
    const port = await freePort();
    const gateway = await spawnGateway({ GATEWAY_PORT: String(port), DATA_DIR: tempDir("aub-websec-guess-") });
    const base = gateway.url;
    const guess = (token: string) =>
      send(base, "/login", { method: "POST", headers: { ...FORM, host: hostOf(base), origin: base }, body: `token=${token}` });
    for (let i = 0; i < 5; i++) expect((await guess(`wrong-${i}`.padEnd(40, "x"))).status).not.toBe(303);
    // Locked out now for wrong tokens, on the form and on the protocol alike; the right token is never refused
    // (issue 37 §4).
    const locked = await guess("wrong-5".padEnd(40, "x"));
    expect(locked.status).not.toBe(303);
    expect(locked.text).toContain("Too many wrong tokens from this address");
    expect((await rpcWith(base, "question.list", { authorization: `Bearer ${"wrong-6".padEnd(40, "x")}` })).status).toBe(429);
    expect((await rpcWith(base, "question.list", { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await guess(TOKEN)).status).toBe(303);
    await sleep(1_100);
    expect((await guess("wrong-7".padEnd(40, "x"))).text).not.toContain("Too many wrong tokens");
    await gateway.kill("SIGTERM");
  });
});

describe("the Control UI with GATEWAY_PUBLIC_URL and a clock (in process)", () => {
  let clock = 1_800_000_000_000;
  let gw: RunningGateway;
  let base: string;
  beforeAll(async () => {
    gw = await inProcessGateway({ publicUrl: "https://aub.example.com", now: () => clock });
    base = gw.url;
  });
  afterAll(async () => {
    await gw?.close();
    await cleanup();
  });

  it("answers to the public URL's host (with or without its default port) besides its own names, and to nothing else", async () => {
    const { cookie } = await signIn(base, "aub.example.com");
    for (const host of ["aub.example.com", "aub.example.com:443", hostOf(base), `localhost:${portOf(base)}`]) {
      expect((await send(base, "/", { headers: { host, cookie } })).status, host).toBe(200);
      expect((await rpcWith(base, "question.list", { host, cookie })).status, host).toBe(200);
    }
    for (const host of ["evil.example", "aub.example.com.evil.example", `aub.example.com:${portOf(base)}`, "example.com"]) {
      const page = await send(base, "/", { headers: { host, cookie } });
      expect(page.status, host).toBe(421);
      expect(page.text).toContain("GATEWAY_PUBLIC_URL");
      expect((await rpcWith(base, "question.list", { host, cookie, origin: `https://${host}` })).status, host).toBe(401);
    }
  });

  it("a session slides with use up to 12 hours idle, and ends after 7 days however much it is used", async () => {
    const start = clock;
    const { cookie } = await signIn(base);
    const page = async () => (await send(base, "/", { headers: { cookie } })).status;
    for (let used = 0; used < 15; used++) {
      clock += 11 * HOUR;
      expect(await page(), `after ${(used + 1) * 11} h`).toBe(200);
    }
    clock = start + 7 * 24 * HOUR - 1;
    expect(await page()).toBe(200);
    clock = start + 7 * 24 * HOUR;
    expect(await page()).toBe(401);

    const { cookie: idle } = await signIn(base);
    clock += 12 * HOUR - 1;
    expect((await rpcWith(base, "question.list", { cookie: idle })).status).toBe(200);
    clock += 12 * HOUR;
    expect((await rpcWith(base, "question.list", { cookie: idle })).status).toBe(401);
    expect((await send(base, "/", { headers: { cookie: idle } })).status).toBe(401);
  });
});
