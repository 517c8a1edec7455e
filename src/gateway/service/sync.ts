import type { StoreChange } from "../store/kit/types.ts";
import { nextFollowUpMs } from "../../record/follow-ups.ts";
import type { ServiceContext } from "./context.ts";

/** After the change feed comes back, questions resolved this recently are announced again. */
const RESYNC_LOOKBACK_MS = 10 * 60_000;

/**
 * Following the store: start (catch up on what passed while the gateway was down, then arm the schedule), the
 * change feed of a shared store (what other instances commit is followed as if it happened here), the resync after
 * the feed was lost, and stop.
 */
export function createSync({ store, now, log, events, deadlines, waiters, finished, known }: ServiceContext) {
  const unsubscribe: Array<() => void> = [];

  /** Another instance committed a change: follow it as if it happened here. */
  async function onRemoteChange(change: StoreChange): Promise<void> {
    // A shared store's notification usually carries the record as committed; only without it is it read.
    const record = change.record ?? (await store.get(change.id));
    if (!record) return;
    if (change.event === "question.lateAnswered") return events.emit("question.lateAnswered", record, true);
    // Each change is announced once: a question resolved before this instance read its "requested" (or "updated")
    // change is announced by the "resolved" change that follows it, never twice.
    if (record.status !== "pending") {
      if (change.event === "question.resolved") return finished(record, true);
      // In a late window an expired question still changes (a late partial reply, a reminder reply reported).
      if (change.event === "question.updated" && record.lateUntilMs !== undefined) events.emit("question.updated", record, true);
      return;
    }
    if (change.event === "question.requested") {
      known.remember(record);
      deadlines.expiresAt(record.expiresAtMs);
      deadlines.followUpAt(nextFollowUpMs(record));
      deadlines.watchDelivery(record);
    } else if (record.deliveries.length > 0) {
      deadlines.forget(record.id);
    }
    const event = change.event === "question.resolved" ? "question.updated" : change.event;
    events.emit(event, record, true);
  }

  /**
   * The change feed was down: what other instances did meanwhile was never announced, so read it again and announce
   * it here. Every pending question goes out again as `question.requested` (bots and pages treat a repeat as a
   * no-op), and every question resolved recently as `question.resolved`; waiters end, and the schedule re-arms.
   */
  async function resync(): Promise<void> {
    for (const id of waiters.ids()) {
      const record = await store.get(id);
      if (record && record.status !== "pending") finished(record, true);
    }
    const since = now() - RESYNC_LOOKBACK_MS;
    for (let before: { createdAtMs: number; id: string } | undefined, pages = 0; pages < 100; pages++) {
      const page = await store.list({ limit: 500, ...(before ? { before } : {}) });
      for (const record of page) {
        if (record.status === "pending") {
          deadlines.watchDelivery(record);
          events.emit("question.requested", record, true);
        } else if ((record.resolvedAtMs ?? 0) >= since) {
          finished(record, true);
        }
      }
      const last = page[page.length - 1];
      // Records are newest first: once a page is older than the lookback and holds nothing pending, stop.
      if (!last || page.length < 500 || (last.createdAtMs < since - 60 * 60_000 && !page.some((r) => r.status === "pending"))) break;
      before = { createdAtMs: last.createdAtMs, id: last.id };
    }
    await deadlines.start();
  }

  return {
    /** Expires what passed its expiry while the gateway was down, watches deliveries, and arms the schedule. */
    async start(): Promise<void> {
      for (;;) {
        const expired = await store.expireDue(now(), 500);
        for (const record of expired) finished(record);
        if (expired.length < 500) break;
      }
      // Only the questions still waiting for a first chat delivery, not every pending record (100,000 at rest).
      for (const record of await store.pendingAwaitingDelivery()) deadlines.watchDelivery(record);
      const follow = store.onRemoteChange?.((change) => {
        onRemoteChange(change).catch((error) => log(`could not follow ${change.event} ${change.id}`, error));
      });
      const resynced = store.onResync?.(() => void resync().catch((error) => log("could not catch up with the store", error)));
      for (const off of [follow, resynced]) if (off) unsubscribe.push(off);
      await deadlines.start();
    },

    stop(): void {
      for (const off of unsubscribe.splice(0)) off();
      deadlines.stop();
      // Settle every long-poll now: a waitAnswer timer must not keep a stopped process alive for up to maxWaitMs.
      waiters.endAll();
    },
  };
}
