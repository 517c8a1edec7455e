/**
 * Keeps benchmarks 11–13 (bench/platform-burst.ts, bench/press-latency.ts) from rotting: each at a tiny size, checked
 * for a well-formed table row and nothing lost or sent twice. The figures are in docs/BENCHMARKS.md.
 */
import { afterAll, describe, expect, it } from "vitest";
import { killChildren, removeTempDirs } from "../../bench/lib/procs.ts";
import { formatTable, type BenchResult } from "../../bench/lib/result.ts";
import { benchDiscordBurst, benchSlackBurst, discordMinimumMs, slackMinimumMs } from "../../bench/platform-burst.ts";
import { benchPressLatency } from "../../bench/press-latency.ts";
import { benchWhatsAppBurst, whatsappMinimumMs } from "../../bench/whatsapp-burst.ts";

afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

function expectRow(result: BenchResult): void {
  expect(result.name).toMatch(/^\d+\. /);
  for (const field of [result.result, result.ratio, result.goal]) expect(field).toMatch(/\S/);
  expect(result.result).not.toMatch(/NaN|n\/a/);
  expect(result.notes.length).toBeGreaterThan(0);
  expect(formatTable([result])).toContain(result.name);
}

describe("benchmarks 11–13 at a tiny size", { timeout: 60_000 }, () => {
  it("the theoretical minimums follow the limits", () => {
    expect(discordMinimumMs(600, 60)).toBe(11_000); // 50/s overall binds: 12 windows
    expect(discordMinimumMs(100, 5)).toBe(15_000); // 20 per channel: 4 windows of 5 s
    expect(slackMinimumMs(600, 60)).toBe(7_000); // 10 per channel, 3 at once, then 1 a second
    expect(slackMinimumMs(60, 60)).toBe(0);
  });

  it("11. Discord burst, nothing lost or sent twice", async () => {
    const result = await benchDiscordBurst({ questions: 12, chats: 2, runs: 1 });
    expectRow(result);
    expect(result.data.results).toEqual([expect.objectContaining({ lost: 0, duplicates: 0, delivered: 12 })]);
  });

  it("12. Slack burst, nothing lost or sent twice", async () => {
    const result = await benchSlackBurst({ questions: 8, chats: 2, runs: 1 });
    expectRow(result);
    expect(result.data.results).toEqual([expect.objectContaining({ lost: 0, duplicates: 0, delivered: 8 })]);
  });

  it("14. WhatsApp burst: the minimum follows the pair rate, and nothing is lost or sent twice", async () => {
    expect(whatsappMinimumMs(600, 60)).toBe(24_000); // 10 per person, 6 at once, then one every 6 s
    expect(whatsappMinimumMs(60, 60)).toBe(0);
    const limits = { pair: { perSecond: 2, burst: 2 }, throughput: { perSecond: 80, burst: 80 } };
    const result = await benchWhatsAppBurst({ questions: 8, chats: 2, runs: 1, limits });
    expectRow(result);
    expect(result.data.results).toEqual([expect.objectContaining({ lost: 0, duplicates: 0, delivered: 8 })]);
  });

  it("13. press to result and to every copy edited", async () => {
    expectRow(await benchPressLatency({ questions: 3 }));
  });
});
