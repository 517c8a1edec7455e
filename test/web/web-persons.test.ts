/**
 * People on the web (issue 29 §1), against a real gateway process and the real CLI: a person's token from
 * `token create --role person --name alice`, signed in to the Control UI (POST /login) or used as a bearer token,
 * sees only the questions sent to `web` or `web:alice`, answers as alice, and is cut off when revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { SCOPED_TOKEN_PATTERN } from "../../src/gateway/auth/principal.ts";
import { summarizeRecord } from "../../src/render/summary.ts";
import { call, send, signIn, until } from "../helpers/web-http.ts";
import { cleanup, freePort, rpc, spawnCli, spawnGateway, tempDir, TOKEN, type ChildGateway } from "../helpers/gateway.ts";

const ask = (question: string, targets: unknown[]) =>
  rpc(gateway.url, "question.request", { questions: [{ id: "pick", header: "Pick", question, options: [{ label: "Yes" }, { label: "No" }] }], targets, timeoutSeconds: 600 });

let gateway: ChildGateway;
let dataDir: string;
let port: number;
let env: Record<string, string>;
const ids: Record<string, string> = {};

/** `token create --role person --name NAME` with the gateway's .env: its stdout lines, stderr and exit code. */
async function createPerson(name: string, extraEnv: Record<string, string> = {}) {
  const { code, stdout, stderr } = await spawnCli(["token", "create", "--role", "person", "--name", name], { ...env, ...extraEnv }).exited;
  return { code, lines: stdout.trim().split("\n"), stderr };
}

beforeAll(async () => {
  dataDir = tempDir("aub-persons-");
  port = await freePort();
  env = { DATA_DIR: dataDir, GATEWAY_PORT: String(port), GATEWAY_TOKEN: TOKEN };
  gateway = await spawnGateway(env);
  for (const [key, targets] of Object.entries({ anyone: [{ surface: "web" }], alice: [{ surface: "web", users: ["alice"] }], bob: [{ surface: "web", users: ["bob"] }], chat: [{ surface: "telegram", chat: "42" }], both: [{ surface: "telegram", chat: "42" }, { surface: "web", users: ["bob", "alice"] }] })) {
    const { body } = await ask(`For ${key}?`, targets);
    if (!body.ok) throw new Error(JSON.stringify(body));
    ids[key] = body.payload.id;
  }
}, 90_000);

afterAll(async () => {
  await cleanup();
});

describe("token create --role person", () => {
  it("prints the token, then its sign-in link at the gateway's address (or GATEWAY_PUBLIC_URL)", async () => {
    const { code, lines, stderr } = await createPerson("carol");
    expect(code).toBe(0);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(SCOPED_TOKEN_PATTERN);
    expect(lines[1]).toBe(`http://127.0.0.1:${port}/#token=${lines[0]}`);
    expect(stderr).toContain("Created person credential");
    const behind = await createPerson("dave", { GATEWAY_PUBLIC_URL: "https://aub.example.com" });
    expect(behind.lines[1]).toBe(`https://aub.example.com/#token=${behind.lines[0]}`);
    const list = await spawnCli(["token", "list"], env).exited;
    expect(list.stdout).toMatch(/person\s+carol/);
  });

  it("needs --name, takes it lowercased, and refuses names a web:NAME target could not name", async () => {
    const missing = await spawnCli(["token", "create", "--role", "person"], env).exited;
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("needs the person's name");
    const upper = await createPerson("Erin");
    expect(upper.code).toBe(0);
    expect((await spawnCli(["token", "list", "--json"], env).exited).stdout).toContain('"name": "erin"');
    for (const odd of ["", " ", "alice smith", "../alice", "<script>", "-alice", "al:ice", "al+ice", "al,ice", "ü", "a".repeat(65)]) {
      const refused = await spawnCli(["token", "create", "--role", "person", "--name", odd], env).exited;
      expect(refused.code, JSON.stringify(odd)).toBe(1);
      expect(refused.stdout, JSON.stringify(odd)).toBe("");
    }
  });
});

