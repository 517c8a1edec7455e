import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { cutToFit, type ChatOptions } from "../../src/render/index.ts";
import { MATTERMOST_ACTIONS_PATH, renderMattermostPrompt, renderMattermostSummary, type MattermostActionSigning } from "../../src/platforms/mattermost/payload.ts";
import { MATTERMOST_MESSAGE_MAX } from "../../src/platforms/mattermost/platform.ts";
import { toMattermostText } from "../../src/platforms/mattermost/escaping.ts";
import type { Log } from "../shared.ts";
import { mattermostStatus, type MattermostClient } from "./client.ts";
import type { Signer } from "./signing.ts";

/** A Mattermost id: 26 lowercase letters and digits (channels, users, posts). */
export const MATTERMOST_ID = /^[a-z0-9]{26}$/;
/** `@username`: the direct message with that person. */
const USERNAME_TARGET = /^@([a-z0-9._-]{1,64})$/u;

/** A delivered prompt is `<channel id>:<post id>`. */
export function encodeMattermostMessageRef(channel: string, postId: string): string {
  return `${channel}:${postId}`;
}

export function decodeMattermostMessageRef(ref: string): { channel: string; postId: string } | null {
  const at = ref.indexOf(":");
  if (at <= 0 || at === ref.length - 1) return null;
  return { channel: ref.slice(0, at), postId: ref.slice(at + 1) };
}

/** The post prop that names the target chat a prompt was sent for: how a restarted bot finds a DM's chat again. */
export const MATTERMOST_CHAT_PROP = "ask_user_chat";

/** Statuses that say a chat will never take the post: no such channel or person, no permission, a bad post. */
const PERMANENT_STATUSES = new Set([400, 403, 404]);

const permanentOr = (error: unknown): unknown => {
  const status = mattermostStatus(error);
  return status !== undefined && PERMANENT_STATUSES.has(status) ? new PermanentSendError(`${status}: ${(error as Error).message}`) : error;
};

/**
 * Between a question's target chat (a channel id, `@username`, or a user id: both DMs) and the channel Mattermost
 * uses, in both directions. A DM channel is opened (POST /channels/direct) once and remembered.
 */
export function createMattermostConversations(client: MattermostClient, botUserId: string) {
  const channelOfChat = new Map<string, string>();
  const chatOfChannel = new Map<string, string>();
  const directChannels = new Set<string>();
  const looked = new Set<string>();

  async function openDirect(userId: string): Promise<string> {
    const channel = (await client.createDirectChannel([botUserId, userId])) as { id: string };
    directChannels.add(channel.id);
    return channel.id;
  }

  const remember = (channel: string, chat: string) => {
    channelOfChat.set(chat, channel);
    if (channel !== chat) chatOfChannel.set(channel, chat);
  };

  return {
    remember,
    /** The channel for a target chat; `@username` opens the DM. A user id is tried as such when it is no channel. */
    async channelFor(chat: string): Promise<string> {
      const known = channelOfChat.get(chat);
      if (known) return known;
      const username = USERNAME_TARGET.exec(chat)?.[1];
      if (!username) return chat;
      const user = (await client.getUserByUsername(username)) as { id: string };
      const channel = await openDirect(user.id);
      remember(channel, chat);
      return channel;
    },
    /** After a refused post to a bare id: the DM with the person of that id, if it is one (else undefined). */
    async directFor(chat: string): Promise<string | undefined> {
      if (!MATTERMOST_ID.test(chat)) return undefined;
      try {
        await client.getUser(chat);
      } catch (error) {
        if (mattermostStatus(error) === 404 || mattermostStatus(error) === 400) return undefined;
        throw error;
      }
      const channel = await openDirect(chat);
      remember(channel, chat);
      return channel;
    },
    isDirect: (channel: string) => directChannels.has(channel),
    /** The target chat a prompt in `channel` was sent for, if this process knows it. */
    knownChatOf: (channel: string): string | undefined => chatOfChannel.get(channel),
    /**
     * A DM this process sent nothing to since it started: the chat its latest prompt names (one look at the channel's
     * recent posts, then remembered), or undefined when it has none.
     */
    async learnChatOf(channel: string): Promise<string | undefined> {
      const known = chatOfChannel.get(channel);
      if (known || looked.has(channel)) return known;
      looked.add(channel);
      const list = (await client.getPosts(channel, 0, 60)) as { order?: string[]; posts?: Record<string, { user_id?: string; props?: Record<string, unknown> }> };
      for (const id of list.order ?? []) {
        const post = list.posts?.[id];
        const chat = post?.user_id === botUserId ? post.props?.[MATTERMOST_CHAT_PROP] : undefined;
        if (typeof chat === "string" && chat) {
          remember(channel, chat);
          return chat;
        }
      }
      return undefined;
    },
  };
}

export type MattermostConversations = ReturnType<typeof createMattermostConversations>;

/** `@username` is a DM; a bare id is a channel (its prompt says thread replies) until a send finds it is a person. */
const chatKindOf = (chat: string): ChatOptions => ({ chat: chat.startsWith("@") ? "direct" : "group" });

export interface MattermostActionsTarget {
  /** The actions listener's public base URL (MATTERMOST_ACTIONS_URL, or the bound address). */
  baseUrl(): string;
}

