/**
 * The one schedule with follow-ups (issue 20): a reminder the store cannot mark (a failing write, a corrupt row) is
 * tried again a second later, never in a tight loop; and the end of a late window is announced once.
 */
import { describe, expect, it } from "vitest";
import { realClock } from "../../../src/kernel/clock.ts";
import { createDeadlines } from "../../../src/gateway/service/deadlines.ts";
import { createMemoryStore } from "../../../src/gateway/store/memory/memory-store.ts";
import type { QuestionStore } from "../../../src/gateway/store/kit/types.ts";
import { pendingRecord } from "../store/store-contract.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    const now = Date.now();
    await store.create(pendingRecord("q1", { createdAtMs: now - 1_000, expiresAtMs: now + 60_000, reminders: [59] }));
    const errors: unknown[] = [];
    const deadlines = createDeadlines({
      store,
      clock: realClock,
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
    await sleep(1_500);
    deadlines.stop();
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(3);
  });

  it("announces the end of a late window once", async () => {
    const store = createMemoryStore();
    const now = Date.now();
    await store.create(pendingRecord("q1", { createdAtMs: now - 2_000, expiresAtMs: now - 1_000, lateAnswerSeconds: 1 }));
    const ended: string[] = [];
    const deadlines = createDeadlines({
      store,
      clock: realClock,
      deliveryTimeoutMs: 30_000,
      onExpired: (record) => deadlines.followUpAt(record.lateUntilMs),
      onDeliveryOverdue: async () => {},
      onFollowUpDue: async () => {},
      onLateWindowEnded: (record) => ended.push(record.id),
      onError: (error) => {
        throw error;
      },
    });
    await deadlines.start();
    await sleep(1_600);
    deadlines.stop();
    expect(ended).toEqual(["q1"]);
  });
});
