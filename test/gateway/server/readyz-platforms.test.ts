/**
 * `/readyz` knows whether each bot reaches its platform (issue 36 §2): `start` with a Telegram bot whose Bot API is
 * behind a TCP proxy, cut and restored. Not ready while the bot cannot reach the API (and until the bot it runs has
 * connected); ready when it can. The loss is one readable warning line, with no stack at the default log level.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startFakeTelegram } from "../../platforms/telegram/fake-api.ts";
import { startTcpProxy } from "../../helpers/tcp-proxy.ts";
import { cleanup, freePort, RawWs, spawnCli, startTestGateway, tempDir, TOKEN } from "../../helpers/gateway.ts";
import { logLines } from "../../helpers/cli.ts";
import { waitUntil } from "../../scenarios/tools.ts";

afterAll(() => cleanup());

interface Ready {
  ready: boolean;
  bots: Array<{ surface: string; connected?: boolean; platform?: { reachable: boolean | null; detail?: string; forMs: number } }>;
  notReady?: string[];
}

const lines = logLines;

describe("/readyz and each bot's platform", { timeout: 90_000 }, () => {
  it("is not ready while the Telegram bot cannot reach the Bot API, says why, and is ready once it can", async () => {
    const telegram = await startFakeTelegram();
    const api = new URL(telegram.apiRoot);
    const proxy = await startTcpProxy({ host: api.hostname, port: Number(api.port) });
    await proxy.cut();
    const port = await freePort();
    const start = spawnCli(
      ["start"],
      { GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir(), GATEWAY_PORT: String(port), TELEGRAM_BOT_TOKEN: "123456:TEST-readyz-token", TELEGRAM_API_ROOT: `http://127.0.0.1:${proxy.port}`, BOT_PLATFORM_CHECK_SECONDS: "2" },
      { timeoutMs: 90_000 },
    );
    const readyz = async (): Promise<{ status: number; body: Ready }> => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      return { status: res.status, body: (await res.json()) as Ready };
    };
    try {
      // Before the bot has connected: not ready, and the bot is named as missing.
      const early = await waitUntil(() => readyz().catch(() => undefined), "the gateway answering");
      if (!early.body.bots.some((b) => b.platform)) {
        expect(early.status).toBe(503);
        expect(early.body.notReady?.join("; ")).toMatch(/the telegram bot (is not connected|cannot reach its platform's API)/u);
      }

      const down = await waitUntil(async () => {
        const r = await readyz();
        return r.body.bots.find((b) => b.platform?.reachable === false) ? r : undefined;
      }, "the bot reporting the Bot API unreachable", 30_000);
      expect(down.status).toBe(503);
      expect(down.body.ready).toBe(false);
      expect(down.body.bots[0]).toMatchObject({ surface: "telegram", platform: { reachable: false, detail: "cannot reach the Bot API: ECONNREFUSED" } });
      expect(down.body.notReady).toEqual(["the telegram bot cannot reach its platform's API"]);

      // One readable warning (the Telegram bot's own, with the address; bot-process.test.ts has its details), with no
      // stack in any line at the default level; the token never shows.
      const warning = await waitUntil(() => lines(start).find((l) => l.name === "bot:telegram" && l.level === "warn" && /^cannot reach the Bot API at /u.test(String(l.msg))), "the warning");
      expect(warning).toMatchObject({ error: { type: "HttpError", code: "ECONNREFUSED" } });
      expect(start.stdout()).not.toMatch(/\n\s+at /u);
      expect(start.stdout()).not.toContain("TEST-readyz-token");

      await proxy.restore();
      const up = await waitUntil(async () => {
        const r = await readyz();
        return r.status === 200 ? r : undefined;
      }, "ready once the Bot API answers", 30_000);
      expect(up.body).toMatchObject({ ready: true, bots: [{ surface: "telegram", platform: { reachable: true, detail: expect.stringMatching(/^the Bot API answers \(@/u) } }] });
      expect(up.body.notReady).toBeUndefined();
      await waitUntil(() => lines(start).find((l) => l.name === "bot:telegram" && l.level === "info" && /^reached the Bot API at .* again/u.test(String(l.msg))), "the back-again line");
      expect(lines(start).filter((l) => l.name === "bot:telegram" && l.level === "warn")).toHaveLength(1);

      // Lost again while running: not ready within a check or two.
      await proxy.cut();
      await waitUntil(async () => ((await readyz()).status === 503 ? true : undefined), "not ready again", 20_000);
    } finally {
      start.child.kill("SIGTERM");
      await start.exited;
      await proxy.close();
      await telegram.close();
    }
  });

  it("takes bot.status only from a bot's connection, checks it, and keeps it per connection", async () => {
    const gateway = await startTestGateway();
    const readyz = async () => (await (await fetch(`${gateway.url}/readyz`)).json()) as Ready;
    try {
      const agent = await RawWs.connect(gateway.wsUrl);
      expect(((await agent.request("bot.status", { platform: { reachable: false } })) as { error?: unknown }).error).toMatchObject({ code: "FORBIDDEN" });
      const bot = await RawWs.connect(gateway.wsUrl);
      await bot.ok("connect", { token: TOKEN, surface: "slack" });
      expect(((await bot.request("bot.status", { platform: { reachable: "no" } })) as { error?: unknown }).error).toMatchObject({ code: "INVALID_PARAMS", issues: [{ path: "platform.reachable" }] });
      expect(((await bot.request("bot.status", { platform: { reachable: true, detail: "x".repeat(301) } })) as { error?: unknown }).error).toMatchObject({ code: "INVALID_PARAMS" });
      expect((await readyz()).bots).toEqual([{ surface: "slack", connectedForMs: expect.any(Number), lastSeenMsAgo: expect.any(Number) }]);
      await bot.ok("bot.status", { platform: { reachable: false, detail: "cannot reach the Slack API: ENOTFOUND" } });
      expect(await readyz()).toMatchObject({ ready: false, notReady: ["the slack bot cannot reach its platform's API"] });
      // A second Slack bot that reaches it is enough: questions for Slack can go out.
      const other = await RawWs.connect(gateway.wsUrl);
      await other.ok("connect", { token: TOKEN, surface: "slack" });
      await other.ok("bot.status", { platform: { reachable: true } });
      expect(await readyz()).toMatchObject({ ready: true });
      other.close();
      await waitUntil(async () => ((await readyz()).ready === false ? true : undefined), "not ready once the reaching bot has gone");
      bot.close();
      agent.close();
    } finally {
      await gateway.close();
    }
  });
});
