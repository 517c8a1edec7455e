import { decodeCallbackData, encodeCallbackData, type DecodeCallbackOptions, type PromptCallback } from "../../render/callback-data.ts";
import { discord } from "./platform.ts";

export function encodeDiscordCustomId(callback: PromptCallback): string {
  return encodeCallbackData(callback, discord.callbackData, discord.title);
}

export function decodeDiscordCustomId(customId: unknown, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallbackData(customId, discord.callbackData, opts);
}
