import { Events, GuildMember, MessageFlags, Routes, type APIMessage, type ButtonInteraction, type Client, type Message, type ModalSubmitInteraction, type User } from "discord.js";
import { callbackToEvent, TEXTS, type Bridge, type BridgeResponse, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeDiscordCustomId, DISCORD_MODAL_INPUT_ID, renderDiscordOtherModal } from "../../src/render/index.ts";
import type { Log } from "../shared.ts";
import { toMessageRef } from "./adapter.ts";

type Interaction = ButtonInteraction | ModalSubmitInteraction;

/** Discord drops an interaction not acknowledged within 3 s; the bridge gets this long to decide on Other…. */
const OTHER_DECISION_MS = 2_000;
const NO_PINGS = { parse: [] as [] };

/** The person, named as the summary should show them (server nickname, display name, username). */
function bridgeUserOf(user: User, member?: unknown): BridgeUser {
  const name = member instanceof GuildMember ? member.displayName : user.displayName;
  return { id: user.id, ...(name ? { name } : {}) };
}

/** The target chat a message is in: the channel, or in a DM the person's own user id (the DM target). */
const chatOfMessage = (message: Message): string => (message.inGuild() ? message.channelId : message.author.id);

/** The mark on a typed reply from someone who may not answer (the channel is never told in public). */
export const DISCORD_REFUSED_REACTION = "🙈";

/** The target chat an interaction happened in: the channel, or in a DM the person's own user id (the DM target). */
const chatOf = (interaction: Interaction): string => (interaction.inGuild() && interaction.channelId ? interaction.channelId : interaction.user.id);

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The modal's one text input, or undefined for a forged or foreign modal. */
function textInputValue(interaction: ModalSubmitInteraction): string | undefined {
  try {
    return interaction.fields.getTextInputValue(DISCORD_MODAL_INPUT_ID);
  } catch {
    return undefined;
  }
}

/**
 * Translates Discord in and out: button presses, modal submits and typed messages become bridge events. Every
 * interaction is acknowledged inside Discord's 3 s window first (a deferred update, or the modal itself); what the
 * person is told then comes as an ephemeral follow-up. A failed acknowledgement is only logged.
 */
export function registerDiscordInbound(client: Client, bridge: Pick<Bridge, "handle" | "sent">, log: Log): void {
  /** What the person is told after the acknowledgement: an ephemeral follow-up (or the deferred ephemeral reply). */
  async function tell(interaction: Interaction, text: string | undefined): Promise<void> {
    if (!text || !interaction.deferred) return;
    const options = { content: text, allowedMentions: NO_PINGS };
    const told = interaction.ephemeral ? interaction.editReply(options) : interaction.followUp({ ...options, flags: MessageFlags.Ephemeral });
    await told.catch((error) => log("could not send an ephemeral notice", error));
  }

  async function refuse(interaction: Interaction, text: string): Promise<void> {
    await interaction.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS }).catch((error) => log("could not refuse an interaction", error));
  }

  /** A deferred update: nothing visible changes, and the prompt message is edited later through the channel API. */
  async function defer(interaction: Interaction): Promise<void> {
    const acknowledge = interaction.isModalSubmit() && !interaction.isFromMessage() ? interaction.deferReply({ flags: MessageFlags.Ephemeral }) : interaction.deferUpdate();
    await acknowledge.catch((error) => log(`could not acknowledge interaction ${interaction.id}`, error));
  }

  async function button(interaction: ButtonInteraction): Promise<void> {
    const decoded = decodeDiscordCustomId(interaction.customId);
    if (!decoded) return refuse(interaction, TEXTS.notValid);
    const event = callbackToEvent(decoded, { user: bridgeUserOf(interaction.user, interaction.member), chat: chatOf(interaction) });
    if (event.kind === "other") {
      // The modal must be the first response, so the bridge decides before anything is acknowledged.
      const response = await withDeadline(bridge.handle(event), OTHER_DECISION_MS);
      if (!response) return refuse(interaction, TEXTS.notSubmitted);
      if (!response.openModal) return refuse(interaction, response.toast ?? response.reply?.text ?? TEXTS.notValid);
      await interaction.showModal(renderDiscordOtherModal(response.openModal)).catch((error) => log(`could not open the modal for ${decoded.questionId}`, error));
      return;
    }
    await defer(interaction);
    const response = await bridge.handle(event);
    await tell(interaction, response?.toast ?? response?.reply?.text);
  }

  async function modal(interaction: ModalSubmitInteraction): Promise<void> {
    const decoded = decodeDiscordCustomId(interaction.customId);
    const text = textInputValue(interaction);
    if (!decoded || decoded.action.kind !== "other" || text === undefined) return refuse(interaction, TEXTS.notValid);
    await defer(interaction);
    const response = await bridge.handle(callbackToEvent(decoded, { user: bridgeUserOf(interaction.user, interaction.member), chat: chatOf(interaction), text }));
    // The confirmation ("✅ Recorded: …") says more than the toast, and a refusal says why.
    await tell(interaction, response?.reply?.text ?? response?.toast);
  }

  /**
   * Discord has no private reply to a message: a refusal is said in the channel, as on Telegram, except to someone who
   * may not answer, whose message gets a reaction instead.
   */
  async function respond(message: Message, response: BridgeResponse): Promise<void> {
    if (response.markRefused) await message.react(DISCORD_REFUSED_REACTION).catch((error) => log("could not mark a message", error));
    let reply = response.reply;
    if (response.deleteMessage) {
      const deleted = await message.delete().then(
        () => true,
        (error) => (log("could not delete a credential message", error), false),
      );
      if (!deleted) reply = response.notDeleted ?? reply;
    }
    if (!reply) return;
    const replyTo = response.deleteMessage ? undefined : message.id;
    const sent = client.rest.post(Routes.channelMessages(message.channelId), {
      body: {
        content: reply.text,
        allowed_mentions: { ...NO_PINGS, replied_user: false },
        ...(replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {}),
      },
    }) as Promise<APIMessage>;
    if (response.questionId) {
      bridge.sent({ chat: chatOfMessage(message), questionId: response.questionId, messageRef: sent.then((m) => toMessageRef(m.channel_id, m.id)) });
    }
    await sent;
  }

  client.on(Events.MessageCreate, (message) => {
    if (message.author.bot || message.system || !message.content) return;
    const reference = message.reference?.messageId;
    void bridge
      .handle({
        kind: "text",
        text: message.content,
        user: bridgeUserOf(message.author, message.member),
        chat: chatOfMessage(message),
        direct: !message.inGuild(),
        messageRef: message.id,
        ...(reference ? { replyToMessageRef: toMessageRef(message.reference?.channelId ?? message.channelId, reference) } : {}),
      })
      .then((response) => response && respond(message, response))
      .catch((error) => log(`message ${message.id} failed`, error));
  });

  client.on(Events.InteractionCreate, (interaction) => {
    const handled = interaction.isButton() ? button(interaction) : interaction.isModalSubmit() ? modal(interaction) : undefined;
    handled?.catch((error) => log(`interaction ${interaction.id} failed`, error));
  });
}
