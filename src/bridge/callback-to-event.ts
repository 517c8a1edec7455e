import type { PromptCallback } from "../render/index.ts";
import type { BridgeUser, InboundEvent } from "./events.ts";

/** Who acted where, and for a modal submit the text typed into it. */
export interface CallbackContext {
  user: BridgeUser;
  chat: string;
  /** Present for a modal submit: the answer typed into the Other… modal. */
  text?: string;
}

/**
 * A decoded button press or modal submit as the one inbound event, the same on every platform. With `text` it is
 * the modal's answer to the question the callback names; without, the button's own action.
 */
export function callbackToEvent({ questionId, action }: PromptCallback, { user, chat, text }: CallbackContext): InboundEvent {
  const base = { user, chat, questionId };
  if (text !== undefined) return { ...base, kind: "modal", text };
  if (action.kind === "choice") return { ...base, kind: "choice", optionIndex: action.optionIndex };
  return { ...base, kind: action.kind };
}
