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

/**
 * The one inbound shape every platform translates its events into: a button press (choice, Other, Skip),
 * a modal submit, or a typed message.
 */
export type InboundEvent =
  | (EventBase & { kind: "choice"; questionId: string; optionIndex: number })
  | (EventBase & { kind: "other"; questionId: string })
  | (EventBase & { kind: "skip"; questionId: string })
  | (EventBase & { kind: "modal"; questionId: string; text: string })
  | (EventBase & { kind: "text"; text: string; /** The prompt this message replies to, if any. */ replyToMessageRef?: string });

/** What the platform should do in answer. Toasts answer button presses; replies are new messages. */
export interface BridgeResponse {
  /** The short acknowledgement for a button press (a toast, or an ephemeral message). */
  toast?: string;
  /** A message to send in the chat (or privately, when `private`). */
  reply?: { text: string; private?: boolean };
  /** Other… on a platform without modals: ask for the person's own words (Telegram ForceReply). */
  askOwnWords?: { questionId: string; text: string };
  /** Other… on a platform with modals: open one with a single text field. */
  openModal?: ModalRequest;
  /** The person's message held a credential: delete it where the platform allows. */
  deleteMessage?: boolean;
  /** The record after the event, when it changed. */
  record?: QuestionRecord;
}
