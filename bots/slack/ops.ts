import type { webApi } from "@slack/bolt";
import type { Bridge, PlatformOps } from "../../src/bridge/index.ts";
import { renderSlackOtherModal } from "../../src/platforms/slack/modal.ts";
import { toSlackText } from "../../src/platforms/slack/escaping.ts";
import type { Log } from "../shared.ts";
import { encodeSlackMessageRef } from "./adapter.ts";

/** The mark on a typed reply from someone who may not answer (the channel is never told in public). */
export const SLACK_REFUSED_REACTION = "see_no_evil";
const MODAL_FAILED_TEXT = "The answer form could not open. Reply in the prompt's thread with your own words instead.";

/** An ephemeral message; `text` is Slack text already (the bridge's texts are, and the bot's own go through toSlackText). */
export async function tellPrivately(web: webApi.WebClient, log: Log, channel: string, user: string, text: string, threadTs?: string): Promise<void> {
  await web.chat
    .postEphemeral({ channel, user, text, ...(threadTs ? { thread_ts: threadTs } : {}) })
    .catch((error) => log(`could not send an ephemeral message to ${user} in ${channel}`, error));
}

/** Where a press or a modal submit happened: the channel, the person, the target chat, and the trigger a modal needs. */
export interface SlackPress {
  channel: string;
  user: string;
  chat: string;
  /** A button press's trigger id (a modal opens with it within 3 s); none for a modal submit. */
  triggerId?: string;
}

/**
 * A button press or a modal submit (after its ack): Slack has no toast, so the person is told one ephemeral message
 * in the channel, the reply (or the toast when there is none); Other… opens the modal.
 */
export function slackPressOps(web: webApi.WebClient, log: Log, press: SlackPress): PlatformOps {
  const { channel, user, chat, triggerId } = press;
  return {
    reply: (reply) => tellPrivately(web, log, channel, user, reply.reply),
    ...(triggerId
      ? {
          openModal: async (request) => {
            const view = renderSlackOtherModal(request, { questionId: request.questionId, chat, channel });
            await web.views.open({ trigger_id: triggerId, view }).then(
              () => {},
              async (error) => {
                log(`could not open the Other… modal for ${request.questionId}`, error);
                await tellPrivately(web, log, channel, user, toSlackText(MODAL_FAILED_TEXT));
              },
            );
          },
        }
      : {}),
  };
}

/** A typed message: what it is, where it is, and the target chat. */
export interface SlackMessage {
  channel: string;
  user: string;
  ts: string;
  thread_ts?: string;
  direct: boolean;
  chat: string;
}

/**
 * A typed message: a reaction on it, its deletion, and replies in a thread, ephemeral when private. A bot may delete
 * others' messages only when an admin installed it: otherwise the message stays.
 */
export function slackMessageOps(web: webApi.WebClient, bridge: Pick<Bridge, "sent">, log: Log, message: SlackMessage): PlatformOps {
  return {
    react: () =>
      web.reactions.add({ channel: message.channel, timestamp: message.ts, name: SLACK_REFUSED_REACTION }).then(
        () => {},
        (error) => log(`could not mark a message in ${message.channel}`, error),
      ),
    deleteMessage: () =>
      web.chat.delete({ channel: message.channel, ts: message.ts }).then(
        () => true,
        (error) => (log(`could not delete a credential message in ${message.channel} (deleting others' messages needs an admin-installed app)`, error), false),
      ),
    async reply(reply) {
      // Answer in the thread: the prompt's, or the person's own message's (not in a DM, nor on a deleted message).
      const threadTs = message.thread_ts ?? (message.direct || !reply.replyTo ? undefined : message.ts);
      if (reply.private) return tellPrivately(web, log, message.channel, message.user, reply.reply, threadTs);
      // A reply in that thread answers the same question (a follow-up asks for the rest there).
      if (reply.questionId && threadTs) bridge.sent({ chat: message.chat, questionId: reply.questionId, messageRef: Promise.resolve(encodeSlackMessageRef(message.channel, threadTs)) });
      await web.chat.postMessage({
        channel: message.channel,
        text: reply.reply,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
    },
  };
}
