/**
 * Keeps benchmark 18 (bench/idle-memory.ts) from rotting: one run of each layout, the gateway and all eight bots
 * against their fakes, checked for a well-formed table row with every bot connected in both. The figures are in
 * docs/BENCHMARKS.md.
 */
import { afterAll, describe, expect, it } from "vitest";
import { benchIdleMemory, IDLE_PLATFORMS, type IdleRun } from "../../bench/idle-memory.ts";
import { killChildren, removeTempDirs } from "../../bench/lib/procs.ts";
import { formatTable } from "../../bench/lib/result.ts";

afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

describe("benchmark 18 at a tiny size", { timeout: 150_000 }, () => {
  it("18. idle memory: both layouts with all eight bots connected, and totals that add up", async () => {
    const result = await benchIdleMemory({ runs: 1, idleMs: 500, connectTimeoutMs: 90_000 }); // about 30 s on an idle machine
    expect(result.name).toBe("18. Idle memory: gateway + eight bots");
    expect(result.result).toMatch(/^A \(1 bot process\) [\d.]+ MiB; B \(8 bot processes\) [\d.]+ MiB$/u);
    expect(result.ratio).toMatch(/^A\/B [\d.]+×$/u);
    expect(result.goal).toBe("A ≤ 250 MiB");
    expect(result.notes.join("\n")).not.toMatch(/NaN|undefined/u);
    expect(formatTable([result])).toContain(result.name);

    const runs = result.data.runs as IdleRun[];
    expect(runs.map((r) => r.layout)).toEqual(["A", "B"]);
    for (const run of runs) {
      expect(Object.keys(run.connected).sort()).toEqual([...IDLE_PLATFORMS].sort());
      expect(Object.values(run.connected)).not.toContain(false);
      for (const bytes of Object.values(run.rss)) expect(bytes).toBeGreaterThan(0);
      expect(run.totalBytes).toBe(Object.values(run.rss).reduce((a, b) => a + b, 0));
    }
    const [a, b] = runs as [IdleRun, IdleRun];
    expect(Object.keys(a.rss)).toEqual(["gateway", "bots"]);
    expect(Object.keys(b.rss)).toEqual(["gateway", ...IDLE_PLATFORMS.map((p) => `bot ${p}`)]);
    expect(result.data.totalA).toBeGreaterThan(0);
    expect(result.data.totalB).toBeGreaterThan(0);
  });
});