describe("a person's view", () => {
  let alice: string;
  let aliceCookie: string;
  beforeAll(async () => {
    alice = (await createPerson("alice")).lines[0]!;
    const signedIn = await signIn(gateway.url, alice);
    expect(signedIn.res.status).toBe(303);
    aliceCookie = signedIn.cookie!;
  });

  it("signs in with the form exactly as the admin does, and gets the page", async () => {
    expect(aliceCookie).toMatch(new RegExp(`^aub_session_${port}=[A-Za-z0-9_-]{43}$`));
    expect((await send(gateway.url, "/", { headers: { cookie: aliceCookie } })).status).toBe(200);
  });

  it.each(["cookie", "bearer"] as const)("lists only web and web:alice questions (%s), and finds no other", async (how) => {
    const auth = how === "cookie" ? { cookie: aliceCookie } : { bearer: alice };
    const listed = await call(gateway.url, "question.list", {}, auth);
    expect(listed.status).toBe(200);
    expect(listed.body.payload.questions.map((q: { id: string }) => q.id).sort()).toEqual([ids.anyone, ids.alice, ids.both].sort());
    // Paging never comes up short for other people's questions skipped in between.
    const firstPage = await call(gateway.url, "question.list", { limit: 1 }, auth);
    expect(firstPage.body.payload.questions).toHaveLength(1);
    const next = await call(gateway.url, "question.list", { limit: 5, cursor: firstPage.body.payload.nextCursor }, auth);
    expect(next.body.payload.questions).toHaveLength(2);
    for (const other of [ids.bob, ids.chat, "no-such-id"]) {
      for (const [method, params] of [["question.get", { id: other }], ["question.waitAnswer", { id: other, timeoutMs: 1 }], ["question.resolve", { id: other, answers: { pick: "Yes" } }], ["question.reply", { id: other, text: "1" }]] as const) {
        const refused = await call(gateway.url, method, params, auth);
        expect([method, refused.status, refused.body.error?.code]).toEqual([method, 404, "QUESTION_NOT_FOUND"]);
      }
    }
    expect((await call(gateway.url, "question.get", { id: ids.alice }, auth)).status).toBe(200);
    // Methods the web may not use, a person may not either.
    const asked = await call(gateway.url, "question.request", { questions: [{ id: "x", header: "X", question: "X?", options: [{ label: "A" }, { label: "B" }] }] }, auth);
    expect([asked.status, asked.body.error.code]).toEqual([403, "FORBIDDEN"]);
  });

  it("answers as alice, whatever `by` it claims, and every summary says so", async () => {
    const claimed = { surface: "telegram", user: "mallory", userName: "Mallory", via: "button" };
    const answered = await call(gateway.url, "question.resolve", { id: ids.alice, answers: { pick: "Yes" }, by: claimed }, { cookie: aliceCookie });
    expect(answered.status).toBe(200);
    expect(answered.body.payload.by).toEqual({ surface: "web", user: "alice", userName: "alice", via: "web" });
    expect(summarizeRecord(answered.body.payload)!.text).toBe("Answered on the web by alice");
    const replied = await call(gateway.url, "question.reply", { id: ids.anyone, text: "no" }, { bearer: alice });
    expect(replied.body.payload.record.by).toEqual({ surface: "web", user: "alice", userName: "alice", via: "web" });
    // The CLI's record shows it too.
    const got = await spawnCli(["get", ids.alice!], { ...env, GATEWAY_URL: gateway.url }).exited;
    expect(JSON.parse(got.stdout).by).toMatchObject({ surface: "web", user: "alice" });
  });

  it("receives events only for its own questions on its WebSocket", async () => {
    const ws = new WebSocket(gateway.wsUrl, { headers: { cookie: aliceCookie, origin: gateway.url } });
    const events: Array<{ event: string; payload: { id: string } }> = [];
    ws.on("message", (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === "event") events.push(frame);
    });
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    const mine = ((await ask("New for alice?", [{ surface: "web", users: ["alice"] }])).body as any).payload.id;
    const theirs = ((await ask("New for bob?", [{ surface: "web", users: ["bob"] }])).body as any).payload.id;
    await until(async () => events.some((e) => e.payload.id === mine), "alice's event");
    await rpc(gateway.url, "question.resolve", { id: theirs, cancel: true });
    await rpc(gateway.url, "question.resolve", { id: mine, cancel: true });
    await until(async () => events.filter((e) => e.payload.id === mine).length >= 2, "the cancellation's event");
    expect(events.some((e) => e.payload.id === theirs)).toBe(false);
    ws.close();
  });

  it("the admin's session keeps seeing everything", async () => {
    const admin = await signIn(gateway.url, TOKEN);
    const listed = await call(gateway.url, "question.list", {}, { cookie: admin.cookie! });
    const seen = listed.body.payload.questions.map((q: { id: string }) => q.id);
    for (const id of Object.values(ids)) expect(seen).toContain(id);
  });

  it("revoking alice's token ends her sessions and closes her sockets, everywhere", async () => {
    const bob = (await createPerson("bob")).lines[0]!;
    const bobCookie = (await signIn(gateway.url, bob)).cookie!;
    const another = (await signIn(gateway.url, alice)).cookie!;
    const ws = new WebSocket(gateway.wsUrl, { headers: { cookie: another, origin: gateway.url } });
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    const revoked = await spawnCli(["token", "revoke", "alice"], env).exited;
    expect(revoked.code).toBe(0);
    await until(async () => (await call(gateway.url, "question.list", {}, { cookie: aliceCookie })).status === 401, "alice's session to end");
    // Each instance's answer about a session or a token is at most about a second old.
    await until(async () => (await call(gateway.url, "question.list", {}, { cookie: another })).status === 401, "her other session to end");
    await until(async () => (await call(gateway.url, "question.list", {}, { bearer: alice })).status === 401, "her token to be refused");
    expect((await send(gateway.url, "/", { headers: { cookie: aliceCookie } })).status).toBe(401);
    expect(await closed).not.toBe(1000);
    const again = await signIn(gateway.url, alice);
    expect(again.cookie).toBeUndefined();
    expect(again.res.text).toContain("revoked");
    // Bob is not affected.
    expect((await call(gateway.url, "question.list", {}, { cookie: bobCookie })).status).toBe(200);
  });
});

