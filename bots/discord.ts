import { once } from "node:events";
import { Client, Events, GatewayIntentBits, Partials, RESTEvents, Routes, type Message } from "discord.js";
import { createBridge, type BridgeResponse } from "../src/bridge/index.ts";
import type { Config } from "../src/config.ts";
import { createDiscordAdapter, toMessageRef } from "./discord-adapter.ts";
import { bridgeUserOf, createInteractionHandlers } from "./discord-interactions.ts";
import { connectBotToGateway, createLog, type Log, type RunningBot } from "./shared.ts";

export interface DiscordBotOptions {
  log?: Log;
}

/** Guilds for the channel cache, messages in guild channels and DMs, and their text (privileged in guilds). */
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages];
const NO_PINGS = { parse: [] as [] };
const DISALLOWED_INTENTS_HINT =
  "Discord refused the bot's gateway intents: enable Message Content Intent under Bot → Privileged Gateway Intents in the Discord Developer Portal";

/**
 * The Discord bot: discord.js on the gateway and REST API (or DISCORD_API_URL). Prompts are channel messages with
 * buttons, Other… opens a modal, typed replies are parsed by the bridge, and every edit uses the channel API.
 */
export async function startDiscordBot(config: Config, options: DiscordBotOptions = {}): Promise<RunningBot> {
  const log = options.log ?? createLog("discord");
  if (!config.DISCORD_BOT_TOKEN) throw new Error("DISCORD_BOT_TOKEN: is required for the Discord bot");
  const client = new Client({
    intents: INTENTS,
    partials: [Partials.Channel], // DMs arrive for channels the bot has not cached
    allowedMentions: { ...NO_PINGS, repliedUser: false },
    ...(config.DISCORD_API_URL ? { rest: { api: config.DISCORD_API_URL.replace(/\/+$/, "") } } : {}),
  });
  client.on(Events.Error, (error) => log("discord.js error", error));
  client.on(Events.Warn, (message) => log(`discord.js warning: ${message}`));
  client.on(Events.ShardError, (error) => log("gateway connection error", error));
  client.rest.on(RESTEvents.RateLimited, (info) => log(`rate limited on ${info.method.toUpperCase()} ${info.route}: retrying in ${info.retryAfter} ms`));

  const gateway = await connectBotToGateway(config, log);
  const bridge = createBridge({ client: gateway, allowedUsers: config.DISCORD_ALLOWED_USERS, otherOpens: "modal", log, adapter: createDiscordAdapter(client, log) });
  const interactions = createInteractionHandlers(bridge, log);

  /** Sends a plain message in a channel, as a reply to `replyTo` when given. */
  async function say(channelId: string, text: string, replyTo?: string): Promise<void> {
    await client.rest.post(Routes.channelMessages(channelId), {
      body: {
        content: text,
        allowed_mentions: { ...NO_PINGS, replied_user: false },
        ...(replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {}),
      },
    });
  }

  async function respond(message: Message, response: BridgeResponse): Promise<void> {
    if (response.deleteMessage) await message.delete().catch((error) => log("could not delete a credential message", error));
    // Discord has no private reply to a message: a refusal is said in the channel, as on Telegram.
    if (response.reply) await say(message.channelId, response.reply.text, response.deleteMessage ? undefined : message.id);
  }

  client.on(Events.MessageCreate, (message) => {
    if (message.author.bot || message.system || !message.content) return;
    const reference = message.reference?.messageId;
    void bridge
      .handle({
        kind: "text",
        text: message.content,
        user: bridgeUserOf(message.author, message.member),
        // In a DM the target chat is the person's user id, not the DM channel's id.
        chat: message.inGuild() ? message.channelId : message.author.id,
        ...(reference ? { replyToMessageRef: toMessageRef(message.reference?.channelId ?? message.channelId, reference) } : {}),
      })
      .then((response) => response && respond(message, response))
      .catch((error) => log(`message ${message.id} failed`, error));
  });

  client.on(Events.InteractionCreate, (interaction) => {
    const handled = interaction.isButton() ? interactions.button(interaction) : interaction.isModalSubmit() ? interactions.modal(interaction) : undefined;
    handled?.catch((error) => log(`interaction ${interaction.id} failed`, error));
  });

  try {
    const ready = once(client, Events.ClientReady);
    ready.catch(() => {}); // awaited below; a login failure must not leave it unhandled
    await client.login(config.DISCORD_BOT_TOKEN).catch((error: unknown) => {
      if (error instanceof Error && /disallowed intents/i.test(error.message)) throw new Error(DISALLOWED_INTENTS_HINT, { cause: error });
      throw error;
    });
    await ready; // after GUILD_CREATE: guild channels are cached and messages in them are no longer dropped
    // Deliver only once the bot listens, so nobody can answer a prompt the bot would not hear.
    await bridge.start();
  } catch (error) {
    await client.destroy();
    gateway.close();
    throw error;
  }
  log(`connected to Discord as ${client.user?.tag ?? "the bot"}`);

  return {
    async stop() {
      await client.destroy();
      gateway.close();
    },
  };
}
