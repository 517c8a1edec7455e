/** Discord API objects as the fake sends them: users, channels, messages, members, interactions. */

export const GUILD_ID = "800000000000000001";
export const APPLICATION_ID = "900000000000000002";

export const CHANNEL_TYPE = { GUILD_TEXT: 0, DM: 1 } as const;
export const INTERACTION_TYPE = { MESSAGE_COMPONENT: 3, MODAL_SUBMIT: 5 } as const;
export const CALLBACK_TYPE = { REPLY: 4, DEFERRED_REPLY: 5, DEFERRED_UPDATE: 6, UPDATE: 7, MODAL: 9 } as const;
export const MESSAGE_FLAG_EPHEMERAL = 64;
export const INTENT = { GUILDS: 1 << 0, GUILD_MESSAGES: 1 << 9, DIRECT_MESSAGES: 1 << 12, MESSAGE_CONTENT: 1 << 15 } as const;
/** Everything but Administrator: a member's permissions as an interaction carries them. */
const MEMBER_PERMISSIONS = "2248473465835073";

export interface FakeDiscordUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: "0";
  avatar: null;
  bot?: boolean;
}

export const BOT_USER: FakeDiscordUser = { id: "900000000000000001", username: "askbot", global_name: "AskBot", discriminator: "0", avatar: null, bot: true };

export interface FakeDiscordChannel {
  id: string;
  type: (typeof CHANNEL_TYPE)[keyof typeof CHANNEL_TYPE];
  name?: string;
  guild_id?: string;
  recipients?: FakeDiscordUser[];
  /** The bot cannot see this channel: reads and sends get 403 Missing Access. */
  hidden?: boolean;
  /** The bot lacks Manage Messages here: deleting someone's message gets 403 Missing Permissions. */
  noManageMessages?: boolean;
}

export interface FakeDiscordMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeDiscordUser;
  content: string;
  components: any[];
  /** The components as first sent: a client that has not refreshed can still press these. */
  sentComponents: any[];
  allowed_mentions?: any;
  message_reference?: { message_id: string; channel_id: string; guild_id?: string };
  flags: number;
  webhook_id?: string;
  timestamp: string;
  edited_timestamp: string | null;
  deleted: boolean;
  edits: number;
  /** Set for ephemeral messages: only this user sees it. */
  visibleTo?: string;
  /** The bot's reactions on it, as emoji. */
  reactions?: string[];
}

export function userPayload(id: string, name: string): FakeDiscordUser {
  return { id, username: name.toLowerCase(), global_name: name, discriminator: "0", avatar: null };
}

export function channelPayload(channel: FakeDiscordChannel) {
  if (channel.type === CHANNEL_TYPE.DM) return { id: channel.id, type: channel.type, recipients: channel.recipients ?? [], last_message_id: null, flags: 0 };
  return {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guild_id,
    name: channel.name,
    position: 0,
    permission_overwrites: [],
    nsfw: false,
    parent_id: null,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: 0,
  };
}

export function memberPayload(user: FakeDiscordUser, withPermissions = false) {
  return {
    user,
    nick: null,
    roles: [],
    joined_at: "2024-01-01T00:00:00.000Z",
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    ...(withPermissions ? { permissions: MEMBER_PERMISSIONS } : {}),
  };
}

/** A message as REST returns it and MESSAGE_CREATE carries it. */
export function messagePayload(message: FakeDiscordMessage, referenced?: FakeDiscordMessage): Record<string, unknown> {
  return {
    id: message.id,
    type: message.message_reference ? 19 : 0,
    channel_id: message.channel_id,
    ...(message.guild_id ? { guild_id: message.guild_id } : {}),
    author: message.author,
    content: message.content,
    timestamp: message.timestamp,
    edited_timestamp: message.edited_timestamp,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    flags: message.flags,
    components: message.components,
    ...(message.webhook_id ? { webhook_id: message.webhook_id, application_id: APPLICATION_ID } : {}),
    ...(message.message_reference ? { message_reference: { type: 0, ...message.message_reference } } : {}),
    ...(referenced ? { referenced_message: messagePayload(referenced) } : {}),
  };
}

/** A GUILD_CREATE for the fake's one guild, with its text channels and members. */
export function guildPayload(channels: FakeDiscordChannel[], members: FakeDiscordUser[]) {
  return {
    id: GUILD_ID,
    name: "Ask Bridge Test",
    icon: null,
    owner_id: members[0]?.id ?? BOT_USER.id,
    unavailable: false,
    large: false,
    member_count: members.length + 1,
    joined_at: "2024-01-01T00:00:00.000Z",
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    premium_tier: 0,
    preferred_locale: "en-US",
    system_channel_flags: 0,
    features: [],
    roles: [{ id: GUILD_ID, name: "@everyone", permissions: MEMBER_PERMISSIONS, position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }],
    emojis: [],
    stickers: [],
    channels: channels.map(channelPayload),
    threads: [],
    members: [BOT_USER, ...members].map((u) => memberPayload(u)),
    voice_states: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** The fields every interaction carries, whatever its type. */
export function interactionBase(fields: { id: string; token: string; type: number; user: FakeDiscordUser; channel: FakeDiscordChannel }) {
  const { id, token, type, user, channel } = fields;
  const inGuild = channel.type !== CHANNEL_TYPE.DM;
  return {
    id,
    token,
    type,
    application_id: APPLICATION_ID,
    version: 1,
    channel_id: channel.id,
    channel: channelPayload(channel),
    ...(inGuild ? { guild_id: GUILD_ID, guild_locale: "en-US", member: memberPayload(user, true) } : { user }),
    app_permissions: MEMBER_PERMISSIONS,
    locale: "en-US",
    entitlements: [],
    authorizing_integration_owners: inGuild ? { "0": GUILD_ID } : { "1": user.id },
    context: inGuild ? 0 : 1,
    attachment_size_limit: 26_214_400,
  };
}
