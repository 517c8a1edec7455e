import type { Bridge, PlatformOps } from "../../src/bridge/index.ts";
import { MATTERMOST_DIALOG_PATH } from "../../src/platforms/mattermost/payload.ts";
import { renderMattermostOtherDialog, encodeMattermostDialogState, mattermostDialogSignedText } from "../../src/platforms/mattermost/modal.ts";
import { toMattermostText } from "../../src/platforms/mattermost/escaping.ts";
import type { Log } from "../shared.ts";
import { encodeMattermostMessageRef } from "./adapter.ts";
import type { MattermostClient } from "./client.ts";
import type { MattermostPermissions } from "./permissions.ts";
import type { Signer } from "./signing.ts";

/** The mark on a typed reply from someone who may not answer (the channel is never told in public). */
export const MATTERMOST_REFUSED_REACTION = "see_no_evil";
const DIALOG_FAILED_TEXT = "The answer form could not open. Reply in the prompt's thread with your own words instead.";

/** A note for one person: where, and its text (Mattermost text already). */
export interface MattermostNote {
  channel: string;
  user: string;
  message: string;
  rootId?: string;
}

/**
 * An ephemeral post (only `note.user` sees it): "told"; "refused" when the bot lacks create_post_ephemeral (a bot
 * account's default role does: said once); "failed" otherwise (logged).
 */
export async function tellPrivately(client: MattermostClient, log: Log, permissions: MattermostPermissions, note: MattermostNote): Promise<"told" | "refused" | "failed"> {
  const { channel, user, message, rootId } = note;
  return client.createPostEphemeral(user, { channel_id: channel, message, ...(rootId ? { root_id: rootId } : {}) } as never).then(
    () => "told" as const,
    (error: unknown) => {
      if (permissions.refused("create_post_ephemeral", error)) return "refused" as const;
      log(`could not send an ephemeral message to ${user} in ${channel}`, error);
      return "failed" as const;
    },
  );
}

/** Where a press happened: the channel, the person, the target chat, and the trigger a dialog needs. */
export interface MattermostPress {
  channel: string;
  user: string;
  chat: string;
  triggerId?: string;
}

/**
 * A button press: what the person is told goes back in the action's response as its `ephemeral_text` (collected here,
 * `said`): the reply, or the toast when there is none (Mattermost has no toast). Other… opens the dialog with the
 * press's trigger id.
 */
export function mattermostPressOps(client: MattermostClient, signer: Signer, dialogBaseUrl: string, log: Log, press: MattermostPress) {
  const said: string[] = [];
  const ops: PlatformOps = {
    reply: async (reply) => void said.push(reply.reply),
    ...(press.triggerId
      ? {
          openModal: async (request) => {
            const context = { questionId: request.questionId, chat: press.chat, channel: press.channel, user: press.user };
            const state = encodeMattermostDialogState(context, signer.text(mattermostDialogSignedText(context)));
            const dialog = renderMattermostOtherDialog(request, state);
            await client.openDialog({ trigger_id: press.triggerId!, url: `${dialogBaseUrl}${MATTERMOST_DIALOG_PATH}`, dialog }).then(
              () => {},
              (error: unknown) => {
                log(`could not open the Other… dialog for ${request.questionId}`, error);
                said.push(toMattermostText(DIALOG_FAILED_TEXT));
              },
            );
          },
        }
      : {}),
  };
  return { ops, said };
}

/**
 * A dialog submission: it has no response text of its own, so what the person is told is an ephemeral post (a bot
 * without create_post_ephemeral tells them nothing; the prompt's summary still shows the answer).
 */
export function mattermostDialogOps(client: MattermostClient, log: Log, permissions: MattermostPermissions, where: { channel: string; user: string }): PlatformOps {
  return { reply: async (reply) => void (await tellPrivately(client, log, permissions, { channel: where.channel, user: where.user, message: reply.reply })) };
}

/** A typed message: what it is, where it is, and the target chat. */
export interface MattermostTyped {
  id: string;
  channel: string;
  user: string;
  rootId?: string;
  direct: boolean;
  chat: string;
}

/**
 * A typed message: a reaction on it, its deletion, and replies in its thread, ephemeral when private. Deleting
 * others' posts takes the delete_others_posts permission: without it the post stays. A private note the server
 * refuses as ephemeral (no create_post_ephemeral) goes as a reply in the message's thread instead (in a DM, as one
 * more message there): the bridge's private notes are its own texts, never the person's words.
 */
export function mattermostMessageOps(
  client: MattermostClient,
  botUserId: string,
  bridge: Pick<Bridge, "sent">,
  log: Log,
  permissions: MattermostPermissions,
  message: MattermostTyped,
): PlatformOps {
  let deleted = false;
  return {
    react: () =>
      client.addReaction(botUserId, message.id, MATTERMOST_REFUSED_REACTION).then(
        () => {},
        (error: unknown) => log(`could not mark a message in ${message.channel}`, error),
      ),
    deleteMessage: () =>
      client.deletePost(message.id).then(
        () => (deleted = true),
        (error: unknown) => {
          if (!permissions.refused("delete_others_posts", error)) log(`could not delete a credential message in ${message.channel}`, error);
          return false;
        },
      ),
    async reply(reply) {
      // Answer in the thread: the prompt's, or the person's own message's (not in a DM, nor on a deleted message).
      const rootId = message.rootId ?? (message.direct || !reply.replyTo ? undefined : message.id);
      if (reply.private) {
        const told = await tellPrivately(client, log, permissions, { channel: message.channel, user: message.user, message: reply.reply, ...(rootId ? { rootId } : {}) });
        if (told !== "refused") return;
        // In public, then: in the message's thread (its own, when it is still there), so that it reads as an answer to it.
        const threadId = message.rootId ?? (message.direct || deleted ? undefined : message.id);
        await client
          .createPost({ channel_id: message.channel, message: reply.reply, ...(threadId ? { root_id: threadId } : {}) } as never)
          .catch((error: unknown) => log(`could not reply to a message in ${message.channel}`, error));
        return;
      }
      // A reply in that thread answers the same question (a follow-up asks for the rest there).
      if (reply.questionId && rootId) bridge.sent({ chat: message.chat, questionId: reply.questionId, messageRef: Promise.resolve(encodeMattermostMessageRef(message.channel, rootId)) });
      await client.createPost({ channel_id: message.channel, message: reply.reply, ...(rootId ? { root_id: rootId } : {}) } as never);
    },
  };
}
