import type { Config } from "../runtime/config.ts";
import type { CliIO } from "./io.ts";
import type { BotLoaders } from "./bot.ts";
import { PLATFORM_NAMES, PLATFORM_SURFACES } from "../platforms/index.ts";

const TITLES = PLATFORM_NAMES.map((name) => PLATFORM_SURFACES[name].title).join(", ");
const BOT_COMMAND = `bot ${PLATFORM_NAMES.join("|")}`;

export const MAIN_HELP = `ask-user-bridge: let an AI agent ask a person structured questions on ${TITLES} or the web.

Usage: ask-user-bridge <command> [options]

Commands:
  init                       set up a bot and yourself step by step: tokens checked, .env written, a test question
  start                      the gateway with the Control UI, and a bot for each platform whose token is set
  gateway                    the gateway alone
  ${BOT_COMMAND.length <= 26 ? `${BOT_COMMAND.padEnd(26)} one bot` : `${"bot PLATFORM".padEnd(26)} one bot: ${PLATFORM_NAMES.join(", ")}`}
  ask                        ask from the terminal and print the result JSON
  list                       list question records
  get ID                     print one question record
  cancel ID                  cancel a pending question
  mcp                        an MCP server on stdio (tools ask_user, ask_user_start, ask_user_wait,
                             ask_user_late_answers, approve_tool_use)
  hook claude-code           a Claude Code hook: its questions and permission prompts, asked through the gateway
  migrate                    bring the store's schema up to date (PostgreSQL at DATABASE_URL, else SQLite)
  token create|list|revoke   scoped credentials for agents and bots
  ui-link                    print the Control UI's admin sign-in link again (to a terminal)
  doctor                     check the set-up: gateway, store, bots, their credentials, links; what to fix
  --version                  print the version

Run "ask-user-bridge <command> --help" for a command's options. Configuration comes from .env
(see .env.example).`;

export type { CliIO } from "./io.ts";

type Command = (argv: string[], config: Config, io: CliIO) => Promise<number>;

/** Each command's module loads only when that command runs, so `--help` and `--version` start fast. */
const COMMANDS: Record<string, (bots: BotLoaders) => Promise<Command>> = {
  init: async () => (await import("./init.ts")).runInit,
  start: async () => (await import("./serve.ts")).runStart,
  gateway: async () => (await import("./serve.ts")).runGateway,
  ask: async () => (await import("./ask.ts")).runAsk,
  list: async () => (await import("./ops.ts")).runList,
  get: async () => (await import("./ops.ts")).runGet,
  cancel: async () => (await import("./ops.ts")).runCancel,
  mcp: async () => (await import("./mcp.ts")).runMcp,
  hook: async () => (await import("./hook.ts")).runHook,
  migrate: async () => (await import("./migrate.ts")).runMigrate,
  token: async () => (await import("./token.ts")).runToken,
  "ui-link": async () => (await import("./ui-link.ts")).runUiLink,
  doctor: async () => (await import("./doctor.ts")).runDoctor,
  bot: async (bots) => (await import("./bot.ts")).createBotCommand(bots),
};

type Env = Record<string, string | undefined>;

/** The process's own IO. `tty` reads `isTTY` only when a command asks: touching `process.stdout` builds its stream (see printLine). */
function processIo(): CliIO {
  return {
    out: (text) => console.log(text),
    err: (text) => console.error(text),
    tty: {
      get out() {
        return Boolean(process.stdout.isTTY);
      },
      get err() {
        return Boolean(process.stderr.isTTY);
      },
    },
  };
}

/**
 * One line on fd 1 with write(2), for `--help` and `--version` of the process's own IO, after which the process
 * ends. Benchmark 6 times these against `node -e 0`, and two things cost more than everything else they do: the
 * first touch of `process.stdout` (building its stream) and importing `node:fs` (an ESM facade over every export).
 * `process.getBuiltinModule` (Node 20.16+) hands over the fs module Node already loaded; on an older Node, or when
 * write(2) refuses (a full non-blocking pipe), the rest goes through the stream.
 */
function printLine(text: string): void {
  const bytes = Buffer.from(`${text}\n`);
  let written = 0;
  try {
    const fs = process.getBuiltinModule?.("node:fs");
    if (fs) while (written < bytes.length) written += fs.writeSync(1, bytes, written);
  } catch {
    // the stream below takes what is left
  }
  if (written < bytes.length) process.stdout.write(bytes.subarray(written));
}

/**
 * `--gateway NAME` (or `--gateway=NAME`) on any command: the recorded gateway it records itself as (`start`,
 * `gateway`) or uses (every client), as GATEWAY_NAME. Taken out before the command reads its own flags.
 */
function takeGatewayFlag(argv: readonly string[]): { args: string[]; gateway?: string } {
  const args: string[] = [];
  let gateway: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      args.push(...argv.slice(i));
      break;
    }
    if (arg === "--gateway" && i + 1 < argv.length) gateway = argv[++i]!;
    else if (arg.startsWith("--gateway=")) gateway = arg.slice("--gateway=".length);
    else args.push(arg);
  }
  return gateway === undefined ? { args } : { args, gateway };
}

/**
 * Runs one CLI command; returns the exit code. Reports errors in one place. `env` may be a loader (the CLI entry
 * reads .env through it), called only when a command runs, so `--help` and `--version` skip it.
 */
export async function main(
  argv: string[],
  env: Env | (() => Promise<Env>),
  io?: CliIO,
  bots: BotLoaders = {},
): Promise<number> {
  const [name, ...rest] = argv;
  const print = io ? io.out : printLine;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    print(MAIN_HELP);
    return name ? 0 : 1;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    print((await import("./version.ts")).packageVersion());
    return 0;
  }
  io ??= processIo();
  const loadCommand = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!loadCommand) {
    io.err(`Unknown command "${name}".\n\n${MAIN_HELP}`);
    return 1;
  }
  const [{ ConfigError, loadConfig }, { GatewayError }, { UsageError }, { expectedErrorLine }] = await Promise.all([
    import("../runtime/config.ts"),
    import("../kernel/errors.ts"),
    import("./args.ts"),
    import("./expected-errors.ts"),
  ]);
  let config: Config | undefined;
  try {
    const command = await loadCommand(bots);
    const { args, gateway } = takeGatewayFlag(rest);
    config = args.includes("--help") || args.includes("-h") ? loadConfig({}) : loadConfig({ ...(typeof env === "function" ? await env() : env), ...(gateway === undefined ? {} : { GATEWAY_NAME: gateway }) });
    return await command(args, config, io);
  } catch (error) {
    const expected = expectedErrorLine(error, config);
    if (expected) io.err(expected);
    else if (error instanceof ConfigError) io.err(error.message);
    else if (error instanceof UsageError) io.err(`${name}: ${error.message.replace(/\s*\n\s*/gu, " ")} (see "ask-user-bridge ${name} --help")`);
    else if (error instanceof GatewayError) io.err(`${error.code}: ${error.message}`);
    else io.err(`ask-user-bridge ${name} failed: ${(error as Error)?.stack ?? String(error)}`);
    return 1;
  }
}
