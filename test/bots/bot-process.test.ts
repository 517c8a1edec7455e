/**
 * A bot as ops run it (issue 19 §1–§2): the real `ask-user-bridge bot telegram` process against a real gateway, with
 * a Bot API that is unreachable, rejects the token (401), sees another poller (409), or holds a send while SIGTERM
 * arrives. Each bot logs JSON lines on stdout (it is not a terminal here).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeDiscord } from "../platforms/discord/fake-api.ts";
import { startFakeSlack } from "../platforms/slack/fake-api.ts";
import { startFakeTelegram } from "../platforms/telegram/fake-api.ts";
import { cleanup, freePort, oneQuestion, rpcOk, spawnCli, startTestGateway, TOKEN, waitForOutput, type CliRun } from "../helpers/gateway.ts";
import { logLines } from "../helpers/cli.ts";
import { waitUntil } from "../scenarios/tools.ts";

afterAll(() => cleanup());

const BOT_TOKEN = "123456:TEST-bot-token-value";

const botLines = logLines;

function spawnBot(gatewayUrl: string, apiRoot: string): CliRun {
  return spawnCli(["bot", "telegram"], { GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: TOKEN, TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_API_ROOT: apiRoot }, { timeoutMs: 60_000 });
}

/** A Bot API stand-in that answers every method with `answer(method)`. */
async function stubBotApi(answer: (method: string) => { status: number; body: unknown }): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const method = /\/bot[^/]+\/(\w+)$/.exec(req.url ?? "")?.[1] ?? "";
    req.resume().on("end", () => {
      const { status, body } = answer(method);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const ME = { id: 1, is_bot: true, first_name: "Bot", username: "stub_bot", can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false };

describe("the Telegram bot process", { timeout: 60_000 }, () => {
  it("logs within 10 s that it cannot reach the Bot API, with the address and the error, and the asker's delivery_failed names it", async () => {
    const gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 4 });
    const apiRoot = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    const bot = spawnBot(gateway.url, apiRoot);
    try {
      const started = Date.now();
      const line = await waitUntil(() => botLines(bot).find((l) => /cannot reach the Bot API/u.test(String(l.msg))), "the cannot-reach line", 10_000);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(line).toMatchObject({ name: "bot:telegram", level: "warn" });
      expect(String(line.msg)).toContain(`cannot reach the Bot API at ${apiRoot}: ECONNREFUSED`);
      expect(botLines(bot).find((l) => l.msg === `connecting to the Bot API at ${apiRoot}`)).toBeDefined();
      expect(bot.stdout()).not.toContain(BOT_TOKEN);

      const { id } = await rpcOk(gateway.url, "question.request", { ...oneQuestion(), targets: [{ surface: "telegram", chat: "42" }] });
      const result = await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 20_000 });
      expect(result).toMatchObject({ status: "delivery_failed" });
      expect(result.reason).toContain("telegram: cannot reach the Bot API: ECONNREFUSED");
      expect(result.reason).toMatch(/^not delivered within 4 s \(targets: telegram:42\); telegram:42: retrying: telegram: cannot reach the Bot API: ECONNREFUSED/u);
    } finally {
      bot.child.kill("SIGKILL");
      await gateway.close();
    }
  });

  it("exits 78 with one line when the token is rejected (401), and 1 when another process polls with it (409)", async () => {
    const gateway = await startTestGateway();
    const unauthorized = await stubBotApi(() => ({ status: 401, body: { ok: false, error_code: 401, description: "Unauthorized" } }));
    const conflict = await stubBotApi((method) =>
      method === "getUpdates"
        ? { status: 409, body: { ok: false, error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" } }
        : { status: 200, body: { ok: true, result: method === "getMe" ? ME : true } },
    );
    try {
      const rejected = await spawnBot(gateway.url, unauthorized.url).exited;
      expect(rejected.code).toBe(78);
      const fatal = rejected.stdout.split("\n").filter((l) => l.includes('"level":"fatal"'));
      expect(fatal).toHaveLength(1);
      expect(fatal[0]).toContain("the token was rejected (401 Unauthorized)");
      expect(rejected.stdout + rejected.stderr).not.toContain(BOT_TOKEN);

      const polling = await spawnBot(gateway.url, conflict.url).exited;
      expect(polling.code).toBe(1);
      expect(polling.stdout).toContain("another process is polling with this token (409 Conflict)");
    } finally {
      unauthorized.server.close();
      conflict.server.close();
      await gateway.close();
    }
  });

  it("exits within 2 s of SIGTERM while a send is in flight, and the copy is still delivered by the next bot", async () => {
    const gateway = await startTestGateway();
    const telegram = await startFakeTelegram();
    const first = spawnBot(gateway.url, telegram.apiRoot);
    try {
      await waitForOutput(first, /long polling as @/u, 30_000);
      const held = telegram.holdNext("sendMessage");
      const { id } = await rpcOk(gateway.url, "question.request", { ...oneQuestion(), targets: [{ surface: "telegram", chat: "42" }] });
      await waitUntil(() => held.arrived() || undefined, "the send reaching the platform");
      const stopping = Date.now();
      first.child.kill("SIGTERM");
      const exit = await first.exited;
      expect(Date.now() - stopping).toBeLessThan(2_000);
      expect(exit.code).toBe(0);
      held.release();
      // The send the first bot never saw answered is not lost: the next bot sends the copy once its claim is handed back.
      const second = spawnBot(gateway.url, telegram.apiRoot);
      const record = await waitUntil(async () => {
        const r = await rpcOk(gateway.url, "question.get", { id });
        return r.deliveries.length > 0 ? r : undefined;
      }, "the copy delivered by the next bot", 20_000);
      expect(record.deliveries[0]).toMatchObject({ surface: "telegram", chat: "42" });
      second.child.kill("SIGTERM");
      await second.exited;
    } finally {
      await telegram.close();
      await gateway.close();
    }
  });

  it("Discord and Slack bots exit 78 with one line when their token is rejected", async () => {
    const gateway = await startTestGateway();
    const discord = await startFakeDiscord({ token: "the-real-discord-token" });
    const slack = await startFakeSlack({ botToken: "xoxb-the-real-one", appToken: "xapp-the-real-one", people: [], channels: [] });
    try {
      const base = { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN };
      const [d, s] = await Promise.all([
        spawnCli(["bot", "discord"], { ...base, DISCORD_BOT_TOKEN: "a-revoked-discord-token", DISCORD_API_URL: discord.apiUrl }, { timeoutMs: 30_000 }).exited,
        spawnCli(["bot", "slack"], { ...base, SLACK_BOT_TOKEN: "xoxb-revoked-token-value", SLACK_APP_TOKEN: "xapp-the-real-one", SLACK_API_URL: slack.apiUrl }, { timeoutMs: 30_000 }).exited,
      ]);
      expect({ code: d.code, fatal: d.stdout.match(/"level":"fatal".*"msg":"([^"]+)"/u)?.[1] }).toEqual({ code: 78, fatal: expect.stringContaining("discord: the token was rejected") });
      expect({ code: s.code, fatal: s.stdout.match(/"level":"fatal".*"msg":"([^"]+)"/u)?.[1] }).toEqual({ code: 78, fatal: "slack: the token was rejected (invalid_auth): check SLACK_BOT_TOKEN" });
      expect(d.stdout + s.stdout).not.toMatch(/a-revoked-discord-token|xoxb-revoked-token-value/u);
    } finally {
      await Promise.all([discord.close(), slack.close(), gateway.close()]);
    }
  });
});
