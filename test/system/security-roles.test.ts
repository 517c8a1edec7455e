/**
 * Scoped credentials (issue #17 §5), against the real gateway process and CLI. Today any holder of GATEWAY_TOKEN can
 * claim to be "Alice (on-call lead)" answering in Telegram, and message any chat; with scoped credentials:
 * - an agent token asks, waits, lists and cancels, but cannot answer or report deliveries;
 * - a bot token answers only as its own surface, whatever `by` it sends, and reports only its own surface;
 * - a revoked token is refused; a run's pending questions are capped for scoped agents (not for the admin);
 * - `start` gives its child bots bot-scoped tokens, and the bot works with one.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTelegram } from "../platforms/telegram/fake-api.ts";
import { cleanup, freePort, oneQuestion, rpc, spawnCli, spawnGateway, tempDir, TOKEN, waitForOutput, type ChildGateway } from "../helpers/gateway.ts";
import { waitUntil } from "../scenarios/tools.ts";

let gateway: ChildGateway;
let env: Record<string, string>;
let agentToken: string;
let botToken: string;

async function createToken(role: string, name: string): Promise<string> {
  const created = await spawnCli(["token", "create", "--role", role, "--name", name], env).exited;
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

beforeAll(async () => {
  env = { DATA_DIR: tempDir("aub-roles-"), GATEWAY_PORT: String(await freePort()), ASK_MAX_PENDING_PER_RUN: "2", ASK_MAX_PENDING_PER_CREDENTIAL: "4" };
  gateway = await spawnGateway(env);
  [agentToken, botToken] = [await createToken("agent", "ci agent"), await createToken("bot:telegram", "tg bot")];
}, 60_000);

afterAll(cleanup);

const call = (method: string, params: unknown, token: string) => rpc(gateway.url, method, params, { token });

describe("scoped credentials", () => {
  it("lets an agent ask, wait, get, list and cancel, and refuses it answering or reporting deliveries", async () => {
    const asked = await call("question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "5" }] }), agentToken);
    expect(asked.body).toMatchObject({ ok: true });
    const id = (asked.body as { payload: { id: string } }).payload.id;
    expect((await call("question.get", { id }, agentToken)).body).toMatchObject({ ok: true });
    expect((await call("question.list", { status: "pending" }, agentToken)).body).toMatchObject({ ok: true });
    const answered = await call("question.resolve", { id, answers: { deploy_target: "Production" } }, agentToken);
    expect(answered.status).toBe(403);
    expect(answered.body).toMatchObject({ ok: false, error: { code: "FORBIDDEN", message: "an agent credential may not answer a question (it may cancel one)" } });
    const reported = await call("question.delivered", { id, surface: "telegram", chat: "5", messageRef: "m" }, agentToken);
    expect(reported.body).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    const cancelled = await call("question.resolve", { id, cancel: true, reason: "cancelled", by: { surface: "telegram", userName: "Alice" } }, agentToken);
    expect(cancelled.body).toMatchObject({ ok: true, payload: { status: "cancelled", by: { surface: "api", via: "api" } } });
  });

  it("records who answered from the bot's credential, never from the request, and keeps a bot to its surface", async () => {
    const asked = await call("question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "5" }] }), TOKEN);
    const { id } = (asked.body as { payload: { id: string } }).payload;
    const forSlack = await call("question.delivered", { id, surface: "slack", chat: "C1", messageRef: "m" }, botToken);
    expect(forSlack.body).toMatchObject({ ok: false, error: { code: "FORBIDDEN", message: "a bot:telegram credential may not report for slack" } });
    expect((await call("question.delivered", { id, surface: "telegram", chat: "5", messageRef: "m" }, botToken)).body).toMatchObject({ ok: true });
    const claimed = { surface: "slack", user: "U1", userName: "Alice (on-call lead)", via: "api" };
    const resolved = await call("question.resolve", { id, answers: { deploy_target: "Production" }, by: claimed }, botToken);
    expect(resolved.body).toMatchObject({ ok: true, payload: { by: { surface: "telegram", via: "button", user: "U1", userName: "Alice (on-call lead)" } } });
    expect((await call("question.request", oneQuestion(), botToken)).body).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
  });

  it("refuses a revoked token", async () => {
    const token = await createToken("agent", "short-lived");
    const revoked = await spawnCli(["token", "revoke", "short-lived"], env).exited;
    expect(revoked.code).toBe(0);
    const refused = await call("question.list", {}, token);
    expect(refused.status).toBe(401);
  });

  it("caps a run's pending questions for a scoped agent, and not for the admin token", async () => {
    const ask = (token: string) => call("question.request", oneQuestion({ runId: `run-${token === TOKEN ? "admin" : "agent"}` }), token);
    expect((await ask(agentToken)).body).toMatchObject({ ok: true });
    expect((await ask(agentToken)).body).toMatchObject({ ok: true });
    const third = await ask(agentToken);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ ok: false, error: { code: "QUOTA_EXCEEDED" } });
    for (let i = 0; i < 3; i++) expect((await ask(TOKEN)).body).toMatchObject({ ok: true });
  });

  it("caps a scoped agent's pending questions across its runs", async () => {
    const token = await createToken("agent", "busy agent");
    for (let i = 0; i < 4; i++) expect((await call("question.request", oneQuestion({ runId: `r${i}` }), token)).body).toMatchObject({ ok: true });
    const fifth = await call("question.request", oneQuestion({ runId: "r5" }), token);
    expect(fifth.body).toMatchObject({ ok: false, error: { code: "QUOTA_EXCEEDED", message: expect.stringContaining("ASK_MAX_PENDING_PER_CREDENTIAL is 4") } });
  });
});

describe("start", () => {
  it.each(["sqlite", "memory"])("gives its bot a bot-scoped token, which the bot works with (STORE=%s)", async (store) => {
    const fake = await startFakeTelegram();
    const startEnv = {
      STORE: store,
      DATA_DIR: tempDir("aub-start-"),
      GATEWAY_PORT: String(await freePort()),
      TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
      TELEGRAM_API_ROOT: fake.apiRoot,
    };
    try {
      const start = spawnCli(["start"], startEnv);
      const [, url] = await waitForOutput(start, /listening on (http:\/\/\S+)/);
      await waitForOutput(start, /long polling/);
      if (store === "sqlite") {
        // Kept beside the questions, where the CLI manages it (a memory store lives only in the gateway's process).
        const listed = await spawnCli(["token", "list"], startEnv).exited;
        expect(listed.stdout).toMatch(/bot:telegram\s+start:telegram\s+\S+\s+active/);
      }
      const token = readFileSync(`${startEnv.DATA_DIR}/gateway-token`, "utf8").trim();
      const asked = await rpc(url!, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "77" }] }), { token });
      const id = (asked.body as { payload: { id: string } }).payload.id;
      const record = await waitUntil(async () => {
        const got = await rpc(url!, "question.get", { id }, { token });
        const payload = (got.body as { payload: { deliveries: unknown[] } }).payload;
        return payload.deliveries.length === 1 ? payload : undefined;
      }, "the bot's delivery, reported with its scoped token");
      expect(record.deliveries).toMatchObject([{ surface: "telegram", chat: "77" }]);
      start.child.kill("SIGTERM");
      await start.exited;
    } finally {
      await fake.close();
    }
  }, 60_000);
});
