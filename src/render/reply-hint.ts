/**
 * In a group or channel, a typed message counts as an answer only when it replies to the prompt (a reply, or a reply
 * in its thread: each platform's `chats` rules) or comes from a user the target names; the prompt says so. In a
 * direct message any message from the person counts, so no hint is needed there.
 */
import { PLATFORM_LIST } from "../platforms/descriptors.ts";
import type { PlatformName } from "../platforms/index.ts";

export type ChatKind = "direct" | "group";

export interface ChatOptions {
  /** Where the prompt goes; default "direct" (no hint). */
  chat?: ChatKind;
  /** The moment to render for (whether a late answer is still taken); default now. */
  nowMs?: number;
}

/** Each platform's group hint, from its descriptor. */
export const GROUP_REPLY_HINTS = Object.fromEntries(PLATFORM_LIST.map((p) => [p.surface, p.chats.replyHint])) as {
  readonly [N in PlatformName]: string;
};

export function replyHint(surface: PlatformName, options: ChatOptions = {}): string | undefined {
  return options.chat === "group" ? GROUP_REPLY_HINTS[surface] : undefined;
}
