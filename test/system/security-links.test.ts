/**
 * Issue 37 §1, §2 and §8, against a real `ask-user-bridge gateway` process and tokens made by `token create`. Each
 * block reproduces an attack, and checks it now fails:
 * 1. a `person` credential was given every target's answer link (and chat and user ids) on a question it may see, and
 *    answered through `web:bob`'s link, recorded as bob;
 * 2. an `agent` credential, refused question.resolve, was given the links of its own questions (always for e-mail
 *    targets) and could answer through them as the person; an approval's never, on any method or event;
 * 8. a bot answering as a listed user named any chat (`by.chat`) and any display name (`by.userName`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalInput } from "../../src/coding-agents/approval.ts";
import { cleanup, freePort, oneQuestion, RawWs, rpc, rpcOk, spawnCli, spawnGateway, tempDir, type ChildGateway, type ResFrame } from "../helpers/gateway.ts";

type Link = { target: string; url: string };

let gateway: ChildGateway;
let env: Record<string, string>;

async function createToken(role: string, name: string): Promise<string> {
  const created = await spawnCli(["token", "create", "--role", role, "--name", name], env).exited;
  expect(created.code, created.stderr).toBe(0);
  // A person's token is followed by its sign-in link.
  return created.stdout.trim().split("\n")[0]!;
}

const ok = (res: { body: ResFrame }) => {
  if (!res.body.ok) throw new Error(`${res.body.error.code}: ${res.body.error.message}`);
  return res.body.payload;
};
const call = (method: string, params: unknown, token: string) => rpc(gateway.url, method, params, { token });

/** A browser answering through a link: GET the page (its CSRF token and cookie), then POST the first option. */
async function answerThrough(url: string, questionId = "deploy_target"): Promise<number> {
  const page = await fetch(url);
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const cookie = page.headers.get("set-cookie")?.split(";")[0] ?? "";
  const body = new URLSearchParams({ csrf, [`a:${questionId}`]: "0" });
  const res = await fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, "sec-fetch-site": "same-origin" }, body });
  return res.status;
}

beforeAll(async () => {
  const port = await freePort();
  // GATEWAY_PUBLIC_URL: an approval's chat targets get links too (they can reach a phone).
  env = { DATA_DIR: tempDir("aub-links-sec-"), GATEWAY_PORT: String(port), GATEWAY_PUBLIC_URL: `http://127.0.0.1:${port}` };
  gateway = await spawnGateway(env);
}, 60_000);

afterAll(cleanup);

describe("§1 a person is shown only its own link, and no other target's ids", () => {
  const targets = [{ surface: "web" }, { surface: "web", users: ["alice"] }, { surface: "web", users: ["bob"] }, { surface: "telegram", chat: "42", users: ["77"] }, { surface: "email", chat: "ops@example.com" }];
  /** What alice must never be shown: bob's name, the chat's and its user's ids, the e-mail address. */
  const others = ["bob", "42", "77", "ops@example.com"];
  const leaks = (payload: unknown) => others.filter((id) => JSON.stringify(payload).includes(`"${id}"`) || JSON.stringify(payload).includes(`:${id}`));

  it("on get, list, waitAnswer and events; its own link answers as itself, and bob's is nowhere to be used", async () => {
    const alice = await createToken("person", "alice");
    const ws = await RawWs.open(gateway.wsUrl, { bearer: alice });
    try {
      const asked = await rpcOk(gateway.url, "question.request", oneQuestion({ targets, links: true }));
      // The admin sees all five links: there is something to hide.
      expect(asked.links.map((l: Link) => l.target)).toEqual(["web", "web:alice", "web:bob", "telegram:42:77", "email:ops@example.com"]);
      const got = ok(await call("question.get", { id: asked.id }, alice));
      expect(got.links.map((l: Link) => l.target)).toEqual(["web", "web:alice"]);
      expect(got.targets).toEqual([{ surface: "web" }, { surface: "web", users: ["alice"] }]);
      expect(leaks(got)).toEqual([]);
      const listed = ok(await call("question.list", { status: "pending" }, alice)).questions.find((r: { id: string }) => r.id === asked.id);
      expect(listed.links.map((l: Link) => l.target)).toEqual(["web", "web:alice"]);
      expect(leaks(listed)).toEqual([]);
      const event = await ws.waitFor(() => ws.events.find((e) => e.event === "question.requested" && e.payload.id === asked.id), 5_000, "question.requested");
      expect(event.payload.links.map((l: Link) => l.target)).toEqual(["web", "web:alice"]);
      expect(leaks(event.payload)).toEqual([]);

      // Her own link answers as her.
      expect(await answerThrough(got.links[1].url)).toBe(303);
      const answered = await rpcOk(gateway.url, "question.get", { id: asked.id });
      expect(answered.by).toEqual({ surface: "web", user: "alice", via: "web" });
      const resolved = await ws.waitFor(() => ws.events.find((e) => e.event === "question.resolved" && e.payload.id === asked.id), 5_000, "question.resolved");
      expect(leaks(resolved.payload)).toEqual([]);
    } finally {
      ws.close();
    }
  });

  it("an answer from a chat shows her who answered (its name), not the chat's or the user's id", async () => {
    const alice = await createToken("person", "alice2");
    const asked = await rpcOk(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "web", users: ["alice2"] }, { surface: "telegram", chat: "42", users: ["77"] }] }));
    await rpcOk(gateway.url, "question.resolve", { id: asked.id, answers: { deploy_target: "Production" }, by: { surface: "telegram", chat: "42", user: "77", userName: "Tim", via: "button" } });
    const got = ok(await call("question.get", { id: asked.id }, alice));
    expect(got.by).toEqual({ surface: "telegram", userName: "Tim", via: "button" });
    const waited = ok(await call("question.waitAnswer", { id: asked.id, timeoutMs: 0 }, alice));
    expect(waited.answeredBy).toEqual({ surface: "telegram", via: "button" });
    expect(leaks(waited)).toEqual([]);
  });
});

