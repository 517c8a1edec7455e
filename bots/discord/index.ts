import { once } from "node:events";
import { Client, Events, GatewayIntentBits, Partials, RESTEvents } from "discord.js";
import { requireConfig, type Config } from "../../src/runtime/config.ts";
import { BotStopError } from "../../src/kernel/errors.ts";
import { cutToFit } from "../../src/render/index.ts";
import { DISCORD_CONTENT_MAX } from "../../src/platforms/discord/payload.ts";
import { toDiscordContent } from "../../src/platforms/discord/escaping.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { createDiscordAdapter } from "./adapter.ts";
import { registerDiscordInbound } from "./inbound.ts";

export interface DiscordBotOptions {
  log?: Log;
}

/** Guilds for the channel cache, messages in guild channels and DMs, and their text (privileged in guilds). */
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages];
const DISALLOWED_INTENTS_HINT =
  "Discord refused the bot's gateway intents: enable Message Content Intent under Bot → Privileged Gateway Intents in the Discord Developer Portal";

/** discord.js's "An invalid token was provided." (TokenInvalid), or a 401 from the REST API or the gateway (4004). */
function isRejectedToken(error: unknown): boolean {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  return code === "TokenInvalid" || code === 4004 || status === 401 || (error instanceof Error && /invalid token|authentication failed/i.test(error.message));
}

/** The gateway connection's state changes, one line each (the shard manager reconnects on its own). */
function logShardStates(client: Client, api: string, log: Log): void {
  log(`connecting to Discord (REST ${api})`);
  let readyOnce = false;
  client.on(Events.ShardReady, () => {
    log(readyOnce ? "reconnected to the Discord gateway" : "connected to the Discord gateway");
    readyOnce = true;
  });
  client.on(Events.ShardResume, () => log("resumed the Discord gateway session"));
  client.on(Events.ShardDisconnect, (event) => log(`lost the Discord gateway connection (close code ${event.code}); reconnecting`, new Error(event.reason || `close code ${event.code}`)));
  client.on(Events.ShardReconnecting, () => log("reconnecting to the Discord gateway"));
}

/** Logs in, waits for READY, then delivers. */
async function login(client: Client, token: string, deliver: () => Promise<void>, log: Log): Promise<RunningBot> {
  try {
    const ready = once(client, Events.ClientReady);
    ready.catch(() => {}); // awaited below; a login failure must not leave it unhandled
    await client.login(token).catch((error: unknown) => {
      if (error instanceof Error && /disallowed intents/i.test(error.message)) throw new Error(DISALLOWED_INTENTS_HINT, { cause: error });
      if (isRejectedToken(error)) throw new BotStopError("discord: the token was rejected (401 Unauthorized): check DISCORD_BOT_TOKEN, or reset it in the Developer Portal", true, { cause: error });
      throw error;
    });
    await ready; // after GUILD_CREATE: guild channels are cached and messages in them are no longer dropped
    // Deliver only once the bot listens, so nobody can answer a prompt the bot would not hear.
    await deliver();
  } catch (error) {
    await client.destroy();
    throw error;
  }
  log(`connected to Discord as ${client.user?.tag ?? "the bot"}`);
  return { stop: () => client.destroy() };
}

/**
 * The Discord bot: discord.js on the gateway and REST API (or DISCORD_API_URL). Prompts are channel messages with
 * buttons, Other… opens a modal, typed replies are parsed by the bridge, and every edit uses the channel API.
 */
export async function startDiscordBot(config: Config, options: DiscordBotOptions = {}): Promise<RunningBot> {
  const { DISCORD_BOT_TOKEN } = requireConfig(config, ["DISCORD_BOT_TOKEN"]);
  const log = options.log ?? createLog("discord");
  const client = new Client({
    intents: INTENTS,
    partials: [Partials.Channel], // DMs arrive for channels the bot has not cached
    allowedMentions: { parse: [], repliedUser: false },
    ...(config.DISCORD_API_URL ? { rest: { api: config.DISCORD_API_URL.replace(/\/+$/, "") } } : {}),
  });
  client.on(Events.Error, (error) => log("discord.js error", error));
  client.on(Events.Warn, (message) => log(`discord.js warning: ${message}`));
  client.on(Events.ShardError, (error) => log("gateway connection error", error));
  logShardStates(client, config.DISCORD_API_URL ?? "https://discord.com/api", log);
  client.rest.on(RESTEvents.RateLimited, (info) => log(`rate limited on ${info.method.toUpperCase()} ${info.route}: retrying in ${info.retryAfter} ms`));

  return startBridgeBot({
    config,
    log,
    allowedUsers: config.DISCORD_ALLOWED_USERS,
    otherOpens: "modal",
    adapter: createDiscordAdapter(client, log),
    toPlatformText: (text) => cutToFit(text, DISCORD_CONTENT_MAX, toDiscordContent),
    listen: (bridge) => registerDiscordInbound(client, bridge, log),
    start: (deliver) => login(client, DISCORD_BOT_TOKEN, deliver, log),
  });
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot discord`). */
export { startDiscordBot as startBot };
