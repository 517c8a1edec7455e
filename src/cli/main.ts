import { ConfigError, loadConfig, type Config } from "../config.ts";
import { GatewayError } from "../errors.ts";
import { UsageError } from "./args.ts";
import { runAsk } from "./ask.ts";
import { runCancel, runGet, runList } from "./ops.ts";
import { runGateway, runStart } from "./serve.ts";
import { runMcp } from "../mcp/command.ts";
import { createBotCommand, type BotLoaders } from "./bot.ts";

export const MAIN_HELP = `ask-user-bridge: let an AI agent ask a person structured questions on Telegram, Discord, Slack or the web.

Usage: ask-user-bridge <command> [options]

Commands:
  start                      the gateway with the Control UI, and a bot for each platform whose token is set
  gateway                    the gateway alone
  bot telegram|discord|slack one bot
  ask                        ask from the terminal and print the result JSON
  list                       list question records
  get ID                     print one question record
  cancel ID                  cancel a pending question
  mcp                        an MCP server on stdio (tools ask_user, ask_user_start, ask_user_wait)

Run "ask-user-bridge <command> --help" for a command's options. Configuration comes from .env
(see .env.example).`;

export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
}

type Command = (argv: string[], config: Config, io: CliIO) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  start: runStart,
  gateway: runGateway,
  ask: runAsk,
  list: runList,
  get: runGet,
  cancel: runCancel,
  mcp: runMcp,
};

/** Runs one CLI command; returns the exit code. Reports errors in one place. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIO = { out: (s) => console.log(s), err: (s) => console.error(s) },
  bots: BotLoaders = {},
): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.out(MAIN_HELP);
    return name ? 0 : 1;
  }
  const command = name === "bot" ? createBotCommand(bots) : COMMANDS[name];
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${MAIN_HELP}`);
    return 1;
  }
  try {
    const config = rest.includes("--help") || rest.includes("-h") ? loadConfig({}) : loadConfig(env);
    return await command(rest, config, io);
  } catch (error) {
    if (error instanceof ConfigError) io.err(error.message);
    else if (error instanceof UsageError) io.err(`${name}: ${error.message}\nRun "ask-user-bridge ${name} --help" for usage.`);
    else if (error instanceof GatewayError) io.err(`${error.code}: ${error.message}`);
    else io.err(`ask-user-bridge ${name} failed: ${(error as Error)?.stack ?? String(error)}`);
    return 1;
  }
}
