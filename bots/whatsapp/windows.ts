/**
 * The 24-hour customer-service window, as far as this bot has seen it: WhatsApp takes free-form and interactive
 * messages only within 24 hours of the person's last message (else error 131047), and a template at any time. When a
 * prompt was refused for that and the template went out in its place, the chat waits for the person's reply: its
 * prompts are not tried again (nor the template sent twice) until they write.
 */
export interface ConversationWindows {
  /** The person wrote: the window is open for 24 hours. */
  opened(chat: string): void;
  /** The template went out to open the conversation. */
  templateSent(chat: string): void;
  /** A template went out and the person has not written since (nor has it been 24 hours). */
  awaitingReply(chat: string): boolean;
}

const DAY_MS = 24 * 60 * 60_000;
const KEPT_MAX = 10_000;

export function createConversationWindows(now: () => number = Date.now): ConversationWindows {
  const templates = new Map<string, number>();
  return {
    opened(chat) {
      templates.delete(chat);
    },
    templateSent(chat) {
      templates.delete(chat);
      templates.set(chat, now());
      if (templates.size > KEPT_MAX) templates.delete(templates.keys().next().value!);
    },
    awaitingReply(chat) {
      const sentAtMs = templates.get(chat);
      if (sentAtMs === undefined) return false;
      if (now() - sentAtMs < DAY_MS) return true;
      templates.delete(chat); // a day without an answer: the next try sends the template again
      return false;
    },
  };
}
