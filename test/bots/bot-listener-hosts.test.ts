/**
 * The bots' own listeners bind their own hosts (TELEGRAM_WEBHOOK_HOST, SLACK_HOST), not GATEWAY_HOST: here
 * GATEWAY_HOST is an address this machine does not have, so a listener that used it could not start.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSlackBot } from "../../bots/slack/index.ts";
import { startTelegramBot } from "../../bots/telegram/index.ts";
import { loadConfig } from "../../src/runtime/config.ts";
import { SLACK_TEST_TOKENS } from "../platforms/slack/harness.ts";
import { startFakeSlack, type FakeSlack } from "../platforms/slack/fake-api.ts";
import { startFakeTelegram, type FakeTelegram } from "../platforms/telegram/fake-api.ts";
import { freePort, startTestGateway, TOKEN, type TestGateway } from "../helpers/gateway.ts";
import { tempDir } from "../helpers/temp-dirs.ts";

/** TEST-NET-1 (RFC 5737): never one of this machine's addresses. */
const NOT_HERE = "192.0.2.1";

describe("bot listener hosts", { timeout: 60_000 }, () => {
  let gateway: TestGateway;
  let telegram: FakeTelegram;
  let slack: FakeSlack;
  const stops: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    [gateway, telegram, slack] = await Promise.all([
      startTestGateway({}),
      startFakeTelegram(),
      startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: [], channels: [] }),
    ]);
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    await Promise.all([gateway?.close(), telegram?.close(), slack?.close()]);
  });
  const base = () => ({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, GATEWAY_HOST: NOT_HERE, DATA_DIR: tempDir("aub-hosts-") });

  it("the Telegram webhook listens on TELEGRAM_WEBHOOK_HOST", async () => {
    const port = await freePort();
    const config = loadConfig({
      ...base(),
      TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TELEGRAM_WEBHOOK_URL: `https://bot.example.com/telegram-hook`,
      TELEGRAM_WEBHOOK_SECRET: "s3cret",
      TELEGRAM_WEBHOOK_PORT: String(port),
      TELEGRAM_WEBHOOK_HOST: "127.0.0.1",
    });
    const bot = await startTelegramBot(config, { log: () => {} });
    stops.push(() => bot.stop());
    expect((await fetch(`http://127.0.0.1:${port}/telegram-hook`, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("Slack's HTTP mode listens on SLACK_HOST", async () => {
    const config = loadConfig({
      ...base(),
      SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
      SLACK_API_URL: slack.apiUrl.replace(/\/$/, ""),
      SLACK_SIGNING_SECRET: SLACK_TEST_TOKENS.signingSecret,
      SLACK_PORT: "0",
      SLACK_HOST: "127.0.0.1",
    });
    const bot = await startSlackBot(config, { log: () => {} });
    stops.push(() => bot.stop());
    expect((await fetch(`http://127.0.0.1:${bot.port}/slack/events`, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("both default to GATEWAY_HOST", () => {
    const config = loadConfig({ GATEWAY_HOST: "0.0.0.0" });
    expect([config.TELEGRAM_WEBHOOK_HOST ?? config.GATEWAY_HOST, config.SLACK_HOST ?? config.GATEWAY_HOST]).toEqual(["0.0.0.0", "0.0.0.0"]);
  });
});