/** Posts prompts with createPost, and turns each copy into the summary with patchPost (its actions removed). */
export function createMattermostAdapter(client: MattermostClient, conversations: MattermostConversations, signer: Signer, actions: MattermostActionsTarget, log: Log) {
  /** Posts this process sent, with their question: a press on one of them needs no look-up. */
  const sentPosts = new Map<string, string>();
  const direct = new Set<string>();
  const kindOf = (chat: string): ChatOptions => (direct.has(chat) ? { chat: "direct" } : chatKindOf(chat));
  const signing = (channel: string, chat: string): MattermostActionSigning => ({
    url: `${actions.baseUrl()}${MATTERMOST_ACTIONS_PATH}`,
    context: (d) => ({ d, c: chat, s: signer.text(signer.pressText(d, chat, channel)) }),
  });
  const at = (nowMs: number | undefined) => (nowMs !== undefined ? { nowMs } : {});

  async function post(channel: string, record: Parameters<SurfaceAdapter["sendPrompt"]>[0], chat: string) {
    const rendered = renderMattermostPrompt(record, { ...kindOf(chat), targetChat: chat, actions: signing(channel, chat) });
    const props = { ...rendered.props, [MATTERMOST_CHAT_PROP]: chat };
    return (await client.createPost({ channel_id: channel, message: rendered.message, props } as never)) as { id: string; channel_id: string };
  }

  const adapter: SurfaceAdapter & { sentPosts: Map<string, string> } = {
    surface: "mattermost",
    sentPosts,
    renderedOf: (record, chat, nowMs) => renderMattermostSummary(record, { ...kindOf(chat), targetChat: chat, ...at(nowMs) }),
    async sendPrompt(record, target) {
      const chat = target.chat!;
      let channel: string;
      try {
        channel = await conversations.channelFor(chat);
      } catch (error) {
        throw permanentOr(error);
      }
      if (conversations.isDirect(channel)) direct.add(chat);
      let posted: { id: string; channel_id: string };
      try {
        posted = await post(channel, record, chat);
      } catch (error) {
        // A bare id that is no channel the bot can post in may be a person: their DM.
        const status = mattermostStatus(error);
        const dm = status === 403 || status === 404 ? await conversations.directFor(chat).catch(() => undefined) : undefined;
        if (!dm) throw permanentOr(error);
        direct.add(chat);
        try {
          posted = await post(dm, record, chat);
        } catch (again) {
          throw permanentOr(again);
        }
      }
      conversations.remember(posted.channel_id, chat);
      sentPosts.set(posted.id, record.id);
      return encodeMattermostMessageRef(posted.channel_id, posted.id);
    },
    async updatePrompt(record, delivery, nowMs) {
      const ref = decodeMattermostMessageRef(delivery.messageRef);
      if (!ref) return log(`cannot edit ${record.id}: bad message ref ${JSON.stringify(delivery.messageRef)}`);
      conversations.remember(ref.channel, delivery.chat);
      // A bare id whose copy is in another channel is a person: their DM (a restarted process learns it here).
      if (ref.channel !== delivery.chat && !delivery.chat.startsWith("@")) direct.add(delivery.chat);
      const rendered = renderMattermostSummary(record, { ...kindOf(delivery.chat), targetChat: delivery.chat, ...at(nowMs), actions: signing(ref.channel, delivery.chat) });
      try {
        await client.patchPost({ id: ref.postId, message: rendered.message, props: { ...rendered.props, [MATTERMOST_CHAT_PROP]: delivery.chat } } as never);
      } catch (error) {
        // A deleted post can never show the summary: nothing is left to edit.
        if (mattermostStatus(error) === 404) return log(`the copy of ${record.id} in ${ref.channel} is gone`);
        throw error;
      }
    },
    reminders: {
      // A reply in the prompt's thread: plain escaped text, so no mention and no broadcast.
      async send(delivery, text) {
        const ref = decodeMattermostMessageRef(delivery.messageRef);
        if (!ref) throw new PermanentSendError(`bad message ref ${JSON.stringify(delivery.messageRef)}`);
        try {
          const posted = (await client.createPost({ channel_id: ref.channel, root_id: ref.postId, message: cutToFit(text, MATTERMOST_MESSAGE_MAX, toMattermostText) } as never)) as { id: string };
          return encodeMattermostMessageRef(ref.channel, posted.id);
        } catch (error) {
          throw permanentOr(error);
        }
      },
      async delete(reminder) {
        const ref = decodeMattermostMessageRef(reminder.messageRef);
        if (!ref) return true;
        try {
          await client.deletePost(ref.postId);
          return true;
        } catch (error) {
          const status = mattermostStatus(error);
          if (status === 404) return true;
          if (status === 403) return false;
          throw error;
        }
      },
      async edit(reminder, text) {
        const ref = decodeMattermostMessageRef(reminder.messageRef);
        if (!ref) return;
        await client.patchPost({ id: ref.postId, message: cutToFit(text, MATTERMOST_MESSAGE_MAX, toMattermostText) } as never);
      },
    },
  };
  return adapter;
}

export type MattermostAdapter = ReturnType<typeof createMattermostAdapter>;
