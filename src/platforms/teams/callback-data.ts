import { decodeCallbackData, encodeCallbackData, type DecodeCallbackOptions, type PromptCallback } from "../../render/callback-data.ts";
import { teams } from "./platform.ts";

/** The `ask_user` field of an Action.Submit's data. */
export function encodeTeamsSubmitData(callback: PromptCallback): string {
  return encodeCallbackData(callback, teams.callbackData, teams.title);
}

export function decodeTeamsSubmitData(data: unknown, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallbackData(data, teams.callbackData, opts);
}
