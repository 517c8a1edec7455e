/**
 * `npm run bench`: runs the benchmarks and prints one table (Markdown), then the notes.
 * Options: `--only=1,3` runs some of them; `--json=FILE` also writes every figure as JSON.
 * Every headline figure is the median of several runs, and every ratio is measured within one run.
 */
import { writeFileSync } from "node:fs";
import os from "node:os";
import { killChildren, removeTempDirs } from "./lib/procs.ts";
import { formatTable, type BenchResult } from "./lib/result.ts";
import { benchCliStartup } from "./cli-startup.ts";
import { benchIdleMemory } from "./idle-memory.ts";
import { benchParser } from "./parser.ts";
import { benchPressLatency } from "./press-latency.ts";
import { benchDiscordBurst, benchSlackBurst } from "./platform-burst.ts";
import { benchMattermostBurst } from "./mattermost-burst.ts";
import { benchTeamsBurst } from "./teams-burst.ts";
import { benchMatrixBurst } from "./matrix-burst.ts";
import { benchPgEvents } from "./pg-events.ts";
import { benchPgRoundTrip } from "./pg-round-trip.ts";
import { benchPgThroughput } from "./pg-throughput.ts";
import { benchRoundTrip } from "./round-trip.ts";
import { benchScale } from "./scale.ts";
import { benchTelegramBurst } from "./telegram-burst.ts";
import { benchTelegramTypedReplies } from "./telegram-typed-replies.ts";
import { benchThroughput } from "./throughput.ts";
import { benchWhatsAppBurst } from "./whatsapp-burst.ts";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const only = new Set((args.get("only") ?? "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18").split(",").map(Number));
const log = (line: string) => console.error(line);

const benchmarks: Array<[number, string, () => Promise<BenchResult>]> = [
  [1, "round trip", () => benchRoundTrip({ log })],
  [2, "throughput", () => benchThroughput({ log })],
  [3, "scale at rest", () => benchScale({ log })],
  [4, "Telegram burst", () => benchTelegramBurst({ log })],
  [5, "parser", () => benchParser({ log })],
  [6, "CLI start-up", () => benchCliStartup({ log })],
  // 7–9 each start (and stop) their own embedded PostgreSQL; see bench/lib/postgres.ts.
  [7, "PostgreSQL round trip", () => benchPgRoundTrip({ log })],
  [8, "PostgreSQL throughput: 1 vs 3 instances at 1,000 in flight", () => benchPgThroughput({ log })],
  [9, "cross-instance event latency", () => benchPgEvents({ log })],
  [10, "Telegram typed replies vs presses", () => benchTelegramTypedReplies({ log })],
  [11, "Discord burst", () => benchDiscordBurst({ log })],
  [12, "Slack burst", () => benchSlackBurst({ log })],
  [13, "press to result and to every copy edited", () => benchPressLatency({ log })],
  [14, "WhatsApp burst", () => benchWhatsAppBurst({ log })],
  [15, "Mattermost burst", () => benchMattermostBurst({ log })],
  [16, "Microsoft Teams burst", () => benchTeamsBurst({ log })],
  [17, "Matrix burst", () => benchMatrixBurst({ log })],
  [18, "idle memory: gateway + eight bots", () => benchIdleMemory({ log })],
];

// Interrupted (Ctrl-C, a timeout): take the child gateways down too, so none is left running.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void killChildren().finally(() => {
      removeTempDirs();
      process.exit(130);
    });
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const results: BenchResult[] = [];
  try {
    for (const [n, label, run] of benchmarks) {
      if (!only.has(n)) continue;
      const t0 = Date.now();
      log(`benchmark ${n}: ${label}…`);
      results.push(await run());
      log(`benchmark ${n}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    await killChildren();
    removeTempDirs();
  }
  const header =
    `ask-user-bridge benchmarks, ${new Date().toISOString().slice(0, 10)}: nproc ${os.availableParallelism()}, ` +
    `Node ${process.version}, ${os.cpus()[0]?.model ?? "unknown CPU"}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`;
  console.log(`\n${header}\n\n${formatTable(results)}\n`);
  for (const r of results) {
    console.log(`${r.name}`);
    for (const note of r.notes) console.log(`  - ${note}`);
  }
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const json = args.get("json");
  if (json) writeFileSync(json, JSON.stringify({ header, date: new Date().toISOString(), nproc: os.availableParallelism(), node: process.version, results }, null, 2));
}

await main();
process.exit(process.exitCode ?? 0); // a plugin's timer (e.g. the Telegram throttler's) must not keep us alive
