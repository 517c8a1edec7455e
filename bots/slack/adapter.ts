import { webApi } from "@slack/bolt";
import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { cutToFit, type ChatOptions } from "../../src/render/index.ts";
import { renderSlackPrompt, renderSlackSummary, SLACK_SECTION_TEXT_MAX } from "../../src/platforms/slack/payload.ts";
import { toSlackText } from "../../src/platforms/slack/escaping.ts";
import type { Log } from "../shared.ts";
import { createChannelPacer } from "./channel-pacer.ts";

/** A user id (`U…`, or `W…` on Enterprise Grid): the target is a DM, opened with conversations.open. */
const USER_ID = /^[UW][A-Z0-9]+$/;
/** A direct-message channel: the only person in it is the one talking to the bot. */
const DM_CHANNEL = /^D[A-Z0-9]+$/;

/** A user's DM (a user id or a D… channel) takes any message; a channel counts only thread replies (the prompt says so). */
const chatOf = (chat: string): ChatOptions => ({ chat: USER_ID.test(chat) || DM_CHANNEL.test(chat) ? "direct" : "group" });

/** Slack answers these for a chat that will never accept the message: report delivery_failed at once. */
const PERMANENT_ERRORS = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "user_not_found",
  "user_not_visible",
  "user_disabled",
  "cannot_dm_bot",
  "messages_tab_disabled",
  "restricted_action",
  "restricted_action_read_only_channel",
  "restricted_action_thread_only_channel",
  "restricted_action_non_threadable_channel",
  "team_access_not_granted",
  "ekm_access_denied",
  "invalid_blocks",
  "msg_too_long",
]);

/** The Web API error code of a platform error (`ok: false`), if that is what this is. */
export function slackErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== webApi.ErrorCode.PlatformError) return undefined;
  const code = (error as { data?: { error?: unknown } }).data?.error;
  return typeof code === "string" ? code : undefined;
}

/** A delivered prompt is `<channel>:<ts>`: the real channel (the DM's `D…` for a user target) and the message ts. */
export function encodeSlackMessageRef(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

export function decodeSlackMessageRef(ref: string): { channel: string; ts: string } | null {
  const at = ref.indexOf(":");
  if (at <= 0 || at === ref.length - 1) return null;
  return { channel: ref.slice(0, at), ts: ref.slice(at + 1) };
}

/**
 * Maps between a question's target chat (a channel id, or a user id for a DM) and the channel Slack uses
 * (the DM's `D…` id), in both directions.
 */
export function createSlackConversations(client: webApi.WebClient) {
  const dmOfUser = new Map<string, string>();
  const chatOfChannel = new Map<string, string>();

  return {
    /** The channel to post in for a target chat; opens the DM for a user id. */
    async channelFor(chat: string): Promise<string> {
      if (!USER_ID.test(chat)) return chat;
      const known = dmOfUser.get(chat);
      if (known) return known;
      const opened = await client.conversations.open({ users: chat });
      const channel = opened.channel?.id;
      if (!channel) throw new Error(`conversations.open gave no channel for ${chat}`);
      dmOfUser.set(chat, channel);
      chatOfChannel.set(channel, chat);
      return channel;
    },
    /** Remembers that prompts for `chat` live in `channel`. */
    remember(channel: string, chat: string): void {
      if (channel !== chat) chatOfChannel.set(channel, chat);
    },
    /** The target chat an event in `channel` belongs to; in a DM that is the person (the DM's only human). */
    chatOf(channel: string, person: string, isDirect = DM_CHANNEL.test(channel)): string {
      return chatOfChannel.get(channel) ?? (isDirect ? person : channel);
    },
  };
}

export type SlackConversations = ReturnType<typeof createSlackConversations>;

/** Sends prompts with chat.postMessage and turns each copy into the summary with chat.update. */
export function createSlackAdapter(client: webApi.WebClient, conversations: SlackConversations, log: Log): SurfaceAdapter {
  const pacer = createChannelPacer();
  return {
    surface: "slack",
    renderedOf: (record, chat, nowMs) => renderSlackSummary(record, { ...chatOf(chat), targetChat: chat, ...(nowMs !== undefined ? { nowMs } : {}) }),
    async sendPrompt(record, target) {
      const chat = target.chat!;
      const { text, blocks } = renderSlackPrompt(record, { ...chatOf(chat), targetChat: chat });
      try {
        const channel = await conversations.channelFor(chat);
        const posted = await pacer.run(channel, () => client.chat.postMessage({ channel, text, blocks, unfurl_links: false, unfurl_media: false }));
        const postedIn = posted.channel ?? channel;
        if (!posted.ts) throw new Error("chat.postMessage gave no ts");
        conversations.remember(postedIn, chat);
        return encodeSlackMessageRef(postedIn, posted.ts);
      } catch (error) {
        const code = slackErrorCode(error);
        if (code && PERMANENT_ERRORS.has(code)) throw new PermanentSendError(code);
        throw error;
      }
    },
    async updatePrompt(record, delivery, nowMs) {
      const ref = decodeSlackMessageRef(delivery.messageRef);
      if (!ref) return log(`cannot edit ${record.id}: bad message ref ${JSON.stringify(delivery.messageRef)}`);
      conversations.remember(ref.channel, delivery.chat);
      const { text, blocks } = renderSlackSummary(record, { ...chatOf(delivery.chat), targetChat: delivery.chat, ...(nowMs !== undefined ? { nowMs } : {}) });
      await client.chat.update({ channel: ref.channel, ts: ref.ts, text, blocks });
    },
    reminders: {
      // A reply in the prompt's thread: plain escaped text, so no mention and no broadcast.
      async send(delivery, text) {
        const ref = decodeSlackMessageRef(delivery.messageRef);
        if (!ref) throw new PermanentSendError(`bad message ref ${JSON.stringify(delivery.messageRef)}`);
        const body = { channel: ref.channel, thread_ts: ref.ts, text: cutToFit(text, SLACK_SECTION_TEXT_MAX, toSlackText), unfurl_links: false, unfurl_media: false };
        let posted;
        try {
          posted = await pacer.run(ref.channel, () => client.chat.postMessage(body));
        } catch (error) {
          const code = slackErrorCode(error);
          throw code && PERMANENT_ERRORS.has(code) ? new PermanentSendError(code) : error;
        }
        if (!posted.ts) throw new Error("chat.postMessage gave no ts");
        return encodeSlackMessageRef(posted.channel ?? ref.channel, posted.ts);
      },
      async delete(reminder) {
        const ref = decodeSlackMessageRef(reminder.messageRef);
        if (!ref) return true;
        try {
          await client.chat.delete({ channel: ref.channel, ts: ref.ts });
          return true;
        } catch (error) {
          const code = slackErrorCode(error);
          if (code === "message_not_found" || code === "channel_not_found") return true;
          if (code === "cant_delete_message" || code === "compliance_exports_prevent_deletion") return false;
          throw error;
        }
      },
      async edit(reminder, text) {
        const ref = decodeSlackMessageRef(reminder.messageRef);
        if (!ref) return;
        await client.chat.update({ channel: ref.channel, ts: ref.ts, text: cutToFit(text, SLACK_SECTION_TEXT_MAX, toSlackText) });
      },
    },
  };
}
