import type { QuestionRecord } from "../record.ts";
import type { ModalRequest } from "../render/index.ts";

/** Someone on a chat surface. `name` is for summaries ("answered in Telegram by Ada"). */
export interface BridgeUser {
  id: string;
  name?: string;
}

interface EventBase {
  user: BridgeUser;
  /** The target chat the event happened in (for a DM: the chat id the question was targeted at). */
  chat: string;
}

/** A typed message. Which ones count as replies: see `createInboundHandler`. */
export interface TextEvent extends EventBase {
  kind: "text";
  text: string;
  /** In a direct message with the bot; otherwise a group or channel, where only replies to the bot's messages count. */
  direct: boolean;
  /**
   * The platform's id of this message (Telegram message_id, Discord message id, Slack ts), unique in its chat. The
   * gateway takes a message once, so a re-delivered copy (a webhook retry, a replayed update) records nothing.
   */
  messageRef?: string;
  /**
   * The bot message this one replies to (a Telegram or Discord reply, or the thread a Slack reply is in), in the
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

/**
 * What the platform should do in answer. Toasts answer button presses; replies are new messages. Every text in it is
 * already the platform's safe text (the bridge's `toPlatformText`): send it as it is.
 */
export interface BridgeResponse {
  /** The short acknowledgement for a button press (a toast, or an ephemeral message). */
  toast?: string;
  /** A message to send in the chat (or privately, when `private` and the platform can). */
  reply?: { text: string; private?: boolean };
  /** Other… on a platform without modals: ask for the person's own words (Telegram ForceReply). */
  askOwnWords?: { questionId: string; text: string };
  /** Other… on a platform with modals: open one with a single text field. */
  openModal?: ModalRequest;
  /** The person's message held a credential: delete it where the platform allows. */
  deleteMessage?: boolean;
  /** Said instead of `reply` when the platform refused to delete the credential (it is still visible). */
  notDeleted?: { text: string; private?: boolean };
  /** A typed reply from someone who may not answer, in a group: mark it (a reaction) instead of answering in public. */
  markRefused?: boolean;
  /**
   * The question the reply is about. A bot that sends the reply hands its message id to `bridge.sent`, so that a
   * reply to that message (a follow-up asking for the rest) counts as a reply to the question.
   */
  questionId?: string;
  /** The record after the event, when it changed. */
  record?: QuestionRecord;
}

/** A message the bot sent about a question (not the prompt): replies to it are replies to that question. */
export interface SentNote {
  chat: string;
  /** The reference a reply to it carries (`replyToMessageRef`). */
  messageRef: string;
  questionId: string;
  /** The Other… request: only this person's reply to it counts, as their own words. */
  ownWordsOf?: string;
}
