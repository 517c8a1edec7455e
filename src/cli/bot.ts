import type { Config } from "../config.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { BOT_NAMES, type BotName } from "../surfaces.ts";

export type { BotName };
export type BotStarter = (config: Config) => Promise<{ stop(): Promise<void> }>;
/** Bot entry points live in bots/ (they import platform SDKs); the CLI entry hands them in. */
export type BotLoaders = Partial<Record<BotName, () => Promise<BotStarter>>>;

export const BOT_HELP = `Usage: ask-user-bridge bot telegram|discord|slack

Runs one bot: it connects to the gateway (GATEWAY_URL, GATEWAY_TOKEN), delivers questions targeted at its
platform, and turns button presses and replies into answers. Needs that platform's token:
  telegram  TELEGRAM_BOT_TOKEN (optional TELEGRAM_API_ROOT, TELEGRAM_ALLOWED_USERS, TELEGRAM_WEBHOOK_URL + _SECRET)
  discord   DISCORD_BOT_TOKEN (optional DISCORD_API_URL, DISCORD_ALLOWED_USERS)
  slack     SLACK_BOT_TOKEN + SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP on SLACK_PORT)`;

export function createBotCommand(loaders: BotLoaders) {
  return async function runBot(argv: string[], config: Config, io: { out: (s: string) => void; err: (s: string) => void }): Promise<number> {
    const { values, positionals } = parseCommandArgs(argv, {}, true);
    if (values.help) return io.out(BOT_HELP), 0;
    const name = positionals[0] as BotName | undefined;
    if (positionals.length !== 1 || !name || !(BOT_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`name one bot: ${BOT_NAMES.join(", ")}`);
    }
    const load = loaders[name];
    if (!load) throw new UsageError(`the ${name} bot is not built yet`);
    const start = await load();
    const bot = await start(config);
    const signal = await new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    io.err(`${signal}: stopping the ${name} bot`);
    await bot.stop();
    return 0;
  };
}
