import type { App, BlockAction, ViewSubmitAction } from "@slack/bolt";
import { TEXTS, type Bridge, type BridgeResponse, type InboundEvent } from "../src/bridge/index.ts";
import { decodeSlackActionId, toSlackText } from "../src/render/index.ts";
import type { Log } from "./shared.ts";
import { encodeSlackMessageRef, type SlackConversations } from "./slack-delivery.ts";
import { decodeModalMetadata, MODAL_FAILED_TEXT, modalAnswer, OTHER_MODAL_CALLBACK_ID, renderOtherModal } from "./slack-modal.ts";
import type { SlackPeople } from "./slack-people.ts";
import { slackTextToPlain } from "./slack-text.ts";

/** A typed message from a person: no subtype (edits, joins, files…), no bot. */
interface PlainMessage {
  channel: string;
  user: string;
  text: string;
  ts: string;
  thread_ts?: string;
  channel_type?: string;
}

function plainMessage(event: Record<string, unknown>): PlainMessage | undefined {
  const { subtype, bot_id, channel, user, text, ts, thread_ts, channel_type } = event;
  if ((subtype !== undefined && subtype !== "thread_broadcast") || bot_id) return undefined;
  if (typeof channel !== "string" || typeof user !== "string" || typeof text !== "string" || typeof ts !== "string") return undefined;
  return {
    channel,
    user,
    text,
    ts,
    ...(typeof thread_ts === "string" ? { thread_ts } : {}),
    ...(typeof channel_type === "string" ? { channel_type } : {}),
  };
}

export interface SlackListenerDeps {
  bridge: Bridge;
  conversations: SlackConversations;
  people: SlackPeople;
  log: Log;
}

/**
 * Translates Slack in and out: button presses, the Other… modal and typed messages become bridge events; the
 * bridge's response becomes an ephemeral notice, a modal, a thread reply or a deletion. Every action and view is
 * acknowledged first, within Slack's 3 s.
 */
export function registerSlackListeners(app: App, { bridge, conversations, people, log }: SlackListenerDeps): void {
  const web = app.client;

  async function tellPrivately(channel: string, user: string, text: string, threadTs?: string): Promise<void> {
    await web.chat
      .postEphemeral({ channel, user, text: toSlackText(text), ...(threadTs ? { thread_ts: threadTs } : {}) })
      .catch((error) => log(`could not send an ephemeral message to ${user} in ${channel}`, error));
  }

  /** What a button press or a modal submit tells the presser: one ephemeral message. */
  const noticeOf = (response: BridgeResponse | undefined) => response?.reply?.text ?? response?.toast;

  async function safely(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      log(`${what} failed`, error);
    }
  }

  async function acknowledge(ack: () => Promise<void>): Promise<void> {
    await ack().catch((error) => log("could not acknowledge", error));
  }

  app.action<BlockAction>(/.*/u, async ({ ack, body, action }) => {
    await acknowledge(ack);
    await safely("a button press", async () => {
      const channel = body.channel?.id ?? (body.container as { channel_id?: string }).channel_id;
      if (!channel) return log(`a press by ${body.user.id} came with no channel`);
      const decoded = decodeSlackActionId(action.action_id);
      if (!decoded) return tellPrivately(channel, body.user.id, TEXTS.notValid);
      const chat = conversations.chatOf(channel, body.user.id);
      const username = body.user.name ?? body.user.username;
      const name = decoded.action.kind === "other" ? username : await people.nameOf(body.user.id, username);
      const base = { user: { id: body.user.id, ...(name ? { name } : {}) }, chat, questionId: decoded.questionId };
      const event: InboundEvent =
        decoded.action.kind === "choice" ? { ...base, kind: "choice", optionIndex: decoded.action.optionIndex } : { ...base, kind: decoded.action.kind };
      const response = await bridge.handle(event);
      if (response?.openModal) {
        const view = renderOtherModal(response.openModal, { questionId: response.openModal.questionId, chat, channel });
        await web.views.open({ trigger_id: body.trigger_id, view }).catch(async (error) => {
          log(`could not open the Other… modal for ${decoded.questionId}`, error);
          await tellPrivately(channel, body.user.id, MODAL_FAILED_TEXT);
        });
        return;
      }
      const notice = noticeOf(response);
      if (notice) await tellPrivately(channel, body.user.id, notice);
    });
  });

  app.view<ViewSubmitAction>(OTHER_MODAL_CALLBACK_ID, async ({ ack, body, view }) => {
    await acknowledge(ack);
    await safely("a modal submission", async () => {
      const context = decodeModalMetadata(view.private_metadata);
      if (!context) return log(`a modal from ${body.user.id} came with unreadable private_metadata`);
      const name = await people.nameOf(body.user.id, body.user.name);
      const response = await bridge.handle({
        kind: "modal",
        questionId: context.questionId,
        text: modalAnswer(view.state.values),
        user: { id: body.user.id, ...(name ? { name } : {}) },
        chat: context.chat,
      });
      const notice = noticeOf(response);
      if (notice) await tellPrivately(context.channel, body.user.id, notice);
    });
  });

  app.event("message", async ({ event }) => {
    await safely("a message", async () => {
      const message = plainMessage(event as unknown as Record<string, unknown>);
      if (!message) return;
      const direct = message.channel_type === "im" || message.channel.startsWith("D");
      const chat = conversations.chatOf(message.channel, message.user, direct);
      const inThread = message.thread_ts && message.thread_ts !== message.ts ? message.thread_ts : undefined;
      const name = await people.nameOf(message.user);
      const response = await bridge.handle({
        kind: "text",
        text: slackTextToPlain(message.text),
        user: { id: message.user, ...(name ? { name } : {}) },
        chat,
        ...(inThread ? { replyToMessageRef: encodeSlackMessageRef(message.channel, inThread) } : {}),
      });
      if (!response) return;
      if (response.deleteMessage) {
        await web.chat
          .delete({ channel: message.channel, ts: message.ts })
          .catch((error) => log(`could not delete a credential message in ${message.channel} (deleting others' messages needs an admin-installed app)`, error));
      }
      if (!response.reply) return;
      // Answer in the thread: the prompt's, or the person's own message's (not in a DM, nor on a deleted message).
      const threadTs = message.thread_ts ?? (direct || response.deleteMessage ? undefined : message.ts);
      if (response.reply.private) return tellPrivately(message.channel, message.user, response.reply.text, threadTs);
      await web.chat.postMessage({
        channel: message.channel,
        text: toSlackText(response.reply.text),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
    });
  });
}
