import { deploymentSecrets, type Config } from "../runtime/config.ts";
import { BotStopError } from "../kernel/errors.ts";
import { createLogger, logCallback, type Log } from "../runtime/log.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { EXIT_UNRECOVERABLE, exitWithin, stopWithin, untilSignal } from "./shutdown.ts";
import { BOT_NAMES, type BotName } from "../platforms/surfaces.ts";
import { PLATFORM_LIST } from "../platforms/descriptors.ts";

export type { BotName };
/**
 * A running bot: `stop()`, and `failed`, which settles with a BotStopError when the bot cannot go on (a token
 * rejected later, another process polling with it).
 */
export interface StartedBot {
  stop(): Promise<void>;
  failed?: Promise<BotStopError>;
}
export type BotStarter = (config: Config, options?: { log?: Log }) => Promise<StartedBot>;
/** Bot entry points live in bots/ (they import platform SDKs); the CLI entry hands them in. */
export type BotLoaders = Partial<Record<BotName, () => Promise<BotStarter>>>;

export const BOT_HELP = `Usage: ask-user-bridge bot ${BOT_NAMES.join("|")}

Runs one bot: it connects to the gateway (GATEWAY_URL, GATEWAY_TOKEN), delivers questions targeted at its
platform, and turns button presses and replies into answers. Needs that platform's token:
${PLATFORM_LIST.map((p) => `  ${p.surface.padEnd(Math.max(...PLATFORM_LIST.map((q) => q.surface.length)))} ${p.botHelp}`).join("\n")}`;

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
