import { decodeCallbackData, encodeCallbackData, type DecodeCallbackOptions, type PromptCallback } from "../../render/callback-data.ts";
import { whatsapp } from "./platform.ts";

/** A list row's id: the question record and the option index (or Other…, Skip), never the label. */
export function encodeWhatsAppRowId(callback: PromptCallback): string {
  return encodeCallbackData(callback, whatsapp.callbackData, whatsapp.title);
}

export function decodeWhatsAppRowId(data: unknown, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallbackData(data, whatsapp.callbackData, opts);
}
