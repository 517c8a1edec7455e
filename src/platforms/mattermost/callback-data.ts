import { decodeCallbackData, encodeCallbackData, type DecodeCallbackOptions, type PromptCallback } from "../../render/callback-data.ts";
import { mattermost } from "./platform.ts";

/** The `d` of an action's context: the record id and the action (never the label). The bot signs it (`s`). */
export function encodeMattermostCallback(callback: PromptCallback): string {
  return encodeCallbackData(callback, mattermost.callbackData, mattermost.title);
}

export function decodeMattermostCallback(data: unknown, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallbackData(data, mattermost.callbackData, opts);
}
