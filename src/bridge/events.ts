/** Someone on a chat surface. `name` is for summaries ("answered in <platform> by Ada"). */
export interface BridgeUser {
  id: string;
  name?: string;
}

interface EventBase {
  user: BridgeUser;
  /** The target chat the event happened in (for a DM: the chat id the question was targeted at). */
  chat: string;
  /**
   * When the person sent it, as the platform stamps it (where the platform says, e.g. a webhook message's own timestamp). Nobody
   * answers a prompt before it reached them: a message older than the copy in its chat (a replayed webhook body)
   * answers nothing (`writtenBeforeCopy`).
   */
  sentAtMs?: number;
}

/** A typed message. Which ones count as replies: see `createInboundHandler`. */
export interface TextEvent extends EventBase {
  kind: "text";
  text: string;
  /** In a direct message with the bot; otherwise a group or channel, where only replies to the bot's messages count. */
  direct: boolean;
  /**
   * The platform's id of this message (a message id, or a timestamp where that is the id), unique in its chat. The
   * gateway takes a message once, so a re-delivered copy (a webhook retry, a replayed update) records nothing.
   */
  messageRef?: string;
  /**
   * The bot message this one replies to (a reply, or the thread a reply is in), in the
   * form the adapter gives delivered prompts.
   */
  replyToMessageRef?: string;
}

/**
 * The one inbound shape every platform translates its events into: a button press (choice, Other, Skip),
 * a modal submit, or a typed message.
 */
export type InboundEvent =
  | (EventBase & { kind: "choice"; questionId: string; optionIndex: number })
  | (EventBase & { kind: "other"; questionId: string })
  | (EventBase & { kind: "skip"; questionId: string })
  | (EventBase & { kind: "modal"; questionId: string; text: string })
  | TextEvent;

/** A message the bot sent about a question (not the prompt): replies to it are replies to that question. */
export interface SentNote {
  chat: string;
  /** The reference a reply to it carries (`replyToMessageRef`). */
  messageRef: string;
  questionId: string;
  /** The Other… request: only this person's reply to it counts, as their own words. */
  ownWordsOf?: string;
}
