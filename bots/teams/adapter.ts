import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { cutToFit } from "../../src/render/index.ts";
import { renderTeamsPrompt, renderTeamsSummary, teamsChatKind, TEAMS_ADAPTIVE_CARD_CONTENT_TYPE, type TeamsChatKind, type TeamsMessage } from "../../src/platforms/teams/payload.ts";
import { toTeamsText } from "../../src/platforms/teams/escaping.ts";
import type { Log } from "../shared.ts";
import { httpStatusOf, type OutgoingActivity, type TeamsConnector } from "./connector.ts";
import type { TeamsReference, TeamsReferenceStore } from "./references.ts";

/** A Teams text message: about 28 KB; replies are far shorter, this bounds a hostile quote. */
export const TEAMS_TEXT_MAX = 4_000;

/** The delivery_failed detail for a target the bot has never heard from. */
export function noReferenceReason(chat: string): string {
  return `teams: no conversation reference for ${chat}: the bot can only message a chat it has been added to. Install the app in that team or chat (or for that person), or have them message the bot first, then ask again`;
}

export function chatKindOf(reference: TeamsReference | undefined, chat: string): TeamsChatKind {
  const type = reference?.conversation.conversationType;
  return type === "personal" || type === "groupChat" || type === "channel" ? type : teamsChatKind(chat);
}

/** The card as a message activity; the text is the card's fallback (clients without cards, notifications). */
export function cardActivity(message: TeamsMessage): OutgoingActivity {
  return {
    type: "message",
    attachments: [{ contentType: TEAMS_ADAPTIVE_CARD_CONTENT_TYPE, content: { ...message.card, fallbackText: message.text } }],
  } as OutgoingActivity;
}

/** A plain reply: markdown, already escaped (toTeamsText). */
export function textActivity(text: string): OutgoingActivity {
  return { type: "message", text, textFormat: "markdown" } as OutgoingActivity;
}

/**
 * Sends each prompt as an Adaptive Card to the target's stored conversation reference and turns every copy into the
 * summary with updateActivity. A target without a reference fails at once: no retry can make Teams deliver it.
 */
export function createTeamsAdapter(connector: TeamsConnector, references: TeamsReferenceStore, log: Log): SurfaceAdapter {
  const referenceOf = (chat: string): TeamsReference => {
    const reference = references.find(chat);
    if (!reference) throw new PermanentSendError(noReferenceReason(chat));
    return reference;
  };
  const render = (record: Parameters<SurfaceAdapter["sendPrompt"]>[0], chat: string, nowMs?: number) =>
    renderTeamsSummary(record, { kind: chatKindOf(references.find(chat), chat), targetChat: chat, ...(nowMs !== undefined ? { nowMs } : {}) });

  return {
    surface: "teams",
    renderedOf: (record, chat, nowMs) => render(record, chat, nowMs),
    async sendPrompt(record, target) {
      const chat = target.chat!;
      const reference = referenceOf(chat);
      if (reference.conversation.conversationType === "personal" && reference.user?.aadObjectId !== chat) {
        throw new PermanentSendError(`teams: ${chat} is a personal chat's conversation id; target the person by their Entra object id (teams:${reference.user?.aadObjectId ?? "<object id>"})`);
      }
      return connector.post(reference, cardActivity(renderTeamsPrompt(record, { kind: chatKindOf(reference, chat), targetChat: chat })));
    },
    async updatePrompt(record, delivery, nowMs) {
      const reference = references.find(delivery.chat);
      if (!reference) return log(`cannot update ${record.id} in ${delivery.chat}: its conversation reference is gone`);
      await connector.update(reference, delivery.messageRef, cardActivity(render(record, delivery.chat, nowMs)));
    },
    reminders: {
      // A reply to the prompt (in a channel, in its thread): plain escaped text, so it mentions nobody.
      async send(delivery, text) {
        return connector.reply(referenceOf(delivery.chat), delivery.messageRef, textActivity(cutToFit(text, TEAMS_TEXT_MAX, toTeamsText)));
      },
      async delete(reminder) {
        const reference = references.find(reminder.chat);
        if (!reference) return true;
        try {
          await connector.delete(reference, reminder.messageRef);
          return true;
        } catch (error) {
          const status = httpStatusOf((error as { cause?: unknown }).cause ?? error);
          if (status === 404) return true;
          if (status === 403 || status === 401 || status === 400) return false;
          throw error;
        }
      },
      async edit(reminder, text) {
        const reference = references.find(reminder.chat);
        if (!reference) return;
        await connector.update(reference, reminder.messageRef, textActivity(cutToFit(text, TEAMS_TEXT_MAX, toTeamsText)));
      },
    },
  };
}
