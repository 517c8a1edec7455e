/** The bots' keyed pacer (bots/kit/pacer.ts) and its paces (bots/kit/paces.ts), apart from any platform. */
import { describe, expect, it } from "vitest";
import { createKeyedPacer } from "../../../bots/kit/pacer.ts";
import { cellRate, slidingWindows, tokenBucket } from "../../../bots/kit/paces.ts";

class RateLimited extends Error {
  constructor(readonly retryAfterMs: number) {
    super("429");
  }
}

/** A pacer on a fake clock whose sleeps advance it, backing off on `RateLimited`. */
function backingOff(inFlight = 4) {
  const clock = { ms: 0, waits: [] as number[] };
  const pacer = createKeyedPacer({
    inFlight,
    now: () => clock.ms,
    sleep: async (ms) => void (clock.waits.push(ms), (clock.ms += ms)),
    backOff: { retryAfterMs: (e) => (e instanceof RateLimited ? e.retryAfterMs : undefined), waitMaxMs: 30_000, refusedForMaxMs: 300_000, calmAfter: 3 },
  });
  return { clock, pacer };
}

describe("the keyed pacer", () => {
  it("one key's calls go one at a time by default; another key is not held up", async () => {
    const pacer = createKeyedPacer({ pace: () => tokenBucket({ perSecond: 1_000, burst: 1_000 }) });
    let inFlight = 0;
    let most = 0;
    const call = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    };
    await Promise.all([pacer.run("a", call), pacer.run("a", call), pacer.run("a", call)]);
    expect(most).toBe(1);
    most = 0;
    await Promise.all([pacer.run("a", call), pacer.run("b", call)]);
    expect(most).toBe(2);
  });

  it("a cell rate lets nine tenths of the burst through at once, then one slot per interval, in order", async () => {
    // Moved from the WhatsApp pacing test (the number's throughput gate).
    const pacer = createKeyedPacer({ overall: cellRate({ perSecond: 100, burst: 10 }) });
    const t0 = performance.now();
    const at = await Promise.all(Array.from({ length: 12 }, (_, i) => pacer.run(`k${i}`, async () => performance.now() - t0)));
    expect(at.slice(0, 9).every((ms) => ms < 20)).toBe(true);
    expect(at[11]!).toBeGreaterThanOrEqual(25);
  });

  it("a failed call still lets the next one in line go", async () => {
    const pacer = createKeyedPacer({ pace: () => tokenBucket({ perSecond: 1_000, burst: 1 }) });
    const failed = pacer.run("a", async () => Promise.reject(new Error("boom")));
    const next = pacer.run("a", async () => "ok");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ok");
  });

  it("a refusal is waited out (its retry-after) and tried again; another error goes back at once", async () => {
    const { clock, pacer } = backingOff();
    let calls = 0;
    expect(await pacer.run("a", async () => (++calls < 3 ? Promise.reject(new RateLimited(700)) : "ok"))).toBe("ok");
    expect(clock.waits).toEqual([700, 700]);
    await expect(pacer.run("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("after a refusal a key's calls go in single file, side by side again after `calmAfter` in a row", async () => {
    const { pacer } = backingOff();
    let first = true;
    await pacer.run("a", async () => (first ? ((first = false), Promise.reject(new RateLimited(5))) : "ok"));
    let inFlight = 0;
    let most = 0;
    const call = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    };
    await Promise.all(Array.from({ length: 3 }, () => pacer.run("a", call)));
    expect(most).toBe(1);
    most = 0;
    await Promise.all(Array.from({ length: 3 }, () => pacer.run("a", call)));
    expect(most).toBe(3);
  });
});

describe("the paces", () => {
  it("a token bucket: `burst` at once, then one per 1/perSecond; in-flight time earns nothing when asked", () => {
    const bucket = tokenBucket({ perSecond: 2, burst: 2 }, { inFlightEarns: false });
    expect(bucket.waitMs(0)).toBe(0);
    bucket.take(0);
    bucket.take(0);
    expect(bucket.waitMs(0)).toBe(500);
    expect(bucket.idle(0)).toBe(false);
    bucket.settled!(400); // the 400 ms in flight earned no tokens
    expect(bucket.waitMs(400)).toBe(500);
    expect(bucket.idle(1_400)).toBe(true);
  });

  it("sliding windows: the wait is the longest any window asks", () => {
    const windows = slidingWindows([
      { windowMs: 1_000, max: 2 },
      { windowMs: 10_000, max: 3 },
    ]);
    windows.take(0);
    windows.take(100);
    expect(windows.waitMs(100)).toBe(900);
    windows.take(1_000);
    expect(windows.waitMs(1_100)).toBe(8_900);
    expect(windows.idle(10_999)).toBe(false);
    expect(windows.idle(11_001)).toBe(true);
  });
});
