/**
 * Benchmark 1: one question's life over loopback WebSocket against the floor, sequentially and with 100 in flight.
 *
 * Four servers, each in its own child process, driven from this process in interleaved rounds:
 * - transport: the raw `ws` relay of floor-server.ts, the 4 one-way messages and nothing else;
 * - floor: the same relay plus a raw better-sqlite3 insert and compare-and-set update (the store's schema and pragmas);
 * - gateway, lean: the real gateway (SQLite) used as an agent best uses it: `events.subscribe {events: []}` on the
 *   agent's connection and `question.request {waitMs}` (ask and wait in one request);
 * - gateway, classic: a second gateway used as the SDK does today: question.request then question.waitAnswer,
 *   every connection receiving every event.
 * Each ratio is taken within one round (same minute, same noise), then the median over rounds is reported.
 */
import { closedLoop, floorDriver, gatewayDriver, type Driver } from "./lib/drivers.ts";
import { cpuUs, spawnFloor, spawnGateway, tempDir, contextSwitches, type Child } from "./lib/procs.ts";
import { rotate, type BenchResult } from "./lib/result.ts";
import { fmtRatio, fmtUs, latency, median } from "./lib/stats.ts";

export interface RoundTripOptions {
  rounds?: number;
  sequential?: number;
  inFlight?: number;
  concurrentTotal?: number;
  log?: (line: string) => void;
}

type Config = "transport" | "floor" | "lean" | "classic";

interface RoundFigures {
  seq: Record<Config, { median: number; p99: number; cpu: number; wakeups: number }>;
  par: Record<Config, { median: number; p99: number; qps: number; cpu: number; wakeups: number }>;
}

