/**
 * The one schedule with follow-ups (issue 20): a reminder the store cannot mark (a failing write, a corrupt row) is
 * tried again a second later, never in a tight loop; and the end of a late window is announced once.
 */
import { describe, expect, it, vi } from "vitest";
import { createDeadlines } from "../../../src/gateway/service/deadlines.ts";
import { createMemoryStore } from "../../../src/gateway/store/memory/memory-store.ts";
import type { QuestionStore } from "../../../src/gateway/store/kit/types.ts";
import { pendingRecord } from "../store/store-contract.ts";
import { createVirtualClock } from "../../scenarios/virtual-clock.ts";

describe("deadlines with follow-ups", () => {
  it("retries a follow-up the store keeps failing once a second, not in a loop", async () => {
    const inner = createMemoryStore();
    let reads = 0;
    const store: QuestionStore = {
      ...inner,
      followUpsDue: (nowMs, limit) => ((reads += 1), inner.followUpsDue(nowMs, limit)),
      markReminder: async () => {
        throw new Error("the database is read-only");
      },
    };
    const clock = createVirtualClock();
    const now = clock.now();
    await store.create(pendingRecord("q1", { createdAtMs: now - 1_000, expiresAtMs: now + 60_000, reminders: [59] }));
    const errors: unknown[] = [];
    const deadlines = createDeadlines({
      store,
      clock,
      deliveryTimeoutMs: 30_000,
      onExpired: () => {},
      onDeliveryOverdue: async () => {},
      onFollowUpDue: async (record, nowMs) => {
        await store.markReminder(record.id, 59, nowMs);
      },
      onLateWindowEnded: () => {},
      onError: (error) => errors.push(error),
    });
    await deadlines.start();
    await clock.advance(1_500);
    await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(1));
    deadlines.stop();
    expect(reads).toBeLessThanOrEqual(3);
  });

  it("announces the end of a late window once", async () => {
    const store = createMemoryStore();
    const clock = createVirtualClock();
    const now = clock.now();
    await store.create(pendingRecord("q1", { createdAtMs: now - 2_000, expiresAtMs: now - 1_000, lateAnswerSeconds: 1 }));
    const expired: string[] = [];
    const ended: string[] = [];
    const deadlines = createDeadlines({
      store,
      clock,
      deliveryTimeoutMs: 30_000,
      onExpired: (record) => {
        expired.push(record.id);
        deadlines.followUpAt(record.lateUntilMs);
      },
      onDeliveryOverdue: async () => {},
      onFollowUpDue: async () => {},
      onLateWindowEnded: (record) => ended.push(record.id),
      onError: (error) => {
        throw error;
      },
    });
    await deadlines.start();
    await vi.waitFor(() => expect(expired).toEqual(["q1"])); // its late window ends a second after this
    await clock.advance(1_600);
    await vi.waitFor(() => expect(ended).toEqual(["q1"]));
    await clock.advance(1_600); // announced once: a later tick says nothing more
    deadlines.stop();
    expect(ended).toEqual(["q1"]);
  });
});
