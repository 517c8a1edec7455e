/**
 * Answer links (issue 29 §2) against a real gateway: the record's links, a page that GET and HEAD never answer, the
 * CSRF-checked POST, who answered, replays, ended questions, and forged links.
 */
import { describe, expect, it } from "vitest";
import { cleanup, gatewayConfig, oneQuestion, rpc, rpcOk, startTestGateway, tempDir, twoQuestions, useTestGateway, type TestGateway } from "../../helpers/gateway.ts";
import { startGateway } from "../../../src/gateway/run.ts";
import { createAnswerPage } from "../../../src/web/answer-page.ts";
import { optionLinkUrl } from "../../../src/record/answer-links.ts";
import { afterAll } from "vitest";
import { connectGateway } from "../../../src/client/index.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { hashToken, newScopedToken } from "../../../src/gateway/auth/principal.ts";
import { waitUntil } from "../../scenarios/tools.ts";

afterAll(cleanup);

const gateway = useTestGateway({ LATE_ANSWER_SECONDS: 0 });

type Link = { target: string; url: string };

async function ask(extra: Record<string, unknown> = {}, input = oneQuestion): Promise<{ id: string; links: Link[] }> {
  const asked = await rpcOk(gateway.url, "question.request", input({ targets: [{ surface: "telegram", chat: "42", users: ["7"] }, { surface: "web" }], links: true, ...extra }));
  return asked;
}

/** A browser's visit: the page, its CSRF token, and the cookie it set. */
async function visit(url: string, cookie?: string): Promise<{ status: number; html: string; csrf?: string; cookie?: string; headers: Headers }> {
  const res = await fetch(url, { headers: cookie ? { cookie } : {} });
  const html = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const set = res.headers.get("set-cookie")?.split(";")[0];
  return { status: res.status, html, headers: res.headers, ...(csrf ? { csrf } : {}), ...(set ? { cookie: set } : cookie ? { cookie } : {}) };
}

/** The form post a browser sends from the page (same origin). */
function post(url: string, fields: Record<string, string | string[]>, { cookie, site = "same-origin" }: { cookie?: string; site?: string | null } = {}) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}), ...(site ? { "sec-fetch-site": site } : {}) },
    body,
  });
}

const status = async (id: string) => (await rpcOk(gateway.url, "question.get", { id })).status as string;

