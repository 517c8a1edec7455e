/**
 * Callback data carried by prompt buttons: the record id and an action, never the label text.
 * Format (version a1): `a1|<recordId>|c|<optionIndex>`, `a1|<recordId>|o`, `a1|<recordId>|s`.
 * Encoding throws on a programmer error; decoding never throws and returns null for anything off.
 */
import { LIMITS } from "../contract/schema.ts";
import type { CallbackDataLimit } from "../platforms/kit/descriptor.ts";

export const CALLBACK_DATA_VERSION = "a1";

/** What a button does. */
export type PromptAction = { kind: "choice"; optionIndex: number } | { kind: "other" } | { kind: "skip" };

/** A decoded button press. `questionId` is the question record's id. */
export interface PromptCallback {
  questionId: string;
  action: PromptAction;
}

export interface DecodeCallbackOptions {
  /** The question's option count; a choice index at or above it decodes to null. */
  optionCount?: number;
}

/** Record ids are short ASCII (UUIDs, nanoids). `|` is the separator, so it can never appear. */
const RECORD_ID = /^[A-Za-z0-9_-]+$/;
const OPTION_INDEX = /^[0-9]$/;
const SEPARATOR = "|";

const utf8 = new TextEncoder();
const utf8Bytes = (s: string): number => utf8.encode(s).length;
const chars = (s: string): number => s.length;

function encodeCallback(callback: PromptCallback, max: number, measure: (s: string) => number, what: string): string {
  const { questionId, action } = callback;
  if (!RECORD_ID.test(questionId)) {
    throw new Error(`${what}: the record id must be non-empty and use only A-Z a-z 0-9 _ - (got ${JSON.stringify(questionId)})`);
  }
  const parts = [CALLBACK_DATA_VERSION, questionId];
  if (action.kind === "choice") {
    const i = action.optionIndex;
    if (!Number.isInteger(i) || i < 0 || i >= LIMITS.maxOptions) {
      throw new Error(`${what}: optionIndex must be an integer 0..${LIMITS.maxOptions - 1} (got ${i})`);
    }
    parts.push("c", String(i));
  } else if (action.kind === "other") {
    parts.push("o");
  } else if (action.kind === "skip") {
    parts.push("s");
  } else {
    throw new Error(`${what}: unknown action kind ${JSON.stringify((action as { kind: unknown }).kind)}`);
  }
  const encoded = parts.join(SEPARATOR);
  const size = measure(encoded);
  if (size > max) throw new Error(`${what}: ${JSON.stringify(encoded)} is ${size}, over the limit of ${max}`);
  return encoded;
}

function decodeCallback(
  input: unknown,
  max: number,
  measure: (s: string) => number,
  opts: DecodeCallbackOptions | undefined,
): PromptCallback | null {
  if (typeof input !== "string" || input.length === 0 || input.length > max || measure(input) > max) return null;
  const [version, questionId, kind, index, ...extra] = input.split(SEPARATOR);
  if (version !== CALLBACK_DATA_VERSION || questionId === undefined || !RECORD_ID.test(questionId)) return null;
  if (extra.length > 0) return null;
  if (kind === "o" || kind === "s") {
    if (index !== undefined) return null;
    return { questionId, action: { kind: kind === "o" ? "other" : "skip" } };
  }
  if (kind !== "c" || index === undefined || !OPTION_INDEX.test(index)) return null;
  const optionIndex = Number(index);
  const given = opts?.optionCount;
  const count = Number.isInteger(given) ? Math.min(given as number, LIMITS.maxOptions) : LIMITS.maxOptions;
  if (optionIndex >= count) return null;
  return { questionId, action: { kind: "choice", optionIndex } };
}

/** "<title> callback_data (bytes)", "<title> custom_id": the field, in encoding errors. */
function fieldName(title: string, limit: CallbackDataLimit): string {
  return `${title} ${limit.field}${limit.unit === "bytes" ? " (bytes)" : ""}`;
}

const measureFor = (limit: CallbackDataLimit) => (limit.unit === "bytes" ? utf8Bytes : chars);

/** Encodes a button's callback for a platform's field (its descriptor's `callbackData`); throws past the limit. */
export function encodeCallbackData(callback: PromptCallback, limit: CallbackDataLimit, title: string): string {
  return encodeCallback(callback, limit.max, measureFor(limit), fieldName(title, limit));
}

/** Decodes a platform's callback field; null for anything off. Never throws. */
export function decodeCallbackData(input: unknown, limit: CallbackDataLimit, opts?: DecodeCallbackOptions): PromptCallback | null {
  return decodeCallback(input, limit.max, measureFor(limit), opts);
}
