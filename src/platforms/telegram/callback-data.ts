import { decodeCallbackData, encodeCallbackData, type DecodeCallbackOptions, type PromptCallback } from "../../render/callback-data.ts";
import { telegram } from "./platform.ts";

export function encodeTelegramCallbackData(callback: PromptCallback): string {
  return encodeCallbackData(callback, telegram.callbackData, telegram.title);
}

export function decodeTelegramCallbackData(data: unknown, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallbackData(data, telegram.callbackData, opts);
}
