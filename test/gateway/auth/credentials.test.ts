/**
 * Scoped credentials: the role policy (what each kind of caller may do, and `by` filled in from the credential), the
 * `token` command against the store it shares with the gateway, and the target allow-list.
 */
import { afterAll, describe, expect, it } from "vitest";
import { GatewayError } from "../../../src/kernel/errors.ts";
import { authorizeCall } from "../../../src/gateway/auth/policy.ts";
import { ADMIN, hashToken, SCOPED_TOKEN_PATTERN, WEB, type Principal } from "../../../src/gateway/auth/principal.ts";
import { createSqliteCredentialStore } from "../../../src/gateway/auth/store.ts";
import { parseParams } from "../../../src/protocol/methods.ts";
import { cleanup, oneQuestion, rpc, spawnCli, startTestGateway, tempDir } from "../../helpers/gateway.ts";

afterAll(cleanup);

const agent: Principal = { kind: "agent", credentialId: "a1", name: "ci agent" };
const telegramBot: Principal = { kind: "bot", surface: "telegram", credentialId: "b1", name: "tg" };
const forbidden = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof GatewayError ? error.code : error;
  }
  return "allowed";
};
const resolveParams = (by?: object) => parseParams("question.resolve", { id: "q1", answers: { a: "x" }, ...(by ? { by } : {}) });

describe("the role policy", () => {
  it.each<[string, Principal, string, unknown, string]>([
    ["an agent asks", agent, "question.request", oneQuestion(), "allowed"],
    ["an agent cancels", agent, "question.resolve", { id: "q1", cancel: true, reason: "cancelled" }, "allowed"],
    ["an agent aborts a run", agent, "run.abort", { runId: "r" }, "allowed"],
    ["an agent answers", agent, "question.resolve", { id: "q1", answers: { a: "x" } }, "FORBIDDEN"],
    ["an agent replies", agent, "question.reply", { id: "q1", text: "1" }, "FORBIDDEN"],
    ["an agent reports a delivery", agent, "question.delivered", { id: "q1", surface: "telegram", chat: "1", messageRef: "m" }, "FORBIDDEN"],
    ["a bot asks", telegramBot, "question.request", oneQuestion(), "FORBIDDEN"],
    ["a bot aborts a run", telegramBot, "run.abort", { runId: "r" }, "FORBIDDEN"],
    ["a Telegram bot reports a Telegram delivery", telegramBot, "question.delivered", { id: "q1", surface: "telegram", chat: "1", messageRef: "m" }, "allowed"],
    ["a Telegram bot reports a Slack delivery", telegramBot, "question.delivered", { id: "q1", surface: "slack", chat: "C", messageRef: "m" }, "FORBIDDEN"],
    ["a Telegram bot claims a Discord copy", telegramBot, "question.claimDelivery", { id: "q1", surface: "discord", chat: "1", claimant: "x" }, "FORBIDDEN"],
    ["the UI session asks", WEB, "question.request", oneQuestion(), "FORBIDDEN"],
    ["the UI session answers", WEB, "question.resolve", { id: "q1", answers: { a: "x" } }, "allowed"],
    ["the admin does anything", ADMIN, "question.delivered", { id: "q1", surface: "slack", chat: "C", messageRef: "m" }, "allowed"],
  ])("%s: %s", (_what, principal, method, params, expected) => {
    expect(forbidden(() => authorizeCall(principal, method as never, parseParams(method as never, params)))).toBe(expected);
  });

  it("fills in who answered from the credential, never from the client", () => {
    const claimed = { surface: "slack", userName: "Alice (on-call lead)", via: "api" };
    expect(authorizeCall(telegramBot, "question.resolve", resolveParams({ ...claimed, user: "42" })).by).toEqual({
      surface: "telegram",
      via: "button",
      user: "42",
      userName: "Alice (on-call lead)",
    });
    expect(authorizeCall(WEB, "question.resolve", resolveParams(claimed)).by).toEqual({ surface: "web", via: "web" });
    const cancel = parseParams("question.resolve", { id: "q1", cancel: true, by: claimed });
    expect(authorizeCall(agent, "question.resolve", cancel).by).toEqual({ surface: "api", via: "api" });
    expect(authorizeCall(ADMIN, "question.resolve", resolveParams(claimed)).by).toMatchObject({ surface: "slack", userName: "Alice (on-call lead)" });
  });
});

describe("ask-user-bridge token", () => {
  it("creates a token shown once, lists it by id and role with no secret, and revokes it by name", async () => {
    const env = { DATA_DIR: tempDir("aub-tokens-") };
    const created = await spawnCli(["token", "create", "--role", "bot:telegram", "--name", "tg-prod"], env).exited;
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(SCOPED_TOKEN_PATTERN);
    expect(created.stderr).toMatch(/Created bot:telegram credential [0-9a-f]{12} \(tg-prod\)\. The token above is shown once/);

    const listed = await spawnCli(["token", "list"], env).exited;
    expect(listed.stdout).toMatch(/^ID\s+ROLE\s+NAME\s+CREATED\s+STATUS$/m);
    expect(listed.stdout).toMatch(/^[0-9a-f]{12}\s+bot:telegram\s+tg-prod\s+\S+\s+active$/m);
    expect(listed.stdout).not.toContain(token);

    // Only the hash is stored.
    const store = await createSqliteCredentialStore(env.DATA_DIR);
    expect((await store.findByHashes([hashToken(token)])).get(hashToken(token))?.name).toBe("tg-prod");
    await store.close();

    const revoked = await spawnCli(["token", "revoke", "tg-prod"], env).exited;
    expect(revoked.stdout).toMatch(/^revoked [0-9a-f]{12} \(bot:telegram, tg-prod\)$/m);
    expect((await spawnCli(["token", "list", "--json"], env).exited).stdout).toMatch(/"revokedAtMs": \d+/);
    const again = await spawnCli(["token", "revoke", "tg-prod"], env).exited;
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no active credential with id or name "tg-prod"');
  });

  it("refuses an unknown role with the list of roles", async () => {
    const { code, stderr } = await spawnCli(["token", "create", "--role", "root"], { DATA_DIR: tempDir("aub-tokens-") }).exited;
    expect(code).toBe(1);
    expect(stderr).toContain('--role: "root" is not a role; use one of agent, bot:telegram, bot:discord, bot:slack');
  });
});

describe("ASK_ALLOWED_TARGETS", () => {
  it("refuses a question for a chat outside the list, naming the target, and allows the listed ones", async () => {
    const gateway = await startTestGateway({ ASK_ALLOWED_TARGETS: [{ surface: "telegram", chat: "123" }, { surface: "web" }] });
    try {
      const refused = await rpc(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "123" }, { surface: "slack", chat: "C0OTHER" }] }));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS", issues: [{ path: "targets.1", message: "slack:C0OTHER is not in ASK_ALLOWED_TARGETS" }] } });
      const allowed = await rpc(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "123", users: ["7"] }, { surface: "web" }] }));
      expect(allowed.body).toMatchObject({ ok: true });
    } finally {
      await gateway.close();
    }
  });
});
