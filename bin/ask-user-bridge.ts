#!/usr/bin/env node
// The CLI entry: with bots/, the only place that reads .env or loads a platform SDK. Compiled to
// dist/bin/ask-user-bridge.js, which is the package's `bin`. Everything loads lazily, so `--help` starts fast.
import { main } from "../src/cli/main.ts";

async function loadEnv(): Promise<NodeJS.ProcessEnv> {
  const { config } = await import("dotenv");
  config({ quiet: true });
  return process.env;
}

process.exitCode = await main(process.argv.slice(2), loadEnv, undefined, {
  telegram: async () => (await import("../bots/telegram/index.ts")).startTelegramBot,
  discord: async () => (await import("../bots/discord/index.ts")).startDiscordBot,
  slack: async () => (await import("../bots/slack/index.ts")).startSlackBot,
});
