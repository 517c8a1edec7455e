/**
 * Keeps benchmark 17 (bench/matrix-burst.ts) from rotting: a tiny burst under a tight send limit, checked for a
 * well-formed row, nothing lost or sent twice, and the limit enforced (some sends refused with M_LIMIT_EXCEEDED).
 */
import { afterAll, describe, expect, it } from "vitest";
import { killChildren, removeTempDirs } from "../../../bench/lib/procs.ts";
import { formatTable } from "../../../bench/lib/result.ts";
import { benchMatrixBurst } from "../../../bench/matrix-burst.ts";
import { matrixMinimumMs } from "./matrix-limits.ts";

afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

describe("benchmark 17 at a tiny size", { timeout: 60_000 }, () => {
  it("the minimum follows the limit", () => {
    expect(matrixMinimumMs(600)).toBe(29_000); // 20 at once, then 20 a second
    expect(matrixMinimumMs(10)).toBe(0);
  });

  it("17. Matrix burst: nothing lost or sent twice, at the rate the homeserver allows", async () => {
    const result = await benchMatrixBurst({ questions: 30, chats: 3, runs: 1, limits: { perSecond: 20, burst: 10 } });
    expect(result.name).toMatch(/^17\. Matrix burst/u);
    expect(result.result).not.toMatch(/NaN|n\/a/u);
    expect(formatTable([result])).toContain(result.name);
    expect(result.data.results).toEqual([expect.objectContaining({ lost: 0, duplicates: 0, delivered: 30 })]);
    expect((result.data.results as Array<{ refused: number; ms: number }>)[0]!.refused).toBeGreaterThan(0);
    expect((result.data.results as Array<{ ms: number }>)[0]!.ms).toBeGreaterThanOrEqual(matrixMinimumMs(30, { perSecond: 20, burst: 10 }) - 100);
  });
});
