import type { QuestionRecord } from "../record.ts";
import { isChatTarget } from "../targets.ts";
import { createScheduler } from "./scheduler.ts";
import type { QuestionStore } from "./store/types.ts";

/** Questions expired per store call; a tick keeps going until fewer come back. */
const EXPIRE_BATCH = 500;

export interface DeadlinesOptions {
  store: QuestionStore;
  now: () => number;
  /** How long chat targets get to report a first delivery. */
  deliveryTimeoutMs: number;
  /** A question this instance expired (the store's compare-and-set made it so exactly once across instances). */
  onExpired: (record: QuestionRecord) => void;
  /** A watched question got no delivery in time (or a re-check of a queued one is due). */
  onDeliveryOverdue: (id: string) => Promise<void>;
  onError: (error: unknown) => void;
}

/**
 * Every deadline of the gateway on one schedule (one timer): question expiry, read from the store so any instance
 * expires what is due, and the delivery watch, kept per instance for the questions it knows are waiting for a
 * first chat delivery (and, past that deadline, for those queued behind a bot's live claim, until its lease ends).
 */
export function createDeadlines(options: DeadlinesOptions) {
  const { store, now, deliveryTimeoutMs } = options;
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
    now,
    onError: options.onError,
    async next() {
      const expiry = await store.nextExpiryMs();
      const times = [expiry, deliveryDeadlines.values().next().value, soonestRecheck()].filter((t): t is number => t !== undefined);
      return times.length > 0 ? Math.min(...times) : undefined;
    },
    async tick(nowMs) {
      for (;;) {
        const expired = await store.expireDue(nowMs, EXPIRE_BATCH);
        for (const record of expired) options.onExpired(record);
        if (expired.length < EXPIRE_BATCH) break;
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
