import type { Surface } from "../contract/result.ts";
import type { QuestionRecord } from "../record/record.ts";

/** The targets of a record on one surface and chat. */
export function targetsIn(record: QuestionRecord, surface: Surface, chat: string) {
  return record.targets.filter((t) => t.surface === surface && t.chat === chat);
}

/** True when the prompt was delivered to that chat on that surface. */
export function deliveredTo(record: QuestionRecord, surface: Surface, chat: string): boolean {
  return record.deliveries.some((d) => d.surface === surface && d.chat === chat);
}

/**
 * How much earlier than a copy's recorded delivery a message may be stamped and still answer it: the platform's clock
 * against this host's, a timestamp in whole seconds, and the send's round trip before the delivery is recorded.
 */
export const COPY_CLOCK_GRACE_MS = 10_000;

/**
 * True when a message stamped `sentAtMs` was written before the record's copy in that chat was delivered (beyond
 * COPY_CLOCK_GRACE_MS): it cannot be an answer to that copy. False without a stamp, or without a copy there.
 */
export function writtenBeforeCopy(record: QuestionRecord, surface: Surface, chat: string, sentAtMs: number | undefined): boolean {
  if (sentAtMs === undefined) return false;
  const copy = record.deliveries.find((d) => d.surface === surface && d.chat === chat);
  return copy !== undefined && sentAtMs + COPY_CLOCK_GRACE_MS < copy.deliveredAtMs;
}

/**
 * Who may answer: the surface's allow-list (when set) and the target's users (when named) must both admit the person.
 */
export function mayAnswer(record: QuestionRecord, surface: Surface, chat: string, userId: string, allowedUsers: readonly string[]): boolean {
  if (allowedUsers.length > 0 && !allowedUsers.includes(userId)) return false;
  const targets = targetsIn(record, surface, chat);
  if (targets.length === 0) return false;
  return targets.some((t) => !t.users?.length || t.users.includes(userId));
}

/** True when the record's target in that chat names this person among its users (not just admits everyone). */
export function namesUser(record: QuestionRecord, surface: Surface, chat: string, userId: string): boolean {
  return targetsIn(record, surface, chat).some((t) => t.users?.includes(userId) === true);
}
