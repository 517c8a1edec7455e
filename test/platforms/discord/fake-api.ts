import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakeDiscordGateway } from "./discord-gateway.ts";
import { createFakeRest, invalidMessageBody, NO_CONTENT, restError as error, restOk as ok, type RestResult, type RestRoute } from "./discord-rest.ts";
import {
  APPLICATION_ID,
  BOT_USER,
  channelPayload,
  CALLBACK_TYPE,
  CHANNEL_TYPE,
  GUILD_ID,
  guildPayload,
  INTENT,
  interactionBase,
  INTERACTION_TYPE,
  memberPayload,
  MESSAGE_FLAG_EPHEMERAL,
  messagePayload,
  type FakeDiscordChannel,
  type FakeDiscordMessage,
  type FakeDiscordUser,
} from "./discord-payloads.ts";

/** An interaction the fake created, and how the bot answered it. */
export interface FakeInteraction {
  id: string;
  token: string;
  type: number;
  user: FakeDiscordUser;
  channel: FakeDiscordChannel;
  message: FakeDiscordMessage;
  createdAtMs: number;
  callback?: { type: number; data?: any; atMs: number };
  /** Ephemeral texts shown to the user through this interaction (the reply, then follow-ups). */
  notices: string[];
  /** Its token is past Discord's 15 minutes: webhook routes refuse it. */
  expired?: boolean;
}

const INTERACTION_WINDOW_MS = 3_000;

/**
 * A local stand-in for Discord: the REST API under /api/v10 and the gateway WebSocket, sharing one port.
 * Tests drive people through `type`, `press` and `submitModal`.
 */
