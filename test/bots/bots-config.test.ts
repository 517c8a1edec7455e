import { describe, expect, it } from "vitest";
import { startDiscordBot } from "../../bots/discord/index.ts";
import { startSlackBot } from "../../bots/slack/index.ts";
import { startTelegramBot } from "../../bots/telegram/index.ts";
import { ConfigError, loadConfig } from "../../src/runtime/config.ts";

const env = { GATEWAY_URL: "http://127.0.0.1:9", GATEWAY_TOKEN: "x".repeat(32) };
const base = loadConfig(env);

describe("every bot refuses to start without its token, with a ConfigError naming it", () => {
  it.each([
    ["telegram", startTelegramBot, "TELEGRAM_BOT_TOKEN"],
    ["discord", startDiscordBot, "DISCORD_BOT_TOKEN"],
    ["slack", startSlackBot, "SLACK_BOT_TOKEN"],
  ] as const)("%s", async (_name, start, variable) => {
    const started = start(base, { log: () => {} });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(new RegExp(`${variable}: is required`));
  });

  it("slack in HTTP mode also needs the signing secret", async () => {
    const started = startSlackBot(loadConfig({ ...env, SLACK_BOT_TOKEN: "xoxb-test" }), { log: () => {} });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(/SLACK_SIGNING_SECRET: is required for the Slack bot in HTTP mode/);
  });
});
