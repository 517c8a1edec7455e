import { GuildMember, MessageFlags, type ButtonInteraction, type ModalSubmitInteraction, type User } from "discord.js";
import { TEXTS, type Bridge, type BridgeResponse, type BridgeUser, type InboundEvent } from "../src/bridge/index.ts";
import { decodeDiscordCustomId, encodeDiscordCustomId } from "../src/render/index.ts";
import type { Log } from "./shared.ts";

/** The one text input of the Other… modal. */
export const MODAL_INPUT_ID = "answer";
export const DISCORD_MODAL_TITLE_MAX = 45;
export const DISCORD_LABEL_MAX = 45;
export const DISCORD_TEXT_INPUT_MAX = 4000;
const COMPONENT_LABEL = 18;
const COMPONENT_TEXT_INPUT = 4;
const TEXT_INPUT_PARAGRAPH = 2;
/** Discord drops an interaction not acknowledged within 3 s; the bridge gets this long to decide on Other…. */
const OTHER_DECISION_MS = 2_000;

/** The person, named as the summary should show them (server nickname, display name, username). */
export function bridgeUserOf(user: User, member?: unknown): BridgeUser {
  const name = member instanceof GuildMember ? member.displayName : user.displayName;
  return { id: user.id, ...(name ? { name } : {}) };
}

/** The target chat an interaction happened in: the channel, or in a DM the person's own user id (the DM target). */
const chatOf = (interaction: ButtonInteraction | ModalSubmitInteraction): string => (interaction.inGuild() && interaction.channelId ? interaction.channelId : interaction.user.id);

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
    return interaction.fields.getTextInputValue(MODAL_INPUT_ID);
  } catch {
    return undefined;
  }
}

/** The modal for Other…: one paragraph input; its custom_id is the Other… button's, so it names the question. */
export function otherModal(open: NonNullable<BridgeResponse["openModal"]>) {
  return {
    custom_id: encodeDiscordCustomId({ questionId: open.questionId, action: { kind: "other" } }),
    title: open.title.slice(0, DISCORD_MODAL_TITLE_MAX),
    components: [
      {
        type: COMPONENT_LABEL,
        label: open.label.slice(0, DISCORD_LABEL_MAX) || TEXTS.modalTitle,
        component: { type: COMPONENT_TEXT_INPUT, custom_id: MODAL_INPUT_ID, style: TEXT_INPUT_PARAGRAPH, required: true, max_length: DISCORD_TEXT_INPUT_MAX },
      },
    ],
  };
}

/**
 * Button presses and modal submits. Every interaction is acknowledged inside Discord's 3 s window first (a deferred
 * update, or the modal itself); what the person is told then comes as an ephemeral follow-up. A failed
 * acknowledgement is only logged.
 */
export function createInteractionHandlers(bridge: Pick<Bridge, "handle">, log: Log) {
  /** What the person is told after the acknowledgement: an ephemeral follow-up (or the deferred ephemeral reply). */
  async function tell(interaction: ButtonInteraction | ModalSubmitInteraction, text: string | undefined): Promise<void> {
    if (!text || !interaction.deferred) return;
    const options = { content: text, allowedMentions: { parse: [] } };
    const told = interaction.ephemeral ? interaction.editReply(options) : interaction.followUp({ ...options, flags: MessageFlags.Ephemeral });
    await told.catch((error) => log("could not send an ephemeral notice", error));
  }

  async function refuse(interaction: ButtonInteraction | ModalSubmitInteraction, text: string): Promise<void> {
    await interaction.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } }).catch((error) => log("could not refuse an interaction", error));
  }

  /** A deferred update: nothing visible changes, and the prompt message is edited later through the channel API. */
  async function defer(interaction: ButtonInteraction | ModalSubmitInteraction): Promise<void> {
    const acknowledge = interaction.isModalSubmit() && !interaction.isFromMessage() ? interaction.deferReply({ flags: MessageFlags.Ephemeral }) : interaction.deferUpdate();
    await acknowledge.catch((error) => log(`could not acknowledge interaction ${interaction.id}`, error));
  }

  return {
    async button(interaction: ButtonInteraction): Promise<void> {
      const decoded = decodeDiscordCustomId(interaction.customId);
      if (!decoded) return refuse(interaction, TEXTS.notValid);
      const base = { user: bridgeUserOf(interaction.user, interaction.member), chat: chatOf(interaction), questionId: decoded.questionId };
      const { action } = decoded;
      if (action.kind === "other") {
        // The modal must be the first response, so the bridge decides before anything is acknowledged.
        const response = await withDeadline(bridge.handle({ ...base, kind: "other" }), OTHER_DECISION_MS);
        if (!response) return refuse(interaction, TEXTS.notSubmitted);
        if (!response.openModal) return refuse(interaction, response.toast ?? response.reply?.text ?? TEXTS.notValid);
        await interaction.showModal(otherModal(response.openModal)).catch((error) => log(`could not open the modal for ${decoded.questionId}`, error));
        return;
      }
      await defer(interaction);
      const event: InboundEvent = action.kind === "choice" ? { ...base, kind: "choice", optionIndex: action.optionIndex } : { ...base, kind: "skip" };
      const response = await bridge.handle(event);
      await tell(interaction, response?.toast ?? response?.reply?.text);
    },

    async modal(interaction: ModalSubmitInteraction): Promise<void> {
      const decoded = decodeDiscordCustomId(interaction.customId);
      const text = textInputValue(interaction);
      if (!decoded || decoded.action.kind !== "other" || text === undefined) return refuse(interaction, TEXTS.notValid);
      await defer(interaction);
      const response = await bridge.handle({
        kind: "modal",
        user: bridgeUserOf(interaction.user, interaction.member),
        chat: chatOf(interaction),
        questionId: decoded.questionId,
        text,
      });
      // The confirmation ("✅ Recorded: …") says more than the toast, and a refusal says why.
      await tell(interaction, response?.reply?.text ?? response?.toast);
    },
  };
}
