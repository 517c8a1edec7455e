/**
 * Sign-ins that every instance knows (issue 30 §2): Control UI sessions live in the store. Two gateway processes on
 * one PostgreSQL database behind one address (GATEWAY_PUBLIC_URL, each on its own port): a sign-in on A works on B,
 * survives a restart of both, and a sign-out on A ends it on B (HTTP 401, and B's open WebSocket closes). On SQLite,
 * a sign-in survives the gateway's restart.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.ts";
import { cleanup, freePort, spawnCli, spawnGateway, tempDir, TOKEN, type ChildGateway } from "../helpers/gateway.ts";
import { call, FORM, send, signIn, until } from "../helpers/web-http.ts";

const PUBLIC = "http://aub.example.test:8443";
/** What a load balancer in front of the instances sends them. */
const VIA_BALANCER = { host: "aub.example.test:8443" };

/** A WebSocket to `/ws` with this cookie; resolves once it is open, with a promise of its close code. */
async function openWs(gateway: ChildGateway, cookie: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(gateway.wsUrl, { headers: { cookie, origin: PUBLIC, ...headers } });
  const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  const first = new Promise<any>((resolve) => ws.once("message", (data) => resolve(JSON.parse(data.toString()))));
  ws.send(JSON.stringify({ type: "req", id: 1, method: "question.list", params: {} }));
  return { ws, closed, first };
}

const listVia = (gateway: ChildGateway, cookie: string) => call(gateway.url, "question.list", {}, { cookie }, { ...VIA_BALANCER, origin: PUBLIC });
const pageVia = (gateway: ChildGateway, cookie: string) => send(gateway.url, "/", { headers: { cookie, ...VIA_BALANCER } });

afterAll(async () => {
  await cleanup();
});

describe("two instances on one PostgreSQL database", () => {
  let db: TestDatabase;
  let ports: number[];
  let env: (port: number) => Record<string, string>;
  let a: ChildGateway;
  let b: ChildGateway;
  const start = () => Promise.all(ports.map((port) => spawnGateway(env(port))));

  beforeAll(async () => {
    db = await createTestDatabase();
    ports = [await freePort(), await freePort()];
    env = (port) => ({ DATABASE_URL: db.url, GATEWAY_PORT: String(port), GATEWAY_PUBLIC_URL: PUBLIC, DATA_DIR: tempDir("aub-shared-") });
    [a, b] = (await start()) as [ChildGateway, ChildGateway];
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await db?.drop();
  });

  it("a sign-in on A works on B, survives a restart of both, and a sign-out on A ends it on B", async () => {
    const { cookie } = await signIn(a.url, TOKEN, { ...VIA_BALANCER, origin: PUBLIC });
    expect(cookie).toMatch(/^aub_session_8443=[A-Za-z0-9_-]{43}$/);
    expect((await pageVia(b, cookie!)).status).toBe(200);
    expect((await listVia(b, cookie!)).status).toBe(200);

    await Promise.all([a.kill(), b.kill()]);
    [a, b] = (await start()) as [ChildGateway, ChildGateway];
    expect((await pageVia(a, cookie!)).status).toBe(200);
    expect((await listVia(b, cookie!)).status).toBe(200);
    const onB = await openWs(b, cookie!, VIA_BALANCER);
    expect(await onB.first).toMatchObject({ ok: true });

    const out = await send(a.url, "/logout", { method: "POST", headers: { ...FORM, cookie: cookie!, ...VIA_BALANCER, origin: PUBLIC, "sec-fetch-site": "same-origin" }, body: "" });
    expect(out.status).toBe(303);
    expect((await listVia(a, cookie!)).status).toBe(401);
    await until(async () => (await listVia(b, cookie!)).status === 401, "B to refuse the signed-out session");
    expect((await pageVia(b, cookie!)).status).toBe(401);
    expect(await onB.closed).not.toBe(1000);
  });

  it("a person signed in on A is that person on B, and revoking the token ends it on both", async () => {
    const created = await spawnCli(["token", "create", "--role", "person", "--name", "alice"], env(ports[0]!)).exited;
    const [token, link] = created.stdout.trim().split("\n");
    expect(link).toBe(`${PUBLIC}/#token=${token}`);
    const { cookie } = await signIn(a.url, token!, { ...VIA_BALANCER, origin: PUBLIC });
    const onB = await openWs(b, cookie!, VIA_BALANCER);
    expect(await onB.first).toMatchObject({ ok: true, payload: { questions: [] } });
    const asked = await call(a.url, "question.request", { questions: [{ id: "go", header: "Go", question: "Go?", options: [{ label: "Yes" }, { label: "No" }] }], targets: [{ surface: "web", users: ["alice"] }] }, { bearer: TOKEN });
    const answered = await call(b.url, "question.resolve", { id: asked.body.payload.id, answers: { go: "Yes" } }, { cookie: cookie! }, { ...VIA_BALANCER, origin: PUBLIC });
    expect(answered.body.payload.by).toMatchObject({ surface: "web", user: "alice" });
    expect((await spawnCli(["token", "revoke", "alice"], env(ports[0]!)).exited).code).toBe(0);
    await until(async () => (await listVia(a, cookie!)).status === 401 && (await listVia(b, cookie!)).status === 401, "both instances to refuse alice");
    expect(await onB.closed).not.toBe(1000);
  });

  it("the store keeps only a hash of the session id", async () => {
    const { cookie } = await signIn(a.url, TOKEN, { ...VIA_BALANCER, origin: PUBLIC });
    const id = cookie!.split("=")[1]!;
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT * FROM ask_user_bridge_sessions");
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(id);
      expect(JSON.stringify(rows)).not.toContain(TOKEN);
    } finally {
      await client.end();
    }
  });
});

describe("SQLite", () => {
  it("a sign-in survives the gateway's restart, and a sign-out after it ends it", async () => {
    const port = await freePort();
    const env = { DATA_DIR: tempDir("aub-sqlite-sessions-"), GATEWAY_PORT: String(port) };
    let gateway = await spawnGateway(env);
    try {
      const { cookie } = await signIn(gateway.url, TOKEN);
      expect((await call(gateway.url, "question.list", {}, { cookie: cookie! })).status).toBe(200);
      await gateway.kill();
      gateway = await spawnGateway(env);
      expect((await send(gateway.url, "/", { headers: { cookie: cookie! } })).status).toBe(200);
      expect((await call(gateway.url, "question.list", {}, { cookie: cookie! })).status).toBe(200);
      await send(gateway.url, "/logout", { method: "POST", headers: { ...FORM, cookie: cookie!, origin: gateway.url }, body: "" });
      expect((await call(gateway.url, "question.list", {}, { cookie: cookie! })).status).toBe(401);
      // A new GATEWAY_TOKEN ends the admin's sessions made with the old one.
      const { cookie: second } = await signIn(gateway.url, TOKEN);
      await gateway.kill();
      gateway = await spawnGateway({ ...env, GATEWAY_TOKEN: "n".repeat(32) });
      expect((await call(gateway.url, "question.list", {}, { cookie: second! })).status).toBe(401);
    } finally {
      await gateway.kill();
    }
  }, 60_000);
});
