import type { QuestionRecord } from "../../record/record.ts";
import { isChatTarget } from "../../record/targets.ts";
import type { Clock } from "../../kernel/clock.ts";
import { createScheduler } from "./scheduler.ts";
import type { QuestionStore } from "../store/kit/types.ts";

/** Questions expired per store call; a tick keeps going until fewer come back. */
const EXPIRE_BATCH = 500;
/** Records with follow-ups due (reminders, escalation steps), and late windows ended, read per store call. */
const FOLLOW_UP_BATCH = 200;

export interface DeadlinesOptions {
  store: QuestionStore;
  clock: Clock;
  /** How long chat targets get to report a first delivery. */
  deliveryTimeoutMs: number;
  /** A question this instance expired (the store's compare-and-set made it so exactly once across instances). */
  onExpired: (record: QuestionRecord) => void;
  /** A watched question got no delivery in time (or a re-check of a queued one is due). */
  onDeliveryOverdue: (id: string) => Promise<void>;
  /** A pending question has a reminder or an escalation step due (any instance may see it: each is a compare-and-set). */
  onFollowUpDue: (record: QuestionRecord, nowMs: number) => Promise<void>;
  /** An expired question's late window ended without a late answer (every instance sees it once, for its own clients). */
  onLateWindowEnded: (record: QuestionRecord) => void;
  onError: (error: unknown) => void;
}

/**
 * Every deadline of the gateway on one schedule (one timer): question expiry, reminders, escalation steps and the
 * end of late windows, read from the store so any instance fires what is due (each a compare-and-set there), and the
 * delivery watch, kept per instance for the questions it knows are waiting for a
 * first chat delivery (and, past that deadline, for those queued behind a bot's live claim, until its lease ends).
 */
export function createDeadlines(options: DeadlinesOptions) {
  const { store, clock, deliveryTimeoutMs } = options;
  const now = () => clock.now();
  /** Late windows ending at or before this moment were handled (or ended before this instance started). */
  let lateWindowsSeenUntil = now();
  /**
   * The last tick's time. A follow-up still due at or before it could not be fired (the store failed the write, or
   * its row is corrupt): it is looked at again a second later, never in a tight loop.
   */
  let lastTickMs = Number.NEGATIVE_INFINITY;
  /** Question id → delivery deadline, in deadline order (the timeout is constant, so insertion order is enough). */
  const deliveryDeadlines = new Map<string, number>();
  /** Question id → when to look again at a question queued behind a bot's live claim (any order: scanned whole). */
  const rechecks = new Map<string, number>();
  const soonestRecheck = (): number | undefined => {
    let soonest: number | undefined;
    for (const at of rechecks.values()) if (soonest === undefined || at < soonest) soonest = at;
    return soonest;
  };

  const scheduler = createScheduler({
    clock,
    onError: options.onError,
    async next() {
      const expiry = await store.nextExpiryMs();
      let followUp = await store.nextFollowUpMs(lateWindowsSeenUntil);
      if (followUp !== undefined && followUp <= lastTickMs) followUp = lastTickMs + 1_000;
      const times = [expiry, followUp, deliveryDeadlines.values().next().value, soonestRecheck()].filter((t): t is number => t !== undefined);
      return times.length > 0 ? Math.min(...times) : undefined;
    },
    async tick(nowMs) {
      lastTickMs = nowMs;
      for (;;) {
        const expired = await store.expireDue(nowMs, EXPIRE_BATCH);
        for (const record of expired) options.onExpired(record);
        if (expired.length < EXPIRE_BATCH) break;
      }
      for (let round = 0; round < 50; round++) {
        const records = await store.followUpsDue(nowMs, FOLLOW_UP_BATCH);
        for (const record of records) {
          try {
            await options.onFollowUpDue(record, nowMs);
          } catch (error) {
            options.onError(error);
          }
        }
        if (records.length < FOLLOW_UP_BATCH) break;
      }
      for (;;) {
        const ended = await store.lateWindowsEnded(lateWindowsSeenUntil, nowMs, FOLLOW_UP_BATCH);
        for (const record of ended) options.onLateWindowEnded(record);
        if (ended.length < FOLLOW_UP_BATCH) {
          lateWindowsSeenUntil = nowMs;
          break;
        }
        lateWindowsSeenUntil = ended[ended.length - 1]?.lateUntilMs ?? nowMs;
      }
      const due: string[] = [];
      for (const [id, deadline] of deliveryDeadlines) {
        if (deadline > nowMs) break;
        deliveryDeadlines.delete(id);
        due.push(id);
      }
      for (const [id, at] of rechecks) {
        if (at > nowMs) continue;
        rechecks.delete(id);
        due.push(id);
      }
      for (const id of due) {
        try {
          await options.onDeliveryOverdue(id);
        } catch (error) {
          options.onError(error);
          rechecks.set(id, nowMs + 1_000); // the store is unavailable: look again in a second
        }
      }
    },
  });

  return {
    /** Arms the schedule (after start-up has expired what passed while down). */
    start: () => scheduler.arm(),
    stop: () => scheduler.stop(),
    /** A question exists (here or on another instance): its expiry may be the next deadline. */
    expiresAt(expiresAtMs: number): void {
      scheduler.poke(expiresAtMs);
    },
    /** A reminder, an escalation step or the end of a late window may be the next deadline. */
    followUpAt(atMs: number | undefined): void {
      if (atMs !== undefined) scheduler.poke(atMs);
    },
    /** Watches a question's first delivery when every target is a chat (the web UI always shows pending questions). */
    watchDelivery(record: QuestionRecord, startedAtMs = now()): void {
      if (record.status !== "pending" || !record.targets.every(isChatTarget) || record.deliveries.length > 0) return;
      if (deliveryDeadlines.has(record.id) || rechecks.has(record.id)) return;
      const deadline = startedAtMs + deliveryTimeoutMs;
      deliveryDeadlines.set(record.id, deadline);
      scheduler.poke(deadline);
    },
    /** Past its delivery deadline, but queued behind a bot's live claim: look again at `atMs` (when that lease ends). */
    recheckDelivery(id: string, atMs: number): void {
      deliveryDeadlines.delete(id);
      rechecks.set(id, atMs);
      scheduler.poke(atMs);
    },
    /** Delivered, or resolved: nothing more to watch. */
    forget(id: string): void {
      deliveryDeadlines.delete(id);
      rechecks.delete(id);
    },
  };
}

export type Deadlines = ReturnType<typeof createDeadlines>;
