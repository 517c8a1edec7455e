import type { Clock, ClockTimer } from "../kernel/clock.ts";
import { acceptsLateAnswer } from "../record/late-window.ts";
import type { QuestionRecord } from "../record/record.ts";
import type { RecordCache } from "./record-cache.ts";
import type { ReminderSender } from "./reminders.ts";

export interface CopySettlerOptions {
  cache: RecordCache;
  clock: Clock;
  /** Edits the copies that are behind what the record shows now (the copy editor). */
  updateCopies: (record: QuestionRecord) => Promise<void>;
  /** Whether some copy of this surface shows something else than the record does now (by its fingerprint). */
  copiesBehind: (record: QuestionRecord) => boolean;
  reminders?: ReminderSender;
}

/** The longest a timer may wait (Node's setTimeout limit, about 24.8 days). */
const TIMER_MAX_MS = 2 ** 31 - 1;

/**
 * What a bot does once a question is no longer pending (resolved, answered late, its late window ended, a reminder
 * reported after the fact): its copies are edited to what they show now, its reminders cleaned up, and an expired
 * copy that still takes a late answer is edited again when its window ends, by this process's clock too (the
 * gateway announces the end with question.updated, but a bot whose clock runs behind would still render it open).
 */
export function createCopySettler({ cache, clock, updateCopies, copiesBehind, reminders }: CopySettlerOptions) {
  const now = () => clock.now();
  const lateWindows = new Map<string, ClockTimer>();

  function watchLateWindow(record: QuestionRecord): void {
    const untilMs = record.lateUntilMs;
    if (untilMs === undefined || !acceptsLateAnswer(record, now()) || lateWindows.has(record.id)) return;
    const timer = clock.setTimeout(() => {
      lateWindows.delete(record.id);
      const current = cache.get(record.id);
      if (current) void updateCopies(current);
    }, Math.min(untilMs - now() + 50, TIMER_MAX_MS));
    timer.unref?.();
    lateWindows.set(record.id, timer);
  }

  return {
    /**
     * Settles a record that is not pending; resolves once its copies' edits settled. `catchingUp` (a resync's look
     * at what changed while the bot was away): its reminders are cleaned up only when its copies are behind too, since
     * the bot that edited them cleaned them up then (a restart does not send a delete per reminder of the last hour
     * through the platform's rate limit again).
     */
    settle(record: QuestionRecord, { catchingUp = false }: { catchingUp?: boolean } = {}): Promise<void> {
      const latest = cache.get(record.id) ?? record;
      if (!catchingUp || copiesBehind(latest)) void reminders?.cleanUp(latest);
      const edited = updateCopies(latest);
      watchLateWindow(latest);
      return edited;
    },
    stop(): void {
      for (const timer of lateWindows.values()) clock.clearTimeout(timer);
      lateWindows.clear();
    },
  };
}
