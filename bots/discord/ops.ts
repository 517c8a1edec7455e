import { MessageFlags, Routes, type APIMessage, type ButtonInteraction, type Client, type Message, type ModalSubmitInteraction } from "discord.js";
import { TEXTS, type Bridge, type PlatformOps } from "../../src/bridge/index.ts";
import { renderDiscordOtherModal } from "../../src/platforms/discord/modal.ts";
import type { Log } from "../shared.ts";
import { toMessageRef } from "./adapter.ts";

export type Interaction = ButtonInteraction | ModalSubmitInteraction;

/** The mark on a typed reply from someone who may not answer (the channel is never told in public). */
export const DISCORD_REFUSED_REACTION = "🙈";
export const NO_PINGS = { parse: [] as [] };

/** The interaction's first response: an ephemeral message (a refusal, before anything is acknowledged). */
export async function refuseInteraction(interaction: Interaction, text: string, log: Log): Promise<void> {
  await interaction.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS }).catch((error) => log("could not refuse an interaction", error));
}

/** What the person is told after the acknowledgement: an ephemeral follow-up (or the deferred ephemeral reply). */
async function tell(interaction: Interaction, text: string, log: Log): Promise<void> {
  if (!text || !interaction.deferred) return;
  const options = { content: text, allowedMentions: NO_PINGS };
  const told = interaction.ephemeral ? interaction.editReply(options) : interaction.followUp({ ...options, flags: MessageFlags.Ephemeral });
  await told.catch((error) => log("could not send an ephemeral notice", error));
}

/** True the first time only: an interaction tells the person one thing. */
function firstTime(): () => boolean {
  let done = false;
  return () => !done && (done = true);
}

/**
 * A button press or a modal submit, after its acknowledgement (a deferred update or reply). Discord has no toast and
 * no private reply but the interaction's own ephemeral message, so the person is told one thing: on a press the
 * toast (its reply repeats it), on a modal submit the reply (the confirmation, "✅ Recorded: …", says more than the
 * toast, and a refusal says why), else the toast.
 */
export function discordInteractionOps(interaction: Interaction, log: Log): PlatformOps {
  const first = firstTime();
  const notice = async (text: string) => void (first() && (await tell(interaction, text, log)));
  const reply: PlatformOps["reply"] = (reply) => notice(reply.reply);
  return interaction.isModalSubmit() ? { reply } : { toast: notice, reply };
}

/**
 * Other…, before anything is acknowledged: the modal must be the first response, or else the refusal (the toast, or
 * the reply). `finish` answers an interaction nothing answered (it would fail after 3 s).
 */
export function discordOtherOps(interaction: ButtonInteraction, log: Log): { ops: PlatformOps; finish(): Promise<void> } {
  const first = firstTime();
  const refuse = async (text: string) => void (first() && (await refuseInteraction(interaction, text, log)));
  return {
    ops: {
      toast: refuse,
      reply: (reply) => refuse(reply.reply),
      openModal: async (request) => {
        if (!first()) return;
        await interaction.showModal(renderDiscordOtherModal(request)).catch((error) => log(`could not open the modal for ${request.questionId}`, error));
      },
    },
    finish: () => refuse(TEXTS.notValid),
  };
}

/**
 * A typed message: a reaction on it, its deletion, a reply in the channel. Discord has no private reply to a message:
 * a private one is said in the channel, as on Telegram (someone who may not answer gets a reaction instead).
 */
export function discordMessageOps(message: Message, chat: string, client: Client, bridge: Pick<Bridge, "sent">, log: Log): PlatformOps {
  return {
    react: () => message.react(DISCORD_REFUSED_REACTION).then(
      () => {},
      (error) => log("could not mark a message", error),
    ),
    deleteMessage: () =>
      message.delete().then(
        () => true,
        (error) => (log("could not delete a credential message", error), false),
      ),
    async reply(reply) {
      const sent = client.rest.post(Routes.channelMessages(message.channelId), {
        body: {
          content: reply.reply,
          allowed_mentions: { ...NO_PINGS, replied_user: false },
          ...(reply.replyTo ? { message_reference: { message_id: message.id, fail_if_not_exists: false } } : {}),
        },
      }) as Promise<APIMessage>;
      if (reply.questionId) bridge.sent({ chat, questionId: reply.questionId, messageRef: sent.then((m) => toMessageRef(m.channel_id, m.id)) });
      await sent;
    },
  };
}
