import type { PromptCallback } from "../render/index.ts";
import type { BridgeUser, InboundEvent } from "./events.ts";

/** Who acted where, and for a modal submit the text typed into it. */
export interface CallbackContext {
  user: BridgeUser;
  chat: string;
  /** Present for a modal submit: the answer typed into the Other… modal. */
  text?: string;
  /** When the platform stamped the press (see the event's `sentAtMs`). */
  sentAtMs?: number;
}

/**
 * A decoded button press or modal submit as the one inbound event, the same on every platform. With `text` it is
 * the modal's answer to the question the callback names; without, the button's own action.
 */
export function callbackToEvent({ questionId, action }: PromptCallback, { user, chat, text, sentAtMs }: CallbackContext): InboundEvent {
  const base = { user, chat, questionId, ...(sentAtMs !== undefined ? { sentAtMs } : {}) };
  if (text !== undefined) return { ...base, kind: "modal", text };
  if (action.kind === "choice") return { ...base, kind: "choice", optionIndex: action.optionIndex };
  return { ...base, kind: action.kind };
}
