import { autoRetry } from "@grammyjs/auto-retry";
import { run, sequentialize } from "@grammyjs/runner";
import { apiThrottler } from "@grammyjs/transformer-throttler";
import { Bot, GrammyError, webhookCallback } from "grammy";
import { BotStopError } from "../../src/kernel/errors.ts";
import { requireConfig, type Config } from "../../src/runtime/config.ts";
import { cutToFit } from "../../src/render/index.ts";
import { TELEGRAM_TEXT_MAX } from "../../src/platforms/telegram/payload.ts";
import { toTelegramText } from "../../src/platforms/telegram/escaping.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { startListener } from "../kit/listener.ts";
import { createTelegramAdapter } from "./adapter.ts";
import { registerTelegramInbound } from "./inbound.ts";
import { trackTelegramConnection } from "./connection.ts";

export interface TelegramBotOptions {
  log?: Log;
  /** Overrides the throttler's limits (the defaults follow Telegram's published limits; tests use faster ones). */
  throttle?: Parameters<typeof apiThrottler>[0];
}

/** Calls whose 5xx the bridge's delivery loop retries (prompt sends and edits); auto-retry retries every other call's. */
const BRIDGE_RETRIES = new Set(["sendMessage", "editMessageText"]);

const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/** Webhook mode (TELEGRAM_WEBHOOK_URL and _SECRET): a small HTTP server takes the updates Telegram posts. */
async function startWebhook(bot: Bot, config: Config, url: string, secret: string, log: Log): Promise<RunningBot> {
  const path = new URL(url).pathname;
  const handle = webhookCallback(bot, "http", { secretToken: secret });
  // A taken port or an address this machine does not have fails the start (the CLI names it), instead of hanging.
  const listener = await startListener({
    host: config.TELEGRAM_WEBHOOK_HOST ?? config.GATEWAY_HOST,
    port: config.TELEGRAM_WEBHOOK_PORT,
    portVariable: "TELEGRAM_WEBHOOK_PORT",
    handle(req, res) {
      if (req.method === "POST" && req.url === path) return void handle(req, res);
      res.writeHead(404).end();
    },
  });
  const stop = () => listener.close();
  try {
    await bot.init();
    await bot.api.setWebhook(url, { secret_token: secret, allowed_updates: [...ALLOWED_UPDATES] });
  } catch (error) {
    await stop();
    throw error;
  }
  log(`webhook mode on port ${config.TELEGRAM_WEBHOOK_PORT}`);
  return { stop };
}

/**
 * Long polling with grammY's runner: updates are handled concurrently, across chats, and in order within one chat
 * (`sequentialize` by chat, installed before the handlers). Stopping waits for the updates being handled, then
 * confirms them to Telegram (as `bot.stop()` does), so a restart does not fetch them again.
 */
async function startLongPolling(bot: Bot, log: Log, lastUpdateId: () => number | undefined, stop: (error: BotStopError) => void): Promise<RunningBot> {
  await bot.init();
  await bot.api.deleteWebhook();
  const runner = run(bot, { runner: { fetch: { allowed_updates: [...ALLOWED_UPDATES] }, silent: true, retryInterval: "exponential" } });
  log(`long polling as @${bot.botInfo.username}`);
  // The runner gives up on a 401 or a 409 (the connection tracker has said which), or after 15 hours of failures.
  void runner.task()?.catch((error) => {
    const code = error instanceof GrammyError ? error.error_code : undefined;
    if (code !== 401 && code !== 409) stop(new BotStopError(`telegram: long polling stopped: ${(error as Error)?.message ?? String(error)}`, false, { cause: error }));
  });
  return {
    async stop() {
      if (runner.isRunning()) await runner.stop();
      const last = lastUpdateId();
      if (last !== undefined) await bot.api.getUpdates({ offset: last + 1, limit: 1, timeout: 0 }).catch((error) => log("could not confirm the last updates", error));
    },
  };
}

/** The Telegram bot: grammY on the Bot API (or TELEGRAM_API_ROOT), with auto-retry and throttling plugins. */
export async function startTelegramBot(config: Config, options: TelegramBotOptions = {}): Promise<RunningBot> {
  const { TELEGRAM_BOT_TOKEN } = requireConfig(config, ["TELEGRAM_BOT_TOKEN"]);
  const log = options.log ?? createLog("telegram");
  const apiRoot = config.TELEGRAM_API_ROOT?.replace(/\/+$/, "") ?? "https://api.telegram.org";
  const bot = new Bot(TELEGRAM_BOT_TOKEN, { client: { apiRoot } });
  // A bot that cannot go on (token rejected, another poller) ends the process through `failed`.
  let stopError: BotStopError | undefined;
  let fail: (error: BotStopError) => void = () => {};
  const failed = new Promise<BotStopError>((resolve) => (fail = resolve));
  const stop = (error: BotStopError) => {
    stopError ??= error;
    fail(stopError);
  };
  // Installed first, so it sees every attempt the plugins below make: the connection's state changes are logged.
  bot.api.config.use(trackTelegramConnection({ log, address: apiRoot, onStop: stop }));
  bot.api.config.use(apiThrottler(options.throttle));
  // auto-retry waits out 429s and network errors, and a 5xx too, except on prompt sends and edits: those go back to
  // the bridge at once, which retries them with its own backoff (1 s, 2 s, 4 s …) and records the target as retrying
  // meanwhile (auto-retry would wait 3 s, 6 s … 48 s in silence first).
  const retry = autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: 120 });
  // A network error on a prompt send or edit goes back to the bridge too ("cannot reach the Bot API"), which reports
  // it to the gateway, so the asker's delivery_failed names the real cause.
  const retryInBridge = autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: 120, rethrowInternalServerErrors: true, rethrowHttpErrors: true });
  bot.api.config.use((prev, method, payload, signal) => (BRIDGE_RETRIES.has(method) ? retryInBridge : retry)(prev, method, payload, signal));
  const { TELEGRAM_WEBHOOK_URL: webhookUrl, TELEGRAM_WEBHOOK_SECRET: webhookSecret } = config;
  let lastUpdateId: number | undefined;
  bot.use((ctx, next) => {
    lastUpdateId = Math.max(lastUpdateId ?? 0, ctx.update.update_id);
    return next();
  });
  // One chat's updates in order (a reply after the Other… press it follows); different chats at once.
  bot.use(sequentialize((ctx) => (ctx.chat ? String(ctx.chat.id) : undefined)));

  const running = startBridgeBot({
    config,
    log,
    allowedUsers: config.TELEGRAM_ALLOWED_USERS,
    otherOpens: "reply",
    // connection.ts logs every loss and return of the Bot API already (with the address): the check only reports.
    logsConnection: true,
    adapter: createTelegramAdapter(bot.api),
    toPlatformText: (text) => cutToFit(text, TELEGRAM_TEXT_MAX, toTelegramText),
    listen: (bridge) => registerTelegramInbound(bot, bridge, log),
    async start(deliver) {
      await deliver(); // Telegram keeps updates until the bot fetches them: nothing is lost before it listens
      return webhookUrl && webhookSecret ? startWebhook(bot, config, webhookUrl, webhookSecret, log) : startLongPolling(bot, log, () => lastUpdateId, stop);
    },
  });
  try {
    return { ...(await running), failed };
  } catch (error) {
    // A start that failed on a rejected token says so in one line, rather than as grammY's error.
    throw stopError ?? error;
  }
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot telegram`). */
export { startTelegramBot as startBot };
