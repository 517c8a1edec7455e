import { Events, GuildMember, MessageFlags, type ButtonInteraction, type Client, type Message, type ModalSubmitInteraction, type User } from "discord.js";
import { applyEffects, callbackToEvent, TEXTS, type Bridge, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeDiscordCustomId } from "../../src/platforms/discord/callback-data.ts";
import { DISCORD_MODAL_INPUT_ID } from "../../src/platforms/discord/modal.ts";
import type { Log } from "../shared.ts";
import { toMessageRef } from "./adapter.ts";
import { discordInteractionOps, discordMessageOps, discordOtherOps, refuseInteraction, type Interaction } from "./ops.ts";

/** Discord drops an interaction not acknowledged within 3 s; the bridge gets this long to decide on Other…. */
const OTHER_DECISION_MS = 2_000;

/** The person, named as the summary should show them (server nickname, display name, username). */
function bridgeUserOf(user: User, member?: unknown): BridgeUser {
  const name = member instanceof GuildMember ? member.displayName : user.displayName;
  return { id: user.id, ...(name ? { name } : {}) };
}

/** The target chat a message is in: the channel, or in a DM the person's own user id (the DM target). */
const chatOfMessage = (message: Message): string => (message.inGuild() ? message.channelId : message.author.id);

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
 * interaction is acknowledged inside Discord's 3 s window first (a deferred update, or the modal itself); the
 * bridge's response is then applied through Discord's operations (`./ops.ts`): what the person is told comes as an
 * ephemeral follow-up. A failed acknowledgement is only logged.
 */
export function registerDiscordInbound(client: Client, bridge: Pick<Bridge, "handle" | "sent">, log: Log): void {
  const refuse = (interaction: Interaction, text: string) => refuseInteraction(interaction, text, log);

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
      const other = discordOtherOps(interaction, log);
      await applyEffects(response, other.ops);
      return other.finish();
    }
    await defer(interaction);
    const response = await bridge.handle(event);
    if (response) await applyEffects(response, discordInteractionOps(interaction, log));
  }

  async function modal(interaction: ModalSubmitInteraction): Promise<void> {
    const decoded = decodeDiscordCustomId(interaction.customId);
    const text = textInputValue(interaction);
    if (!decoded || decoded.action.kind !== "other" || text === undefined) return refuse(interaction, TEXTS.notValid);
    await defer(interaction);
    const response = await bridge.handle(callbackToEvent(decoded, { user: bridgeUserOf(interaction.user, interaction.member), chat: chatOf(interaction), text }));
    if (response) await applyEffects(response, discordInteractionOps(interaction, log));
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
      .then((response) => response && applyEffects(response, discordMessageOps(message, chatOfMessage(message), client, bridge, log)))
      .catch((error) => log(`message ${message.id} failed`, error));
  });

  client.on(Events.InteractionCreate, (interaction) => {
    const handled = interaction.isButton() ? button(interaction) : interaction.isModalSubmit() ? modal(interaction) : undefined;
    handled?.catch((error) => log(`interaction ${interaction.id} failed`, error));
  });
}