export async function benchRoundTrip(options: RoundTripOptions = {}): Promise<BenchResult> {
  const rounds = options.rounds ?? 5;
  const sequential = options.sequential ?? 400;
  const inFlight = options.inFlight ?? 100;
  const concurrentTotal = options.concurrentTotal ?? 3000;
  const log = options.log ?? (() => {});

  const [floor, lean, classic] = await Promise.all([
    spawnFloor(tempDir()),
    spawnGateway({ dataDir: tempDir(), store: "sqlite" }),
    spawnGateway({ dataDir: tempDir(), store: "sqlite" }),
  ]);
  const children: Record<Config, Child> = { transport: floor, floor, lean, classic };
  const drivers: Record<Config, Driver> = {
    transport: await floorDriver(floor.url, false),
    floor: await floorDriver(floor.url, true),
    lean: await gatewayDriver(lean.url, { subscribe: true, wait: true }),
    classic: await gatewayDriver(classic.url),
  };
  const configs = Object.keys(drivers) as Config[];
  try {
    // Warm-up: JIT, SQLite page cache, TCP buffers.
    for (const config of configs) {
      await closedLoop(drivers[config], Math.ceil(sequential / 2), 1);
      await closedLoop(drivers[config], Math.ceil(concurrentTotal / 3), inFlight);
    }
    const perRound: RoundFigures[] = [];
    for (let round = 0; round < rounds; round++) {
      const figures = { seq: {}, par: {} } as RoundFigures;
      for (const config of rotate(configs, round)) {
        const pid = children[config].pid;
        const [c0, w0] = [cpuUs(pid), contextSwitches(pid).voluntary];
        const seq = await closedLoop(drivers[config], sequential, 1);
        const [c1, w1] = [cpuUs(pid), contextSwitches(pid).voluntary];
        const par = await closedLoop(drivers[config], concurrentTotal, inFlight);
        const [c2, w2] = [cpuUs(pid), contextSwitches(pid).voluntary];
        figures.seq[config] = { ...latency(seq.latenciesUs), cpu: (c1 - c0) / sequential, wakeups: (w1 - w0) / sequential };
        figures.par[config] = {
          ...latency(par.latenciesUs),
          qps: concurrentTotal / (par.elapsedUs / 1e6),
          cpu: (c2 - c1) / concurrentTotal,
          wakeups: (w2 - w1) / concurrentTotal,
        };
      }
      perRound.push(figures);
      log(
        `  round ${round + 1}/${rounds}: sequential ${configs.map((c) => `${c} ${fmtUs(figures.seq[c].median)}`).join(", ")}; ` +
          `${inFlight} in flight ${configs.map((c) => `${c} ${fmtUs(figures.par[c].median)}`).join(", ")}`,
      );
    }

    const med = (pick: (r: RoundFigures) => number) => median(perRound.map(pick));
    const fig = {} as Record<"seq" | "par", Record<Config, Record<string, number>>>;
    for (const mode of ["seq", "par"] as const) {
      fig[mode] = {} as Record<Config, Record<string, number>>;
      for (const config of configs) {
        const keys = Object.keys(perRound[0]![mode][config]) as Array<keyof RoundFigures["par"][Config]>;
        fig[mode][config] = Object.fromEntries(keys.map((k) => [k, med((r) => (r[mode][config] as Record<string, number>)[k] ?? NaN)]));
      }
    }
    const ratio = (mode: "seq" | "par", a: Config, b: Config, key = "median") =>
      med((r) => (r[mode][a] as Record<string, number>)[key]! / (r[mode][b] as Record<string, number>)[key]!);
    const seqFloor = ratio("seq", "lean", "floor");
    const parFloor = ratio("par", "lean", "floor");
    const met = seqFloor <= 1.5 && parFloor <= 1.5;

    const lines: string[] = [];
    for (const mode of ["seq", "par"] as const) {
      const label = mode === "seq" ? "sequential" : `${inFlight} in flight`;
      for (const config of configs) {
        const f = fig[mode][config];
        lines.push(
          `${label}, ${config}: median ${fmtUs(f.median!)}, p99 ${fmtUs(f.p99!)}` +
            (mode === "par" ? `, ${Math.round(f.qps!).toLocaleString("en-US")} questions/s` : "") +
            `, server CPU ${fmtUs(f.cpu!)} and ${f.wakeups!.toFixed(2)} event-loop wake-ups per question`,
        );
      }
    }
    lines.push(
      `ratios (median of per-round ratios): sequential lean/floor ${fmtRatio(seqFloor)} (p99 ${fmtRatio(ratio("seq", "lean", "floor", "p99"))}), ` +
        `lean/transport ${fmtRatio(ratio("seq", "lean", "transport"))}, classic/floor ${fmtRatio(ratio("seq", "classic", "floor"))}, ` +
        `floor/transport ${fmtRatio(ratio("seq", "floor", "transport"))}; ${inFlight} in flight lean/floor ${fmtRatio(parFloor)} ` +
        `(p99 ${fmtRatio(ratio("par", "lean", "floor", "p99"))}), lean/transport ${fmtRatio(ratio("par", "lean", "transport"))}, ` +
        `classic/floor ${fmtRatio(ratio("par", "classic", "floor"))}`,
    );
    return {
      name: "1. Round trip (SQLite)",
      result:
        `seq ${fmtUs(fig.seq.lean.median!)} (p99 ${fmtUs(fig.seq.lean.p99!)}); ` +
        `${inFlight} in flight ${fmtUs(fig.par.lean.median!)} (p99 ${fmtUs(fig.par.lean.p99!)})`,
      ratio:
        `seq ${fmtRatio(seqFloor)} floor, ${fmtRatio(ratio("seq", "lean", "transport"))} transport; ` +
        `${inFlight} in flight ${fmtRatio(parFloor)} floor, ${fmtRatio(ratio("par", "lean", "transport"))} transport`,
      goal: "≤ 1.5× floor",
      met,
      notes: lines,
      data: { rounds, sequential, inFlight, concurrentTotal, fig, perRound },
    };
  } finally {
    for (const driver of Object.values(drivers)) driver.close();
    await Promise.all([floor.stop(), lean.stop(), classic.stop()]);
  }
}
