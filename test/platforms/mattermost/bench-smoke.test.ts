/** Keeps benchmark 15 (bench/mattermost-burst.ts) from rotting, as test/bench/bench-platform-smoke.test.ts does for 11–13. */
import { afterAll, describe, expect, it } from "vitest";
import { killChildren, removeTempDirs } from "../../../bench/lib/procs.ts";
import { formatTable } from "../../../bench/lib/result.ts";
import { benchMattermostBurst, mattermostMinimumMs } from "../../../bench/mattermost-burst.ts";

afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

describe("benchmark 15 at a tiny size", { timeout: 60_000 }, () => {
  it("the theoretical minimum follows the limit", () => {
    expect(mattermostMinimumMs(600)).toBe(50_000); // 100 at once, then 10 a second
    expect(mattermostMinimumMs(100)).toBe(0);
  });

  it("15. Mattermost burst under a small limit, nothing lost or sent twice", async () => {
    const result = await benchMattermostBurst({ questions: 12, chats: 3, runs: 1, limits: { perSecond: 10, burst: 4 } });
    expect(result.name).toMatch(/^15\. Mattermost burst/);
    expect(result.result).not.toMatch(/NaN|n\/a/);
    expect(formatTable([result])).toContain(result.name);
    expect(result.data.results).toEqual([expect.objectContaining({ lost: 0, duplicates: 0, delivered: 12 })]);
  });
});
