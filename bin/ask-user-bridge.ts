#!/usr/bin/env node
// The CLI entry: with bots/, the only place that reads .env or loads a platform SDK. Compiled to
// dist/bin/ask-user-bridge.js, which is the package's `bin`. Everything loads lazily, so `--help` starts fast.
import { main } from "../src/cli/main.ts";
import type { BotStarter } from "../src/cli/bot.ts";
import { BOT_NAMES } from "../src/platforms/surfaces.ts";

async function loadEnv(): Promise<NodeJS.ProcessEnv> {
  const { config } = await import("dotenv");
  config({ quiet: true });
  return process.env;
}

/** Each registered bot surface's entry is bots/<name>/index.ts, exporting `startBot`. */
const bots = Object.fromEntries(
  BOT_NAMES.map((name) => [name, async () => ((await import(`../bots/${name}/index.ts`)) as { startBot: BotStarter }).startBot]),
);

process.exitCode = await main(process.argv.slice(2), loadEnv, undefined, bots);
