/**
 * In a group or channel, a typed message counts as an answer only when it replies to the prompt (a Telegram or
 * Discord reply, a Slack thread reply) or comes from a user the target names; the prompt says so. In a direct
 * message any message from the person counts, so no hint is needed there.
 */
export type ChatKind = "direct" | "group";

export interface ChatOptions {
  /** Where the prompt goes; default "direct" (no hint). */
  chat?: ChatKind;
  /** The moment to render for (whether a late answer is still taken); default now. */
  nowMs?: number;
}

export const GROUP_REPLY_HINTS = {
  telegram: "In this group, a typed answer counts only as a reply to this message.",
  discord: "In this channel, a typed answer counts only as a reply to this message.",
  slack: "In this channel, a typed answer counts only in this message's thread.",
} as const;

export function replyHint(surface: keyof typeof GROUP_REPLY_HINTS, options: ChatOptions = {}): string | undefined {
  return options.chat === "group" ? GROUP_REPLY_HINTS[surface] : undefined;
}
