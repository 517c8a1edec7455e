import { decodeCallbackData, encodeCallbackData, type DecodeCallbackOptions, type PromptCallback } from "../../render/callback-data.ts";
import { matrix } from "./platform.ts";

/** A poll answer's id: the record id and the action (the shared codec), never the label. */
export function encodeMatrixAnswerId(callback: PromptCallback): string {
  return encodeCallbackData(callback, matrix.callbackData, matrix.title);
}

export function decodeMatrixAnswerId(data: unknown, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallbackData(data, matrix.callbackData, opts);
}