describe("answer links", () => {
  it("question.request with links: true gives every target a link, in the response and in the record", async () => {
    const asked = await ask();
    expect(asked.links.map((l) => l.target)).toEqual(["telegram:42:7", "web"]);
    for (const link of asked.links) expect(link.url).toMatch(new RegExp(`^${gateway.url}/a/[A-Za-z0-9_-]{40,60}$`));
    const record = await rpcOk(gateway.url, "question.get", { id: asked.id });
    expect(record.links).toEqual(asked.links);
    expect(record.linksRequested).toBe(true);
    const listed = await rpcOk(gateway.url, "question.list", { status: "pending" });
    const records = Array.isArray(listed) ? listed : listed.questions;
    expect(records.find((r: { id: string }) => r.id === asked.id).links).toEqual(asked.links);
  });

  it("the events carry the links too: question.requested and question.resolved", async () => {
    const client = await connectGateway({ url: gateway.url, token: TOKEN });
    try {
      const seen = new Map<string, Link[] | undefined>();
      client.on("question.requested", (record) => seen.set(`requested ${record.id}`, record.links));
      client.on("question.resolved", (record) => seen.set(`resolved ${record.id}`, record.links));
      const asked = await ask();
      await rpcOk(gateway.url, "question.resolve", { id: asked.id, cancel: true });
      await waitUntil(() => seen.has(`resolved ${asked.id}`), "question.resolved");
      expect(seen.get(`requested ${asked.id}`)).toEqual(asked.links);
      expect(seen.get(`resolved ${asked.id}`)).toEqual(asked.links);
    } finally {
      client.close();
    }
  });

  it("shows a bot only its own surface's links (a link answers as its target), in reads, lists and events", async () => {
    const { id: credentialId, token: secret } = newScopedToken();
    await gateway.credentials.add({ id: credentialId, name: "links-bot", role: "bot:slack", createdAtMs: Date.now() }, hashToken(secret));
    const bot = await connectGateway({ url: gateway.url, token: secret });
    try {
      const events: Array<Link[] | undefined> = [];
      bot.on("question.requested", (record) => events.push(record.links));
      const asked = await rpcOk(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "1" }, { surface: "slack", chat: "C1" }, { surface: "web" }], links: true }));
      expect(asked.links).toHaveLength(3);
      const onlySlack = asked.links.filter((l: Link) => l.target === "slack:C1");
      expect((await bot.get(asked.id)).links).toEqual(onlySlack);
      const page = await bot.call<{ questions: Array<{ id: string; links?: Link[] }> }>("question.list", { status: "pending" });
      expect(page.questions.find((r) => r.id === asked.id)!.links).toEqual(onlySlack);
      await waitUntil(() => events.length > 0, "question.requested on the bot");
      expect(events.at(-1)).toEqual(onlySlack);
      // The admin still sees every link.
      expect((await rpcOk(gateway.url, "question.get", { id: asked.id })).links).toEqual(asked.links);
    } finally {
      bot.close();
    }
  });

  it("gives no links unless asked (and no platform here always has them)", async () => {
    const asked = await rpcOk(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "web" }] }));
    expect(asked.links).toBeUndefined();
    expect((await rpcOk(gateway.url, "question.get", { id: asked.id })).links).toBeUndefined();
  });

  it("refuses a links field that is not a boolean", async () => {
    const { body } = await rpc(gateway.url, "question.request", oneQuestion({ links: "yes" }));
    expect(body.ok).toBe(false);
  });

  it("GET and HEAD of a link and of a per-option link show the question and record nothing", async () => {
    const { id, links } = await ask();
    const url = links[0]!.url;
    const page = await visit(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.html).toContain("Where should I deploy?");
    expect(page.html).toContain('type="radio" name="a:deploy_target" value="0"');
    expect(page.html).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
    expect(page.html).toContain(">Skip<");
    const option = await visit(optionLinkUrl(url, "deploy_target", 1));
    expect(option.html).toContain('value="1" checked');
    expect(option.html).toContain(">Confirm<");
    expect(option.html).not.toContain(">Skip<");
    expect(option.html.match(/<button/g)).toHaveLength(1);
    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(optionLinkUrl(url, "deploy_target", 0), { method: "HEAD" })).status).toBe(200);
    // A per-option link naming no real option just shows the form.
    expect((await visit(optionLinkUrl(url, "deploy_target", 7))).html).not.toContain("checked");
    expect(await status(id)).toBe("pending");
    expect((await fetch(`${gateway.url}/a/answer.css`)).headers.get("content-type")).toContain("text/css");
  });

  it("a POST without, or with a wrong, CSRF token is 403 and records nothing", async () => {
    const { id, links } = await ask();
    const url = links[0]!.url;
    const page = await visit(url);
    const answer = { "a:deploy_target": "1", action: "answer" };
    expect((await post(url, answer, { cookie: page.cookie! })).status).toBe(403);
    expect((await post(url, { ...answer, csrf: `${page.csrf!.slice(0, -2)}AA` }, { cookie: page.cookie! })).status).toBe(403);
    expect((await post(url, { ...answer, csrf: page.csrf! })).status).toBe(403); // no cookie
    expect((await post(url, { ...answer, csrf: page.csrf! }, { cookie: "aub_answer_0=AAAAAAAAAAAAAAAAAAAAAA" })).status).toBe(403);
    expect((await post(url, { ...answer, csrf: page.csrf! }, { cookie: page.cookie!, site: "cross-site" })).status).toBe(403);
    expect(await status(id)).toBe("pending");
  });

  it("a correct POST answers as the link's target, via the web; a replay gets the answered page", async () => {
    const { id, links } = await ask();
    const url = links[0]!.url;
    const page = await visit(optionLinkUrl(url, "deploy_target", 1));
    const fields = { "a:deploy_target": "1", "own:deploy_target": "", action: "answer", csrf: page.csrf! };
    const res = await post(url, fields, { cookie: page.cookie! });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!, url).href).toBe(url);
    const record = await rpcOk(gateway.url, "question.get", { id });
    expect(record).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] }, by: { surface: "telegram", chat: "42", user: "7", via: "web" } });
    const after = await visit(url, page.cookie);
    expect(after.html).toContain("Answered in Telegram by 7");
    expect(after.html).not.toContain("<form");
    const replay = await post(url, fields, { cookie: page.cookie! });
    expect(replay.status).toBe(409);
    expect(await replay.text()).toContain("Answered in Telegram by 7");
    expect((await rpcOk(gateway.url, "question.get", { id })).resolvedAtMs).toBe(record.resolvedAtMs);
  });

  it("the web target's link answers on the web; own words and multi-select work; a refusal re-shows the form with the choices", async () => {
    const { id, links } = await ask({}, twoQuestions);
    const url = links[1]!.url;
    const page = await visit(url);
    expect(page.html).toContain('type="checkbox" name="a:checks" value="2"');
    // Single-select with an option and own words: refused, the form comes back with both kept.
    const both = await post(url, { "a:env": "0", "own:env": "Canary", "a:checks": ["0", "2"], action: "answer", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(both.status).toBe(422);
    const html = await both.text();
    expect(html).toContain("not both");
    expect(html).toContain('value="Canary"');
    expect(html).toMatch(/name="a:checks" value="2" checked/);
    // A forged option index is refused too.
    const forged = await post(url, { "a:env": "9", "a:checks": "0", action: "answer", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(forged.status).toBe(422);
    expect(await forged.text()).toContain("not one of this question");
    // A credential in own words is refused, not kept, and not recorded.
    const secret = await post(url, { "own:env": "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "a:checks": "0", action: "answer", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(secret.status).toBe(422);
    const secretHtml = await secret.text();
    expect(secretHtml).toContain("looks like a password");
    expect(secretHtml).not.toContain("ghp_");
    // Nor shown again when the other question is the one left unanswered.
    const secretAndEmpty = await post(url, { "own:env": "ghp_abcdefghijklmnopqrstuvwxyz0123456789", action: "answer", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(secretAndEmpty.status).toBe(422);
    expect(await secretAndEmpty.text()).not.toContain("ghp_");
    expect(await status(id)).toBe("pending");
    const ok = await post(url, { "own:env": "Canary <b>&", "a:checks": ["0", "2"], action: "answer", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(ok.status).toBe(303);
    const record = await rpcOk(gateway.url, "question.get", { id });
    expect(record).toMatchObject({ answers: { env: ["Canary <b>&"], checks: ["Lint", "E2E"] }, by: { surface: "web", via: "web" } });
    const ended = await visit(url);
    expect(ended.html).toContain("Canary &lt;b&gt;&amp;");
    expect(ended.html).not.toContain("<b>");
  });

  it("Skip skips, as the link's target", async () => {
    const { id, links } = await ask();
    const page = await visit(links[0]!.url);
    expect((await post(links[0]!.url, { action: "skip", csrf: page.csrf! }, { cookie: page.cookie! })).status).toBe(303);
    expect(await rpcOk(gateway.url, "question.get", { id })).toMatchObject({ status: "cancelled", reason: "skipped", by: { surface: "telegram", via: "web" } });
    expect((await visit(links[0]!.url)).html).toContain("Skipped in Telegram by 7");
  });

  it("after a cancel or an expiry the link says so and offers no form", async () => {
    const cancelled = await ask();
    await rpcOk(gateway.url, "question.resolve", { id: cancelled.id, cancel: true, reason: "cancelled" });
    const page = await visit(cancelled.links[0]!.url);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Cancelled via the API");
    expect(page.html).not.toContain("<form");

    const expiring = await ask({ timeoutSeconds: 1 });
    const open = await visit(expiring.links[0]!.url);
    await new Promise((r) => setTimeout(r, 1_200));
    const expired = await visit(expiring.links[0]!.url);
    expect(expired.html).toContain("No answer (expired)");
    expect(expired.html).not.toContain("<form");
    const late = await post(expiring.links[0]!.url, { "a:deploy_target": "0", action: "answer", csrf: open.csrf! }, { cookie: open.cookie! });
    expect(late.status).toBe(409);
    expect(await status(expiring.id)).toBe("expired");
  });

  it("one page's CSRF token does not answer another question's link", async () => {
    const a = await ask();
    const b = await ask();
    const pageA = await visit(a.links[0]!.url);
    const res = await post(b.links[0]!.url, { "a:deploy_target": "0", action: "answer", csrf: pageA.csrf! }, { cookie: pageA.cookie! });
    expect(res.status).toBe(403);
    // Nor another target's link of the same question.
    expect((await post(a.links[1]!.url, { "a:deploy_target": "0", action: "answer", csrf: pageA.csrf! }, { cookie: pageA.cookie! })).status).toBe(403);
    expect(await status(a.id)).toBe("pending");
    expect(await status(b.id)).toBe("pending");
  });

  it.each([
    ["a tampered signature", (token: string) => `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`],
    ["a truncated token", (token: string) => token.slice(0, -4)],
    ["an oversize token", (token: string) => token.repeat(10)],
    ["garbage", () => "hello"],
    ["an escaped path", () => "x%2F..%2F..%2Frpc"],
    ["a deeper path", (token: string) => `${token}/more`],
  ])("%s gets the plain 404 page, on GET, HEAD and POST", async (_name, forge) => {
    const { id, links } = await ask();
    const url = links[0]!.url;
    const token = url.slice(url.lastIndexOf("/") + 1);
    const forged = `${gateway.url}/a/${forge(token)}`;
    const res = await fetch(forged);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("This link is not valid");
    expect((await fetch(forged, { method: "HEAD" })).status).toBe(404);
    expect((await post(forged, { action: "skip" })).status).toBe(404);
    expect(await status(id)).toBe("pending");
  });

  it("a link of this gateway's key for a question that does not exist gets the same 404", async () => {
    const other = await startTestGateway();
    try {
      // Another gateway (another key) made this link: here it is forged, and never says whether the id exists.
      const asked = await rpcOk(other.url, "question.request", oneQuestion({ targets: [{ surface: "web" }], links: true }));
      const token = asked.links[0].url.split("/a/")[1];
      const res = await fetch(`${gateway.url}/a/${token}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("This link is not valid");
    } finally {
      await other.close();
    }
  });

  it("an oversize post is refused (413) and records nothing", async () => {
    const { id, links } = await ask();
    const page = await visit(links[0]!.url);
    const res = await post(links[0]!.url, { "own:deploy_target": "x".repeat(100_000), action: "answer", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(res.status).toBe(413);
    expect(await status(id)).toBe("pending");
  });

  it("a method other than GET, HEAD and POST is refused", async () => {
    const { links } = await ask();
    expect((await fetch(links[0]!.url, { method: "PUT" })).status).toBe(405);
  });
});

describe("escalated targets and the public URL", () => {
  let gw: TestGateway | undefined;
  afterAll(async () => gw?.close());

  it("an escalated target gets its link too, at GATEWAY_PUBLIC_URL", async () => {
    gw = await startTestGateway({ GATEWAY_PUBLIC_URL: "https://ask.example.com/" });
    const asked = await rpcOk(gw.url, "question.request", oneQuestion({ targets: [{ surface: "web" }], links: true, timeoutSeconds: 60, escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C1" }] }] }));
    expect(asked.links.map((l: Link) => l.target)).toEqual(["web"]);
    expect(asked.links[0].url).toMatch(/^https:\/\/ask\.example\.com\/a\//);
    let record: any;
    for (let i = 0; i < 100 && !record?.escalated; i++) {
      await new Promise((r) => setTimeout(r, 100));
      record = await rpcOk(gw.url, "question.get", { id: asked.id });
    }
    expect(record.links.map((l: Link) => l.target)).toEqual(["web", "slack:C1"]);
    // The page answers at the gateway's own address as well (the public URL is a proxy in front of it).
    const path = new URL(record.links[1].url).pathname;
    expect((await fetch(`${gw.url}${path}`)).status).toBe(200);
  });

  it("within a late window the link takes a late answer, with no Skip", async () => {
    gw ??= await startTestGateway({ GATEWAY_PUBLIC_URL: "https://ask.example.com/" });
    const asked = await rpcOk(gw.url, "question.request", oneQuestion({ targets: [{ surface: "discord", chat: "99" }], links: true, timeoutSeconds: 1, lateAnswerSeconds: 600 }));
    const local = `${gw.url}${new URL(asked.links[0].url).pathname}`;
    await new Promise((r) => setTimeout(r, 1_200));
    const page = await visit(local);
    expect(page.html).toContain("you can still answer");
    expect(page.html).not.toContain(">Skip<");
    // A skip is no late answer.
    const skip = await post(local, { action: "skip", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(skip.status).toBe(422);
    const res = await post(local, { "a:deploy_target": "0", action: "answer", csrf: page.csrf! }, { cookie: page.cookie! });
    expect(res.status).toBe(303);
    const record = await rpcOk(gw.url, "question.get", { id: asked.id });
    expect(record).toMatchObject({ status: "expired", lateAnswer: { answers: { deploy_target: ["Staging (Recommended)"] }, by: { surface: "discord", chat: "99", via: "web" } } });
    expect((await visit(local)).html).toContain("(late) Answered in Discord");
  });
});

describe("answer links on a gateway bound to every interface", () => {
  /** A gateway on 0.0.0.0 (or with a public URL), with its warnings collected. */
  async function wildcard(overrides: Record<string, unknown> = {}) {
    const warnings: string[] = [];
    const started = await startGateway(gatewayConfig(tempDir(), { GATEWAY_HOST: "0.0.0.0", ...overrides }), {
      log: (line) => void warnings.push(line),
      answerPage: createAnswerPage,
    });
    const port = Number(new URL(started.url).port);
    return { started, port, warnings };
  }

  it("point at the loopback, not at 0.0.0.0, and the start-up warns that GATEWAY_PUBLIC_URL is unset", async () => {
    const { started, port, warnings } = await wildcard();
    try {
      const asked = await rpcOk(`http://127.0.0.1:${port}`, "question.request", oneQuestion({ targets: [{ surface: "web" }], links: true }));
      expect(asked.links[0].url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/a/`));
      expect((await fetch(asked.links[0].url)).status).toBe(200);
      expect(warnings.filter((w) => w.includes("GATEWAY_PUBLIC_URL"))).toEqual([
        expect.stringContaining(`answer links point at http://127.0.0.1:${port} and the Control UI answers only to localhost`),
      ]);
    } finally {
      await started.close();
    }
  });

  it("use GATEWAY_PUBLIC_URL when it is set, with no warning", async () => {
    const { started, port, warnings } = await wildcard({ GATEWAY_PUBLIC_URL: "https://ask.example.org" });
    try {
      const asked = await rpcOk(`http://127.0.0.1:${port}`, "question.request", oneQuestion({ targets: [{ surface: "web" }], links: true }));
      expect(asked.links[0].url).toMatch(/^https:\/\/ask\.example\.org\/a\//);
      expect(warnings.filter((w) => w.includes("GATEWAY_PUBLIC_URL"))).toEqual([]);
    } finally {
      await started.close();
    }
  });
});
