import { deploymentSecrets, type Config } from "../runtime/config.ts";
import { BotStopError } from "../kernel/errors.ts";
import { createLogger, logCallback, type Log } from "../runtime/log.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { EXIT_UNRECOVERABLE, exitWithin, stopWithin, untilSignal } from "./shutdown.ts";
import { BOT_NAMES, type BotName } from "../platforms/surfaces.ts";
import { PLATFORM_LIST } from "../platforms/descriptors.ts";
import { runBotHost, type BotStarter, type StartedBot } from "./bot-host.ts";

export type { BotName };
export type { BotStarter, StartedBot };
/** Bot entry points live in bots/ (they import platform SDKs); the CLI entry hands them in. */
export type BotLoaders = Partial<Record<BotName, () => Promise<BotStarter>>>;

export const BOT_HELP = `Usage: ask-user-bridge bot ${BOT_NAMES.join("|")} [more bots…]

Runs one bot: it connects to the gateway (GATEWAY_URL, GATEWAY_TOKEN), delivers questions targeted at its
platform, and turns button presses and replies into answers. Several names run those bots in one process, each in an
error boundary of its own (one that crashes is restarted alone, with backoff); \`start\` runs its bots that way.
Needs each platform's token:
${PLATFORM_LIST.map((p) => `  ${p.surface.padEnd(Math.max(...PLATFORM_LIST.map((q) => q.surface.length)))} ${p.botHelp}`).join("\n")}`;

export function createBotCommand(loaders: BotLoaders) {
  return async function runBot(argv: string[], config: Config, io: { out: (s: string) => void; err: (s: string) => void }): Promise<number> {
    const { values, positionals } = parseCommandArgs(argv, {}, true);
    if (values.help) return io.out(BOT_HELP), 0;
    const unknown = positionals.filter((name) => !(BOT_NAMES as readonly string[]).includes(name));
    if (positionals.length === 0 || unknown.length > 0) throw new UsageError(`name one bot or several: ${BOT_NAMES.join(", ")}${unknown.length ? ` (not ${unknown.join(", ")})` : ""}`);
    const names = [...new Set(positionals)] as BotName[];
    for (const name of names) if (!loaders[name]) throw new UsageError(`the ${name} bot is not built yet`);
    if (names.length > 1) return runSeveral(names, loaders, config);
    const name = names[0]!;
    const start = await loaders[name]!();
    const logger = createLogger(`bot:${name}`, { level: config.LOG_LEVEL, secrets: deploymentSecrets(config) });
    const exitFor = (error: BotStopError) => (error.unrecoverable ? EXIT_UNRECOVERABLE : 1);
    let bot: StartedBot;
    try {
      bot = await start(config, { log: logCallback(logger) });
    } catch (error) {
      if (!(error instanceof BotStopError)) throw error;
      logger.fatal({ err: error.cause }, error.message);
      return exitFor(error);
    }
    const outcome = await Promise.race([untilSignal().then((signal) => ({ signal })), ...(bot.failed ? [bot.failed.then((failure) => ({ failure }))] : [])]);
    const code = "failure" in outcome ? exitFor(outcome.failure) : 0;
    // Whatever stays open (a long poll that returns only after 30 s, a socket), the process exits within 2 s.
    exitWithin(code);
    if ("failure" in outcome) logger.fatal({ err: outcome.failure.cause }, outcome.failure.message);
    else logger.info({ signal: outcome.signal }, "stopping");
    if ((await stopWithin(() => bot.stop())) === "timed out") logger.warn("the platform connection did not close in time; exiting anyway");
    return code;
  };
}

/**
 * `bot a b …`: the bots in one process (bot-host.ts). `start` hands each its own bot-scoped gateway credential in
 * ASK_BOT_GATEWAY_TOKENS (JSON, by bot name), read once and removed from the environment; else GATEWAY_TOKEN.
 */
async function runSeveral(names: readonly BotName[], loaders: BotLoaders, config: Config): Promise<number> {
  const tokens = botTokensFromEnv(process.env.ASK_BOT_GATEWAY_TOKENS);
  delete process.env.ASK_BOT_GATEWAY_TOKENS;
  const secrets = [...deploymentSecrets(config), ...Object.values(tokens)];
  const host = createLogger("bots", { level: config.LOG_LEVEL, secrets });
  const bots = await Promise.all(
    names.map(async (name) => ({
      name,
      start: await loaders[name]!(),
      config: tokens[name] ? { ...config, GATEWAY_TOKEN: tokens[name] } : config,
      logger: createLogger(`bot:${name}`, { level: config.LOG_LEVEL, secrets }),
    })),
  );
  host.info({ bots: names }, `running ${names.join(", ")} in one process`);
  const crash = process.env.ASK_TEST_CRASH_BOT as BotName | undefined;
  return runBotHost(bots, host, crash ? { crashForTests: crash } : {});
}

function botTokensFromEnv(text: string | undefined): Partial<Record<BotName, string>> {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError("ASK_BOT_GATEWAY_TOKENS must be a JSON object of bot names to tokens (start sets it)");
  }
  const tokens: Partial<Record<BotName, string>> = {};
  for (const [name, token] of Object.entries(parsed as Record<string, unknown>)) {
    if ((BOT_NAMES as readonly string[]).includes(name) && typeof token === "string" && token) tokens[name as BotName] = token;
  }
  return tokens;
}