export async function startFakeDiscord(options: { token: string; heartbeatIntervalMs?: number; disallowedIntents?: number }) {
  const channels = new Map<string, FakeDiscordChannel>();
  const users = new Map<string, FakeDiscordUser>();
  const messages = new Map<string, FakeDiscordMessage>();
  const interactions = new Map<string, FakeInteraction>();
  const blockedDms = new Set<string>();
  /** Deleting the bot's own messages is refused (as if a moderation setting forbade it). */
  let refuseOwnDeletes = false;
  let counter = 0;
  const snowflake = () => String(((BigInt(Date.now()) - 1_420_070_400_000n) << 22n) + BigInt(++counter));

  const rest = createFakeRest(options.token, () => routes);
  const server = createServer((req, res) => {
    rest.serve(req, res).catch((error) => res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ code: 0, message: String(error) })));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gateway = startFakeDiscordGateway(server, baseUrl, {
    token: options.token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 1_000,
    ...(options.disallowedIntents ? { disallowedIntents: options.disallowedIntents } : {}),
    ready: () => ({ user: BOT_USER, guilds: [{ id: GUILD_ID, unavailable: true }], application: { id: APPLICATION_ID, flags: 0 }, private_channels: [] }),
    guilds: () => [guildPayload([...channels.values()].filter((c) => c.guild_id === GUILD_ID), [...users.values()])],
  });

  // ------------------------------------------------------------------ state helpers

  function createMessage(channel: FakeDiscordChannel, author: FakeDiscordUser, body: any, extra: Partial<FakeDiscordMessage> = {}): FakeDiscordMessage {
    const message: FakeDiscordMessage = {
      id: snowflake(),
      channel_id: channel.id,
      ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
      author,
      content: String(body.content ?? ""),
      components: body.components ?? [],
      sentComponents: body.components ?? [],
      ...(body.allowed_mentions ? { allowed_mentions: body.allowed_mentions } : {}),
      ...(body.message_reference ? { message_reference: { channel_id: channel.id, ...(channel.guild_id ? { guild_id: channel.guild_id } : {}), message_id: String(body.message_reference.message_id) } } : {}),
      flags: Number(body.flags ?? 0),
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      deleted: false,
      edits: 0,
      ...extra,
    };
    messages.set(message.id, message);
    if (!message.visibleTo) dispatchMessageCreate(message);
    return message;
  }

  function dispatchMessageCreate(message: FakeDiscordMessage): void {
    const referenced = message.message_reference ? messages.get(message.message_reference.message_id) : undefined;
    const inGuild = Boolean(message.guild_id);
    gateway.dispatch("MESSAGE_CREATE", (intents: number) => {
      if (!(intents & (inGuild ? INTENT.GUILD_MESSAGES : INTENT.DIRECT_MESSAGES))) return null;
      const payload = messagePayload(message, referenced);
      // Without the privileged Message Content intent, guild messages arrive with no content.
      if (inGuild && !(intents & INTENT.MESSAGE_CONTENT) && message.author.id !== BOT_USER.id) Object.assign(payload, { content: "", components: [] });
      // The gateway adds channel_type, which lets a client build a DM channel it has not cached.
      const channelType = channels.get(message.channel_id)?.type ?? CHANNEL_TYPE.GUILD_TEXT;
      return inGuild ? { ...payload, channel_type: channelType, member: memberPayload(message.author) } : { ...payload, channel_type: channelType };
    });
  }

  function tokenProblem(appId: string, token: string): RestResult | FakeInteraction {
    const interaction = [...interactions.values()].find((i) => i.token === token);
    if (appId !== APPLICATION_ID || !interaction || !interaction.callback) return error(404, 10015, "Unknown Webhook");
    if (interaction.expired) return error(401, 50027, "Invalid Webhook Token");
    return interaction;
  }

  function notice(interaction: FakeInteraction, data: any): FakeDiscordMessage {
    const message = createMessage(interaction.channel, BOT_USER, data, { webhook_id: APPLICATION_ID, ...(data.flags & MESSAGE_FLAG_EPHEMERAL ? { visibleTo: interaction.user.id } : {}) });
    if (message.visibleTo) interaction.notices.push(message.content);
    return message;
  }

  // ------------------------------------------------------------------ REST routes

  const routes: RestRoute[] = [
    ["GET", "/gateway/bot", () => ok({ url: gateway.url, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } })],
    ["GET", "/users/@me", () => ok(BOT_USER)],
    ["GET", "/channels/:id", ({ params: [id] }) => {
      const channel = channels.get(id!);
      if (!channel) return error(404, 10003, "Unknown Channel");
      return channel.hidden ? error(403, 50001, "Missing Access") : ok(channelPayload(channel));
    }],
    ["POST", "/channels/:id/messages", ({ params: [id], body }) => {
      const channel = channels.get(id!);
      if (!channel) return error(404, 10003, "Unknown Channel");
      if (channel.hidden) return error(403, 50001, "Missing Access");
      const recipient = channel.recipients?.[0];
      if (recipient && blockedDms.has(recipient.id)) return error(403, 50007, "Cannot send messages to this user");
      const invalid = invalidMessageBody(body);
      if (invalid) return error(400, 50035, `Invalid Form Body: ${invalid}`);
      return ok(messagePayload(createMessage(channel, BOT_USER, body)));
    }],
    ["PATCH", "/channels/:id/messages/:id", ({ params: [channelId, messageId], body }) => {
      const message = messages.get(messageId!);
      if (!message || message.deleted || message.channel_id !== channelId) return error(404, 10008, "Unknown Message");
      if (message.author.id !== BOT_USER.id || message.webhook_id) return error(403, 50005, "Cannot edit a message authored by another user");
      const invalid = invalidMessageBody(body);
      if (invalid) return error(400, 50035, `Invalid Form Body: ${invalid}`);
      if ("content" in body) message.content = String(body.content);
      if ("components" in body) message.components = body.components ?? [];
      if ("allowed_mentions" in body) message.allowed_mentions = body.allowed_mentions;
      message.edits++;
      message.edited_timestamp = new Date().toISOString();
      return ok(messagePayload(message));
    }],
    ["DELETE", "/channels/:id/messages/:id", ({ params: [channelId, messageId] }) => {
      const message = messages.get(messageId!);
      const channel = channels.get(channelId!);
      if (!message || !channel || message.deleted || message.channel_id !== channelId) return error(404, 10008, "Unknown Message");
      if (message.author.id !== BOT_USER.id && channel.type === CHANNEL_TYPE.DM) return error(403, 50003, "Cannot execute action on a DM channel");
      if (message.author.id !== BOT_USER.id && channel.noManageMessages) return error(403, 50013, "Missing Permissions");
      if (message.author.id === BOT_USER.id && refuseOwnDeletes) return error(403, 50013, "Missing Permissions");
      message.deleted = true;
      return NO_CONTENT;
    }],
    ["PUT", "/channels/:id/messages/:id/reactions/:id/@me", ({ params: [channelId, messageId, emoji] }) => {
      const message = messages.get(messageId!);
      if (!message || message.deleted || message.channel_id !== channelId) return error(404, 10008, "Unknown Message");
      message.reactions = [...(message.reactions ?? []), emoji!];
      return NO_CONTENT;
    }],
    ["POST", "/users/@me/channels", ({ body }) => {
      const user = users.get(String(body.recipient_id));
      if (!user) return error(400, 50035, "Invalid Form Body: recipient_id: Unknown User");
      return ok(channelPayload(dmChannelOf(user)));
    }],
    ["POST", "/interactions/:id/:token/callback", ({ params: [id, token], body }) => {
      const interaction = interactions.get(id!);
      if (!interaction || interaction.token !== token || Date.now() - interaction.createdAtMs > INTERACTION_WINDOW_MS) return error(404, 10062, "Unknown interaction");
      if (interaction.callback) return error(400, 40060, "Interaction has already been acknowledged.");
      if (body.type === CALLBACK_TYPE.MODAL) {
        const modal = body.data ?? {};
        if (!modal.title || modal.title.length > 45 || !modal.custom_id || modal.custom_id.length > 100 || !modal.components?.length) return error(400, 50035, "Invalid Form Body: modal");
      }
      interaction.callback = { type: body.type, data: body.data, atMs: Date.now() };
      if (body.type === CALLBACK_TYPE.REPLY) notice(interaction, body.data ?? {});
      if (body.type === CALLBACK_TYPE.UPDATE) Object.assign(interaction.message, { content: body.data?.content ?? interaction.message.content, components: body.data?.components ?? interaction.message.components });
      return NO_CONTENT;
    }],
    ["POST", "/webhooks/:id/:token", ({ params: [appId, token], body }) => {
      const found = tokenProblem(appId!, token!);
      if (!("notices" in found)) return found;
      return ok(messagePayload(notice(found, body)));
    }],
    ["PATCH", "/webhooks/:id/:token/messages/:id", ({ params: [appId, token] }) => {
      const found = tokenProblem(appId!, token!);
      return "notices" in found ? ok(messagePayload(found.message)) : found;
    }],
  ];
  // ------------------------------------------------------------------ people

  function dmChannelOf(user: FakeDiscordUser): FakeDiscordChannel {
    const existing = [...channels.values()].find((c) => c.type === CHANNEL_TYPE.DM && c.recipients?.[0]?.id === user.id);
    if (existing) return existing;
    const channel: FakeDiscordChannel = { id: snowflake(), type: CHANNEL_TYPE.DM, recipients: [user] };
    channels.set(channel.id, channel);
    return channel;
  }

  function channelOrThrow(id: string): FakeDiscordChannel {
    const channel = channels.get(id);
    if (!channel) throw new Error(`no channel ${id}`);
    return channel;
  }

  function interact(type: number, message: FakeDiscordMessage, user: FakeDiscordUser, data: unknown): FakeInteraction {
    const channel = channelOrThrow(message.channel_id);
    const interaction: FakeInteraction = { id: snowflake(), token: `itok-${snowflake()}`, type, user, channel, message, createdAtMs: Date.now(), notices: [] };
    interactions.set(interaction.id, interaction);
    gateway.dispatch("INTERACTION_CREATE", { ...interactionBase(interaction), data, message: messagePayload(message) });
    return interaction;
  }

  async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  return {
    baseUrl,
    apiUrl: `${baseUrl}/api`,
    gateway,
    calls: rest.calls,
    interactions: () => [...interactions.values()],
    addTextChannel(id: string, name: string, extra: Partial<FakeDiscordChannel> = {}): FakeDiscordChannel {
      const channel: FakeDiscordChannel = { id, type: CHANNEL_TYPE.GUILD_TEXT, name, guild_id: GUILD_ID, ...extra };
      channels.set(id, channel);
      return channel;
    },
    addUser(id: string, name: string): FakeDiscordUser {
      const user = { id, username: name.toLowerCase(), global_name: name, discriminator: "0" as const, avatar: null };
      users.set(id, user);
      return user;
    },
    user: (id: string) => users.get(id),
    dmChannelOf,
    /** This user refuses DMs from the bot (sends get 50007). */
    blockDms: (userId: string) => void blockedDms.add(userId),
    message(id: string): FakeDiscordMessage {
      const message = messages.get(id);
      if (!message) throw new Error(`no message ${id}`);
      return message;
    },
    messagesIn: (channelId: string) => [...messages.values()].filter((m) => m.channel_id === channelId),
    rateLimitNext: rest.rateLimitNext,
    holdNext: rest.holdNext,
    /** The bot lacks Manage Messages in every guild channel (deleting someone's message gets 403), or has it again. */
    denyManageMessages(deny: boolean): void {
      for (const channel of channels.values()) if (channel.guild_id) channel.noManageMessages = deny;
    },
    /** Whether deleting the bot's own messages is refused (403 Missing Permissions). */
    refuseOwnDeletes(refuse: boolean): void {
      refuseOwnDeletes = refuse;
    },
    /** MESSAGE_CREATE for this message again (a gateway replay after a RESUME). */
    redeliver: (message: FakeDiscordMessage) => dispatchMessageCreate(message),
    /** Every interaction token issued so far is now past its 15 minutes. */
    expireInteractionTokens(): void {
      for (const interaction of interactions.values()) interaction.expired = true;
    },
    /** Someone types in a channel, optionally replying to a message. */
    type(channelId: string, author: FakeDiscordUser, text: string, replyTo?: FakeDiscordMessage): FakeDiscordMessage {
      return createMessage(channelOrThrow(channelId), author, { content: text, ...(replyTo ? { message_reference: { message_id: replyTo.id } } : {}) });
    },
    /** Someone presses a button with this custom_id on a message. */
    press: (message: FakeDiscordMessage, customId: string, user: FakeDiscordUser) =>
      interact(INTERACTION_TYPE.MESSAGE_COMPONENT, message, user, { custom_id: customId, component_type: 2 }),
    /**
     * Someone submits the modal the bot opened in answer to `opened`, typing `text` into every text input. `as`
     * submits it as another user (a forged submission: the modal was opened for someone else).
     */
    submitModal(opened: FakeInteraction, text: string, as?: FakeDiscordUser): FakeInteraction {
      const modal = opened.callback?.data;
      if (opened.callback?.type !== CALLBACK_TYPE.MODAL || !modal) throw new Error("the bot did not open a modal for that interaction");
      const fill = (c: any) => ({ type: c.type, ...(c.id ? { id: c.id } : {}), custom_id: c.custom_id, value: text });
      const components = modal.components.map((c: any) =>
        c.type === 18 ? { type: 18, ...(c.id ? { id: c.id } : {}), component: fill(c.component) } : { type: c.type, components: c.components.map(fill) },
      );
      return interact(INTERACTION_TYPE.MODAL_SUBMIT, opened.message, as ?? opened.user, { custom_id: modal.custom_id, components });
    },
    /** Resolves once the bot acknowledged the interaction. */
    acknowledged: (interaction: FakeInteraction) => until(() => interaction.callback, `the bot to acknowledge interaction ${interaction.id}`),
    /** Resolves to the first ephemeral text the person was shown for this interaction. */
    firstNotice: (interaction: FakeInteraction) => until(() => interaction.notices[0], `an ephemeral notice for interaction ${interaction.id}`),
    privateNotices: (userId: string) => [...messages.values()].filter((m) => m.visibleTo === userId).map((m) => m.content),
    async close(): Promise<void> {
      await gateway.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type FakeDiscord = Awaited<ReturnType<typeof startFakeDiscord>>;
