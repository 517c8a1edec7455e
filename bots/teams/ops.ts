import type { Bridge, PlatformOps, ReplyEffect } from "../../src/bridge/index.ts";
import type { Log } from "../shared.ts";
import { textActivity } from "./adapter.ts";
import type { TeamsConnector } from "./connector.ts";
import type { TeamsReference } from "./references.ts";

/** Where an event happened: the conversation, the target chat, the person, and what a reply belongs to. */
export interface TeamsPlace {
  reference: TeamsReference;
  chat: string;
  user: string;
  /**
   * In a channel, the thread a reply goes in: the prompt's (a card submit, a reply in its thread), or the person's own
   * post (a message that @mentioned the bot). Elsewhere (a personal or group chat, which have no threads) none.
   */
  threadRoot?: string;
  /** A typed message (it stays in the chat); not a card submit, whose words were never posted. */
  typed: boolean;
}

/**
 * What a Teams bot can do after an event. No toast (an Action.Submit has no private answer), no ephemeral message, no
 * reaction: a bot can do none of these in Teams, so every reply goes in the conversation (in a channel, in the
 * thread), and the refusal mark on a stranger's message is left out (nothing is said to them in public, nothing is
 * recorded). A bot may not delete a person's message either, so a credential stays and the person is told to delete
 * it and rotate it.
 */
export function teamsOps(connector: TeamsConnector, bridge: Pick<Bridge, "sent">, log: Log, place: TeamsPlace): PlatformOps {
  const { reference, chat, user, threadRoot, typed } = place;
  // In the thread, not as a reply to the prompt: a reply to the prompt is what a reminder is.
  const send = (text: string) => connector.post(reference, textActivity(text), threadRoot);
  async function say(text: string, questionId?: string, ownWordsOf?: string): Promise<void> {
    const sent = send(text);
    if (questionId) bridge.sent({ chat, questionId, ...(ownWordsOf ? { ownWordsOf } : {}), messageRef: sent.catch(() => undefined) });
    await sent.then(
      () => {},
      (error) => log(`could not reply in ${reference.conversation.id}`, error),
    );
  }
  return {
    // A typed message cannot be deleted by a bot: it stays (false). A card submit posted nothing, so nothing is left.
    ...(typed ? { deleteMessage: async () => false } : {}),
    reply: (reply: ReplyEffect) => say(reply.reply, reply.questionId),
    askOwnWords: (text, questionId) => say(text, questionId, user),
  };
}