describe("hostile input", () => {
  it("forged, garbage and other people's-shaped session cookies open nothing", async () => {
    const name = `aub_session_${port}`;
    for (const value of ["", "x", "A".repeat(43), "a".repeat(42) + "=", "%00".repeat(20), "A".repeat(4000), "../../etc/passwd", `${"A".repeat(43)}; ${name}=${"B".repeat(43)}`]) {
      const cookie = `${name}=${value}`;
      expect((await send(gateway.url, "/", { headers: { cookie } })).status, value.slice(0, 20)).toBe(401);
      expect((await call(gateway.url, "question.list", {}, { cookie })).status, value.slice(0, 20)).toBe(401);
    }
  });

  it("refuses web targets with an empty or invalid name, through the protocol and the CLI", async () => {
    for (const users of [[""], ["Alice"], ["alice smith"], ["<b>"], ["a".repeat(65)], ["al:ice"]]) {
      const { body } = await ask("Bad?", [{ surface: "web", users }]);
      expect(body.ok, JSON.stringify(users)).toBe(false);
      expect(body.ok === false && body.error.code).toBe("INVALID_PARAMS");
      if (users[0] !== "") expect(JSON.stringify(body)).toContain("a web target's users are people's names");
    }
    for (const to of ["web:", "web:alice smith", "web:<b>", "web:+", "web:alice+"]) {
      const run = await spawnCli(["ask", "--to", to, "--question", "Q?", "--option", "A", "--option", "B"], { ...env, GATEWAY_URL: gateway.url }).exited;
      expect(run.code, to).toBe(1);
      expect(run.stderr, to).toContain("web:NAME");
    }
  });

  it("an agent's token does not sign in to the Control UI, and says why", async () => {
    const agent = (await spawnCli(["token", "create", "--role", "agent", "--name", "ci"], env).exited).stdout.trim();
    const res = await signIn(gateway.url, agent);
    expect(res.cookie).toBeUndefined();
    expect(res.res.status).toBe(401);
    expect(res.res.text).toContain("agent");
  });
});
