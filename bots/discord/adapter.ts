import { DiscordAPIError, RESTJSONErrorCodes, Routes, type APIMessage, type Client } from "discord.js";
import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { cutToFit, type ChatOptions } from "../../src/render/index.ts";
import { DISCORD_CONTENT_MAX, renderDiscordPrompt, renderDiscordSummary } from "../../src/platforms/discord/payload.ts";
import { toDiscordContent } from "../../src/platforms/discord/escaping.ts";
import type { Log } from "../shared.ts";

/** Channel and user ids are snowflakes: 17-20 digits. */
const SNOWFLAKE = /^\d{17,20}$/;

/** Discord answers these for a target that will never accept the message: report delivery_failed at once. */
const PERMANENT_CODES = new Set<number>([
  RESTJSONErrorCodes.UnknownChannel,
  RESTJSONErrorCodes.UnknownUser,
  RESTJSONErrorCodes.MissingAccess,
  RESTJSONErrorCodes.CannotSendMessagesToThisUser,
  RESTJSONErrorCodes.InvalidRecipients,
  RESTJSONErrorCodes.CannotSendMessagesInNonTextChannel,
  RESTJSONErrorCodes.MissingPermissions,
]);

export const isDiscordError = (error: unknown, code: number): error is DiscordAPIError => error instanceof DiscordAPIError && error.code === code;

function permanentOr(error: unknown): unknown {
  if (!(error instanceof DiscordAPIError)) return error;
  if (PERMANENT_CODES.has(Number(error.code)) || error.status === 403) return new PermanentSendError(`${error.message} (Discord error ${error.code})`);
  // A user id Discord refuses to open a DM with ("Invalid Form Body: recipient_id").
  if (error.code === RESTJSONErrorCodes.InvalidFormBodyOrContentType && /recipient/i.test(error.message)) return new PermanentSendError(error.message);
  return error;
}

/** A messageRef is `<channel id>/<message id>`: the real channel, which for a DM differs from the target's user id. */
export const toMessageRef = (channelId: string, messageId: string) => `${channelId}/${messageId}`;

export function fromMessageRef(messageRef: string, chat: string): { channelId: string; messageId: string } {
  const [channelId, messageId] = messageRef.includes("/") ? messageRef.split("/") : [chat, messageRef];
  return { channelId: channelId!, messageId: messageId! };
}

/**
 * Sends prompts and edits them through the bot's own channel-message API (never an interaction token, which dies
 * after 15 minutes while a question may live an hour). Every payload is the renderer's plain JSON, so it carries
 * `allowed_mentions: { parse: [] }`. Rate limits are left to discord.js's REST queue.
 *
 * Targets: a target's chat is a channel id or, for a DM, a user id. Snowflakes never collide across kinds, so the
 * adapter looks the id up as a channel first; when Discord answers Unknown Channel (10003) it opens a DM with the
 * user of that id instead (and remembers the DM channel).
 */
export function createDiscordAdapter(client: Client, log: Log): SurfaceAdapter {
  const dmChannels = new Map<string, string>(); // user id → DM channel id

  async function channelFor(chat: string): Promise<string> {
    if (!SNOWFLAKE.test(chat)) throw new PermanentSendError(`"${chat}" is not a Discord channel id or user id`);
    const known = dmChannels.get(chat) ?? client.channels.cache.get(chat)?.id;
    if (known) return known;
    try {
      const channel = await client.channels.fetch(chat);
      if (!channel?.isTextBased()) throw new PermanentSendError(`channel ${chat} does not take messages`);
      return channel.id;
    } catch (error) {
      if (!isDiscordError(error, RESTJSONErrorCodes.UnknownChannel)) throw permanentOr(error);
    }
    try {
      const dm = await client.users.createDM(chat);
      dmChannels.set(chat, dm.id);
      return dm.id;
    } catch (error) {
      throw permanentOr(error);
    }
  }

  /** A DM (the target is a user, or the channel is a DM) takes any message; a guild channel only replies to the prompt. */
  function chatOf(chat: string, channelId = chat): ChatOptions {
    const direct = dmChannels.has(chat) || client.channels.cache.get(channelId)?.isDMBased() === true;
    return { chat: direct ? "direct" : "group" };
  }

  return {
    surface: "discord",
    renderedOf: (record, chat, nowMs) => renderDiscordSummary(record, { ...chatOf(chat), targetChat: chat, ...(nowMs !== undefined ? { nowMs } : {}) }),
    async sendPrompt(record, target) {
      const channelId = await channelFor(target.chat!);
      try {
        const message = (await client.rest.post(Routes.channelMessages(channelId), { body: renderDiscordPrompt(record, { ...chatOf(target.chat!, channelId), targetChat: target.chat! }) })) as APIMessage;
        return toMessageRef(channelId, message.id);
      } catch (error) {
        throw permanentOr(error);
      }
    },
    async updatePrompt(record, delivery, nowMs) {
      const { channelId, messageId } = fromMessageRef(delivery.messageRef, delivery.chat);
      try {
        const body = renderDiscordSummary(record, { ...chatOf(delivery.chat, channelId), targetChat: delivery.chat, ...(nowMs !== undefined ? { nowMs } : {}) });
        await client.rest.patch(Routes.channelMessage(channelId, messageId), { body });
      } catch (error) {
        // Someone deleted the prompt (or the channel): there is nothing left to edit.
        if (isDiscordError(error, RESTJSONErrorCodes.UnknownMessage) || isDiscordError(error, RESTJSONErrorCodes.UnknownChannel)) {
          log(`the prompt of ${record.id} in ${delivery.chat} is gone`);
          return;
        }
        throw error;
      }
    },
    reminders: {
      // A reply to the prompt (a message reference), which pings nobody: no mentions parsed, no replied-user ping.
      async send(delivery, text) {
        const { channelId, messageId } = fromMessageRef(delivery.messageRef, delivery.chat);
        const body = {
          content: cutToFit(text, DISCORD_CONTENT_MAX, toDiscordContent),
          message_reference: { message_id: messageId, channel_id: channelId, fail_if_not_exists: false },
          allowed_mentions: { parse: [], replied_user: false },
        };
        try {
          const message = (await client.rest.post(Routes.channelMessages(channelId), { body })) as APIMessage;
          return toMessageRef(channelId, message.id);
        } catch (error) {
          throw permanentOr(error);
        }
      },
      async delete(reminder) {
        const { channelId, messageId } = fromMessageRef(reminder.messageRef, reminder.chat);
        try {
          await client.rest.delete(Routes.channelMessage(channelId, messageId));
          return true;
        } catch (error) {
          if (isDiscordError(error, RESTJSONErrorCodes.UnknownMessage) || isDiscordError(error, RESTJSONErrorCodes.UnknownChannel)) return true;
          if (error instanceof DiscordAPIError && error.status === 403) return false;
          throw error;
        }
      },
      async edit(reminder, text) {
        const { channelId, messageId } = fromMessageRef(reminder.messageRef, reminder.chat);
        const body = { content: cutToFit(text, DISCORD_CONTENT_MAX, toDiscordContent), allowed_mentions: { parse: [] } };
        await client.rest.patch(Routes.channelMessage(channelId, messageId), { body });
      },
    },
  };
}
