import { decodeCallbackData, encodeCallbackData, type DecodeCallbackOptions, type PromptCallback } from "../../render/callback-data.ts";
import { slack } from "./platform.ts";

/** Also used as the button's `value`. Unique within the actions block, since each action differs. */
export function encodeSlackActionId(callback: PromptCallback): string {
  return encodeCallbackData(callback, slack.callbackData, slack.title);
}

export function decodeSlackActionId(actionId: unknown, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallbackData(actionId, slack.callbackData, opts);
}
