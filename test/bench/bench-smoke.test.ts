/**
 * Keeps the benchmark code (bench/, `npm run bench`) from rotting: runs each benchmark at a tiny size
 * and checks it returns a well-formed table row. The figures themselves are not checked here; see docs/BENCHMARKS.md.
 */
import { afterAll, describe, expect, it } from "vitest";
import { killChildren, removeTempDirs } from "../../bench/lib/procs.ts";
import { formatTable, type BenchResult } from "../../bench/lib/result.ts";
import { benchCliStartup } from "../../bench/cli-startup.ts";
import { benchParser } from "../../bench/parser.ts";
import { benchPgEvents } from "../../bench/pg-events.ts";
import { benchPgRoundTrip } from "../../bench/pg-round-trip.ts";
import { benchPgThroughput } from "../../bench/pg-throughput.ts";
import { benchRoundTrip } from "../../bench/round-trip.ts";
import { benchScale } from "../../bench/scale.ts";
import { benchTelegramBurst } from "../../bench/telegram-burst.ts";
import { benchThroughput } from "../../bench/throughput.ts";
import { testPostgresUrl } from "../helpers/postgres.ts";

afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

function expectRow(result: BenchResult): void {
  expect(result.name).toMatch(/^\d\. /);
  for (const field of [result.result, result.ratio, result.goal]) expect(field).toMatch(/\S/);
  expect(typeof result.met).toBe("boolean");
  expect(result.notes.length).toBeGreaterThan(0);
  expect(result.result).not.toMatch(/NaN|n\/a/);
  expect(formatTable([result])).toContain(result.name);
}

describe("benchmarks at a tiny size", { timeout: 30_000 }, () => {
  it.concurrent("1. round trip", async () => {
    expectRow(await benchRoundTrip({ rounds: 1, sequential: 10, inFlight: 5, concurrentTotal: 20 }));
  });

  it.concurrent("2. throughput", async () => {
    expectRow(await benchThroughput({ rounds: 1, inFlight: 20, total: 100 }));
  });

  it.concurrent("3. scale at rest", async () => {
    expectRow(await benchScale({ sizes: [300], reference: 100, perChat: 10, restarts: 1, listQueries: 10 }));
  });

  it.concurrent("4. Telegram burst, nothing lost", async () => {
    const result = await benchTelegramBurst({
      questions: 6,
      chats: 3,
      runs: 1,
      limits: { perSecond: 100, perChatPerSecond: 20 },
      throttle: { global: { reservoir: 100, reservoirRefreshAmount: 100, reservoirRefreshInterval: 1000 }, out: { maxConcurrent: 1, minTime: 50 } },
    });
    expectRow(result);
    expect(result.data.results).toEqual([expect.objectContaining({ lost: 0, duplicates: 0, delivered: 6 })]);
  });

  it.concurrent("5. parser", async () => {
    expectRow(await benchParser({ rounds: 1, roundMs: 50 }));
  });

  it.concurrent("6. CLI start-up", async () => {
    expectRow(await benchCliStartup({ rounds: 2 }));
  });

  // 7–9 make their databases on the test server the global setup started (createTestDatabase), and drop them.
  it.concurrent("7. round trip on PostgreSQL", { timeout: 60_000 }, async () => {
    expectRow(await benchPgRoundTrip({ rounds: 1, sequential: 10, inFlight: 5, concurrentTotal: 20, postgresUrl: testPostgresUrl() }));
  });

  it.concurrent("8. throughput on PostgreSQL, 1 and 3 instances", { timeout: 60_000 }, async () => {
    const result = await benchPgThroughput({ rounds: 1, inFlight: 20, total: 60, postgresUrl: testPostgresUrl() });
    expectRow(result);
    expect(result.notes.join("\n")).toContain("3 instances, answered elsewhere");
  });

  it.concurrent("9. cross-instance event latency", { timeout: 60_000 }, async () => {
    expectRow(await benchPgEvents({ rounds: 1, questions: 5, postgresUrl: testPostgresUrl() }));
  });
});
