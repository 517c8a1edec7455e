import { describe, expect, it } from "vitest";
import { createTeamsPacer, TEAMS_PACE } from "../../../bots/teams/pacer.ts";

describe("teams: the pacer keeps to Teams' limits", () => {
  it("one conversation: 7 at once, then within 8 per 2 s; calls run in order", async () => {
    const pacer = createTeamsPacer({ windows: TEAMS_PACE.windows.slice(0, 2), perSecond: 1_000 });
    const t0 = performance.now();
    const at: number[] = [];
    await Promise.all(Array.from({ length: 10 }, (_, i) => pacer.run("c1", async () => void at.push(performance.now() - t0 + i * 0))));
    expect(at).toHaveLength(10);
    expect(at.slice(0, 7).every((t) => t < 200)).toBe(true);
    expect(at[7]).toBeGreaterThanOrEqual(950);
    expect(at[8]).toBeGreaterThanOrEqual(1_950);
    for (let i = 1; i < at.length; i++) expect(at[i]).toBeGreaterThanOrEqual(at[i - 1]!);
  }, 10_000);

  it("the app's rate: other conversations are not held up by one, and all share perSecond", async () => {
    const pacer = createTeamsPacer({ windows: [{ windowMs: 1_000, max: 1 }], perSecond: 20 });
    const t0 = performance.now();
    const done: Array<[string, number]> = [];
    await Promise.all([
      ...Array.from({ length: 2 }, () => pacer.run("slow", async () => void done.push(["slow", performance.now() - t0]))),
      ...Array.from({ length: 30 }, (_, i) => pacer.run(`c${i}`, async () => void done.push([`c${i}`, performance.now() - t0]))),
    ]);
    const last = Math.max(...done.filter(([c]) => c !== "slow").map(([, t]) => t));
    // 31 calls at once from a bucket of 20 refilled at 20/s: the last about 0.55 s in, not after "slow"'s second (1 s).
    expect(last).toBeGreaterThan(400);
    expect(last).toBeLessThan(950);
    expect(done.filter(([c]) => c === "slow")[1]![1]).toBeGreaterThanOrEqual(990);
  }, 10_000);
});
