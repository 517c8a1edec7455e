/**
 * The scheduler follows the wall clock (issue 18, §1): setTimeout runs on the monotonic clock, which stands still
 * while the host is suspended, so a deadline must not wait for a long timer. Here `now` jumps forward (as after a
 * suspend) while the timer is pending: the tick runs within about a second, not at the old timer's end.
 */
import { describe, expect, it } from "vitest";
import { realClock } from "../../../src/kernel/clock.ts";
import { createScheduler, MAX_TIMER_MS } from "../../../src/gateway/service/scheduler.ts";

describe("createScheduler and the wall clock", () => {
  it("runs a deadline within ~1 s after the wall clock jumps past it, though the timer was set for 10 minutes", async () => {
    let wall = 1_000_000;
    const deadline = wall + 10 * 60_000;
    const ticks: number[] = [];
    let answered = false;
    let next: number | undefined = deadline;
    const scheduler = createScheduler({
      clock: { ...realClock, now: () => wall },
      tick: async (nowMs) => {
        ticks.push(nowMs);
        next = undefined;
      },
      next: async () => (answered ? undefined : ((answered = true), next)),
      onError: (error) => {
        throw error;
      },
    });
    await scheduler.arm();
    await new Promise((r) => setTimeout(r, 100));
    expect(ticks).toEqual([]);
    const jumpedAt = performance.now();
    wall = deadline + 5; // the host slept through the deadline
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (ticks.length > 0) {
          clearInterval(poll);
          resolve();
        } else if (performance.now() - jumpedAt > 3_000) {
          clearInterval(poll);
          reject(new Error("the tick did not run within 3 s of the wall-clock jump"));
        }
      }, 10);
    });
    expect(performance.now() - jumpedAt).toBeLessThan(MAX_TIMER_MS + 300);
    expect(ticks).toEqual([deadline + 5]);
    scheduler.stop();
  });

  it("wakes at most every MAX_TIMER_MS while the deadline is ahead, without a tick or a call to next", async () => {
    let wall = 0;
    let nextCalls = 0;
    const ticks: number[] = [];
    const scheduler = createScheduler({
      clock: { ...realClock, now: () => wall },
      tick: async (nowMs) => void ticks.push(nowMs),
      next: async () => (nextCalls++ === 0 ? 60_000 : undefined),
      onError: () => undefined,
      maxTimerMs: 20,
    });
    await scheduler.arm();
    await new Promise((r) => setTimeout(r, 120)); // several 20 ms wakes; the wall clock has not moved
    expect(ticks).toEqual([]);
    expect(nextCalls).toBe(1);
    wall = 60_000;
    await new Promise((r) => setTimeout(r, 60));
    expect(ticks).toEqual([60_000]);
    scheduler.stop();
  });
});
