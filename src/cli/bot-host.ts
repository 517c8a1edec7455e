/**
 * Several bots in one process (issue 36 §5): what `start` runs when more than one platform is configured, instead of
 * a process per bot. Each bot runs in an error boundary of its own: whatever it throws or leaves rejected, from any
 * callback it started (its async context, AsyncLocalStorage), stops and restarts that bot only, with backoff, while
 * the others go on. Its queued work is the gateway's (durable, claimed per copy), so a restarted bot picks it up.
 * A bot stopped on an error a restart cannot fix (its token rejected) stays stopped; when every bot has, the process
 * exits with EXIT_UNRECOVERABLE. Anything thrown outside every bot ends the process (its supervisor restarts it).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { backoffDelay } from "../kernel/backoff.ts";
import { BotStopError } from "../kernel/errors.ts";
import type { Config } from "../runtime/config.ts";
import { logCallback, type Log, type Logger } from "../runtime/log.ts";
import type { BotName } from "../platforms/surfaces.ts";
import { EXIT_UNRECOVERABLE, exitWithin, stopWithin, untilSignal } from "./shutdown.ts";

/**
 * A running bot: \`stop()\`, and \`failed\`, which settles with a BotStopError when the bot cannot go on (a token
 * rejected later, another process polling with it).
 */
export interface StartedBot {
  stop(): Promise<void>;
  failed?: Promise<BotStopError>;
}
export type BotStarter = (config: Config, options?: { log?: Log }) => Promise<StartedBot>;

/**
 * The Node flags `start` runs its bot process with. The bots are idle most of the time and their bursts are small: a
 * 1 MiB young generation (V8's default grows to 16 MiB and is not handed back while idle) keeps about 20 MiB of the
 * process's memory from sitting unused (benchmark 18, docs/BENCHMARKS.md), at the price of a few more scavenges.
 */
export const BOT_HOST_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=1"];

/** The bot whose code is running, as every callback it scheduled still knows it. */
const boundary = new AsyncLocalStorage<BotName>();

/** A bot that ran this long before it failed starts its backoff afresh. */
const STABLE_MS = 60_000;

export interface HostedBot {
  name: BotName;
  start: BotStarter;
  /** Its configuration (its own gateway credential in GATEWAY_TOKEN). */
  config: Config;
  logger: Logger;
}

interface Slot extends HostedBot {
  /** Bumped on every start and every failure: what a late callback of an earlier run compares against. */
  run: number;
  state: "starting" | "running" | "restarting" | "stopped";
  bot?: StartedBot;
  startedAtMs: number;
  failures: number;
  timer?: NodeJS.Timeout;
}

export async function runBotHost(bots: readonly HostedBot[], host: Logger, options: { crashForTests?: BotName } = {}): Promise<number> {
  const slots = new Map<BotName, Slot>(bots.map((bot) => [bot.name, { ...bot, run: 0, state: "starting", startedAtMs: 0, failures: 0 }]));
  let shuttingDown = false;
  let allStopped: (code: number) => void = () => {};
  const stoppedForGood = new Promise<number>((resolve) => (allStopped = resolve));

  /** Stops what is left of a failed run, bounded; what it throws now is that run's, and ignored. */
  function discard(slot: Slot, bot: StartedBot | undefined): void {
    if (!bot) return;
    void stopWithin(() => bot.stop()).catch((error: unknown) => slot.logger.debug({ err: error }, "stopping the failed run failed"));
  }

  function fail(slot: Slot, error: unknown): void {
    if (shuttingDown || slot.state === "restarting" || slot.state === "stopped") {
      slot.logger.debug({ err: error }, "an error after the bot had already stopped");
      return;
    }
    slot.run++;
    const failed = slot.bot;
    slot.bot = undefined;
    discard(slot, failed);
    if (error instanceof BotStopError && error.unrecoverable) {
      slot.state = "stopped";
      slot.logger.fatal({ err: error.cause }, error.message);
      host.error({ child: `bot:${slot.name}`, code: EXIT_UNRECOVERABLE }, `bot:${slot.name} stopped on an error a restart cannot fix (see its last line); not restarting it`);
      if ([...slots.values()].every((s) => s.state === "stopped")) allStopped(EXIT_UNRECOVERABLE);
      return;
    }
    const ranMs = Date.now() - slot.startedAtMs;
    slot.failures = ranMs > STABLE_MS ? 1 : slot.failures + 1;
    const delay = backoffDelay(slot.failures - 1, 1_000, 30_000);
    slot.state = "restarting";
    if (error instanceof BotStopError) slot.logger.error({ err: error.cause }, error.message);
    else slot.logger.error({ err: error }, `crashed: ${(error as Error)?.message ?? String(error)}`);
    host.warn({ child: `bot:${slot.name}`, ranMs, restartInMs: Math.round(delay) }, `bot:${slot.name} stopped; restarting it in ${Math.round(delay / 100) / 10} s (the other bots go on)`);
    slot.timer = setTimeout(() => launch(slot), delay);
  }

  function launch(slot: Slot): void {
    const run = ++slot.run;
    slot.state = "starting";
    slot.startedAtMs = Date.now();
    boundary.run(slot.name, () => {
      slot
        .start(slot.config, { log: logCallback(slot.logger) })
        .then((bot) => {
          if (run !== slot.run || shuttingDown) return discard(slot, bot);
          slot.bot = bot;
          slot.state = "running";
          void bot.failed?.then((error) => run === slot.run && fail(slot, error));
          if (options.crashForTests === slot.name && run === 1) {
            setTimeout(() => {
              throw new Error("ASK_TEST_CRASH_BOT: a crash for the tests");
            }, 300);
          }
        })
        .catch((error: unknown) => run === slot.run && fail(slot, error));
    });
  }

  const uncaught = (error: unknown): void => {
    const name = boundary.getStore();
    const slot = name ? slots.get(name) : undefined;
    if (slot) return fail(slot, error);
    host.fatal({ err: error }, "an error outside every bot; exiting (the supervisor starts the bots again)");
    process.exit(1);
  };
  process.on("uncaughtException", uncaught);
  process.on("unhandledRejection", uncaught);

  for (const slot of slots.values()) launch(slot);
  const outcome = await Promise.race([untilSignal().then((signal) => ({ signal })), stoppedForGood.then((code) => ({ code }))]);
  shuttingDown = true;
  const code = "code" in outcome ? outcome.code : 0;
  exitWithin(code);
  if ("signal" in outcome) host.info({ signal: outcome.signal }, "stopping the bots");
  for (const slot of slots.values()) clearTimeout(slot.timer);
  const running = [...slots.values()].flatMap((slot) => (slot.bot ? [slot.bot] : []));
  if ((await stopWithin(() => Promise.all(running.map((bot) => bot.stop())).then(() => {}))) === "timed out") host.warn("a platform connection did not close in time; exiting anyway");
  process.off("uncaughtException", uncaught);
  process.off("unhandledRejection", uncaught);
  return code;
}
