#!/usr/bin/env node
// The CLI entry: with bots/, the only place that reads .env or loads a platform SDK. Compiled to
// dist/bin/ask-user-bridge.js, which is the package's `bin`.
import { config as loadDotenv } from "dotenv";
import { main } from "../src/cli/main.ts";

loadDotenv({ quiet: true });
process.exitCode = await main(process.argv.slice(2), process.env, undefined, {
  telegram: async () => (await import("../bots/telegram/index.ts")).startTelegramBot,
  discord: async () => (await import("../bots/discord/index.ts")).startDiscordBot,
  slack: async () => (await import("../bots/slack/index.ts")).startSlackBot,
});
