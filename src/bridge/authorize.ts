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
