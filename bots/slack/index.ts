import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, LogLevel, SocketModeReceiver, type Logger, type webApi } from "@slack/bolt";
import { BotStopError } from "../../src/kernel/errors.ts";
import { ConfigError, requireConfig, type Config } from "../../src/runtime/config.ts";
import { cutToFit } from "../../src/render/index.ts";
import { SLACK_SECTION_TEXT_MAX } from "../../src/platforms/slack/payload.ts";
import { toSlackText } from "../../src/platforms/slack/escaping.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { createSlackAdapter, createSlackConversations } from "./adapter.ts";
import { registerSlackInbound } from "./inbound.ts";

/**
 * Web API calls: a 429 waits for its Retry-After inside an attempt, then the attempt counts as failed and
 * p-retry backs off; network errors retry the same way. A few attempts, bounded in time.
 */
export const SLACK_RETRY_CONFIG: webApi.RetryOptions = { retries: 5, factor: 2, minTimeout: 1_000, maxTimeout: 30_000, randomize: true, maxRetryTime: 3 * 60_000 };
/** apps.connections.open for Socket Mode (re)connects: keep trying through a Slack outage. */
export const SLACK_CONNECT_RETRY_CONFIG: webApi.RetryOptions = { retries: 100, factor: 1.3, minTimeout: 1_000, maxTimeout: 60_000, randomize: true };
const SLACK_REQUEST_TIMEOUT_MS = 30_000;

export interface SlackBotOptions {
  log?: Log;
  /** Overrides SLACK_RETRY_CONFIG (tests use fast ones). */
  retryConfig?: webApi.RetryOptions;
  /** Overrides SLACK_CONNECT_RETRY_CONFIG. */
  connectRetryConfig?: webApi.RetryOptions;
}

export interface RunningSlackBot extends RunningBot {
  /** HTTP mode: the bound port (SLACK_PORT, or the one picked for 0). */
  port?: number;
}

/** Bolt's logger, routed into ours; debug is dropped. */
function boltLogger(log: Log): Logger {
  let level = LogLevel.INFO;
  const show = (m: unknown) => {
    if (m instanceof Error) return m.message;
    if (typeof m === "string") return m;
    try {
      return JSON.stringify(m);
    } catch {
      return String(m);
    }
  };
  const write = (msg: unknown[]) => log(msg.map(show).join(" "));
  return {
    debug: () => {},
    info: (...msg) => write(msg),
    warn: (...msg) => write(msg),
    error: (...msg) => write(msg),
    setLevel: (l) => void (level = l),
    getLevel: () => level,
    setName: () => {},
  };
}

const withSlash = (url: string) => (url.endsWith("/") ? url : `${url}/`);

/** Bolt for the configured mode: Socket Mode with an app token, else HTTP mode with the signing secret. */
function createApp(config: Config & { SLACK_BOT_TOKEN: string }, options: SlackBotOptions, log: Log): App {
  const apiUrl = config.SLACK_API_URL ? { slackApiUrl: withSlash(config.SLACK_API_URL) } : {};
  const common = {
    token: config.SLACK_BOT_TOKEN,
    logger: boltLogger(log),
    clientOptions: { ...apiUrl, retryConfig: options.retryConfig ?? SLACK_RETRY_CONFIG, timeout: SLACK_REQUEST_TIMEOUT_MS },
    convoStore: false as const,
    deferInitialization: true,
  };
  if (config.SLACK_APP_TOKEN) {
    // The receiver is made here (as Bolt would make it) so its Socket Mode client's connection states can be logged.
    const receiver = new SocketModeReceiver({
      appToken: config.SLACK_APP_TOKEN,
      logger: common.logger,
      // The Socket Mode client's own Web API client (apps.connections.open) reads these.
      installerOptions: { clientOptions: { ...apiUrl, retryConfig: options.connectRetryConfig ?? SLACK_CONNECT_RETRY_CONFIG, timeout: SLACK_REQUEST_TIMEOUT_MS } },
    });
    logSocketModeStates(receiver, log);
    return new App({ ...common, socketMode: true, receiver });
  }
  if (!config.SLACK_SIGNING_SECRET) {
    throw new ConfigError(["SLACK_SIGNING_SECRET: is required for the Slack bot in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)"]);
  }
  return new App({ ...common, signingSecret: config.SLACK_SIGNING_SECRET });
}

/** The Socket Mode connection's state changes, one line each: connecting, connected, lost (reconnecting), closed. */
function logSocketModeStates(receiver: SocketModeReceiver, log: Log): void {
  let connected = false;
  receiver.client.on("connecting", () => log("connecting to Slack in Socket Mode"));
  receiver.client.on("connected", () => {
    log(connected ? "reconnected in Socket Mode" : "connected in Socket Mode");
    connected = true;
  });
  receiver.client.on("reconnecting", () => log("lost the Slack connection; reconnecting in Socket Mode", new Error("the Socket Mode WebSocket closed")));
}

/** Slack's answers to auth.test for a token that will never work: the bot stops rather than retry. */
const REJECTED_TOKEN = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "no_permission"]);

/** The auth.test error code of a failed start, if Slack refused the token. */
function rejectedTokenCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown }; original?: { data?: { error?: unknown } } } | undefined) ?? {};
  const code = data.data?.error ?? data.original?.data?.error;
  return typeof code === "string" && REJECTED_TOKEN.has(code) ? code : undefined;
}

/** Starts receiving: the Socket Mode connection, or the HTTP server on SLACK_PORT. */
async function listen(app: App, config: Config, log: Log): Promise<RunningSlackBot> {
  if (config.SLACK_APP_TOKEN) {
    await app.start();
    return {
      async stop() {
        await app.stop();
      },
    };
  }
  const host = config.SLACK_HOST ?? config.GATEWAY_HOST;
  const server = (await app.start({ port: config.SLACK_PORT, host })) as Server;
  const port = (server.address() as AddressInfo).port;
  log(`HTTP mode: POST http://${host}:${port}/slack/events`);
  return {
    port,
    async stop() {
      const stopped = app.stop();
      server.closeAllConnections();
      await stopped;
    },
  };
}

/** The Slack bot: Bolt in Socket Mode (SLACK_APP_TOKEN) or HTTP mode (SLACK_SIGNING_SECRET on SLACK_PORT). */
export async function startSlackBot(config: Config, options: SlackBotOptions = {}): Promise<RunningSlackBot> {
  const required = requireConfig(config, ["SLACK_BOT_TOKEN"]);
  const log = options.log ?? createLog("slack");
  const app = createApp(required, options, log);
  // auth.test: a bad token fails here, by name, and ends the bot (exit 78): restarting cannot fix it.
  await app.init().catch((error: unknown) => {
    const code = rejectedTokenCode(error);
    if (code) throw new BotStopError(`slack: the token was rejected (${code}): check SLACK_BOT_TOKEN`, true, { cause: error });
    throw error;
  });
  const conversations = createSlackConversations(app.client);
  app.error(async (error) => log("Bolt", error));

  return startBridgeBot({
    config,
    log,
    allowedUsers: config.SLACK_ALLOWED_USERS,
    otherOpens: "modal",
    adapter: createSlackAdapter(app.client, conversations, log),
    toPlatformText: (text) => cutToFit(text, SLACK_SECTION_TEXT_MAX, toSlackText),
    listen: (bridge) => registerSlackInbound(app, bridge, conversations, log),
    async start(deliver) {
      await deliver();
      return listen(app, config, log);
    },
  });
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot slack`). */
export { startSlackBot as startBot };