describe("§2 an asking credential never gets an approval's links, and others' only with links: true", () => {
  let agent: string;
  let ws: RawWs;
  beforeAll(async () => {
    agent = await createToken("agent", "links-agent");
    ws = await RawWs.open(gateway.wsUrl, { bearer: agent });
  });
  afterAll(() => ws.close());

  /** Every way the agent reads a question: the request's response, get, list, the wait outcome, and its events. */
  async function linksSeen(asked: { id: string; links?: Link[] }, answer?: () => Promise<void>): Promise<Array<Link[] | undefined>> {
    const seen: Array<Link[] | undefined> = [asked.links];
    seen.push(ok(await call("question.get", { id: asked.id }, agent)).links);
    seen.push(ok(await call("question.list", {}, agent)).questions.find((r: { id: string }) => r.id === asked.id).links);
    seen.push((await ws.waitFor(() => ws.events.find((e) => e.event === "question.requested" && e.payload.id === asked.id), 5_000, "question.requested")).payload.links);
    if (answer) {
      await answer();
      seen.push(ok(await call("question.waitAnswer", { id: asked.id, timeoutMs: 5_000 }, agent)).record.links);
      seen.push((await ws.waitFor(() => ws.events.find((e) => e.event === "question.resolved" && e.payload.id === asked.id), 5_000, "question.resolved")).payload.links);
    }
    return seen;
  }

  it("an approval (requireApproval's, the hook's, approve_tool_use's input) to e-mail and a chat, even asked with links: true", async () => {
    const approval = approvalInput({ action: "run rm -rf build", details: "rm -rf build" });
    for (const links of [false, true]) {
      const asked = ok(await call("question.request", { ...approval, targets: [{ surface: "email", chat: "ops@example.com" }, { surface: "telegram", chat: "42" }], ...(links ? { links } : {}) }, agent));
      // The admin sees the links the agent could have answered through.
      expect((await rpcOk(gateway.url, "question.get", { id: asked.id })).links).toHaveLength(2);
      const seen = await linksSeen(asked, async () => void (await rpcOk(gateway.url, "question.resolve", { id: asked.id, answers: { approval: ["Deny"] }, by: { surface: "web", via: "web" } })));
      expect(seen).toEqual(seen.map(() => undefined));
    }
    // And it still may not answer one itself.
    const asked = ok(await call("question.request", { ...approval, targets: [{ surface: "web" }] }, agent));
    const own = await call("question.resolve", { id: asked.id, answers: { approval: ["Allow"] } }, agent);
    expect(own.body).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
  });

  it("another question to an e-mail target: no links unless it asked with links: true", async () => {
    const plain = ok(await call("question.request", oneQuestion({ targets: [{ surface: "email", chat: "ops@example.com" }] }), agent));
    expect((await rpcOk(gateway.url, "question.get", { id: plain.id })).links).toHaveLength(1);
    const seen = await linksSeen(plain);
    expect(seen).toEqual(seen.map(() => undefined));
    // Its link was the attack: answering through it records the person. It never reached the agent.
    const asked = ok(await call("question.request", oneQuestion({ targets: [{ surface: "email", chat: "ops@example.com" }], links: true }), agent));
    expect(asked.links.map((l: Link) => l.target)).toEqual(["email:ops@example.com"]);
    expect(new Set((await linksSeen(asked)).map((l) => JSON.stringify(l)))).toEqual(new Set([JSON.stringify(asked.links)]));
  });
});

describe("§8 a bot names only a chat its question went to, and a bounded, plain display name", () => {
  it("refuses another chat (FORBIDDEN), and keeps the chat and a clean name from the delivery it answers through", async () => {
    const bot = await createToken("bot:telegram", "tg-links");
    const asked = await rpcOk(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "42", users: ["77"] }] }));
    ok(await call("question.delivered", { id: asked.id, surface: "telegram", chat: "42", messageRef: "m1" }, bot));
    const elsewhere = await call("question.resolve", { id: asked.id, answers: { deploy_target: "Production" }, by: { user: "77", chat: "999", userName: "Alice (CEO)", surface: "telegram", via: "button" } }, bot);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toMatchObject({ ok: false, error: { code: "FORBIDDEN", message: expect.stringContaining('chat "999"') } });
    const replied = await call("question.reply", { id: asked.id, text: "1", by: { user: "77", chat: "999", surface: "telegram", via: "text" } }, bot);
    expect(replied.body).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect((await rpcOk(gateway.url, "question.get", { id: asked.id })).status).toBe("pending");

    const disguised = `\u202Eoec\u202C Alice\u0007\n\u200F${"x".repeat(240)}`;
    const resolved = ok(await call("question.resolve", { id: asked.id, answers: { deploy_target: "Production" }, by: { user: "77", chat: "42", userName: disguised, surface: "telegram", via: "button" } }, bot));
    expect(resolved.by).toMatchObject({ surface: "telegram", chat: "42", user: "77", via: "button" });
    expect(resolved.by.userName).toMatch(/^oec Alice x+…$/);
    expect([...resolved.by.userName].length).toBeLessThanOrEqual(100);
  });
});
