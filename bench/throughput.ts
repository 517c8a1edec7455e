/**
 * Benchmark 2: questions per second through their whole life with 1,000 in flight, on the SQLite store (WAL) and
 * on the in-memory store, in the same run, with the load generator (this process) apart from the gateway (a child).
 * The floor of benchmark 1 (raw ws relay + raw SQLite insert and compare-and-set) is run at the same concurrency.
 * Agents use the lean protocol (events.subscribe + question.request {waitMs}); see round-trip.ts.
 */
import { closedLoop, floorDriver, gatewayDriver, type Driver } from "./lib/drivers.ts";
import { cpuUs, spawnFloor, spawnGateway, tempDir, type Child } from "./lib/procs.ts";
import { rotate, type BenchResult } from "./lib/result.ts";
import { fmtInt, fmtRatio, fmtUs, median } from "./lib/stats.ts";

export interface ThroughputOptions {
  rounds?: number;
  inFlight?: number;
  /** Questions per measured run. */
  total?: number;
  log?: (line: string) => void;
}

type Config = "sqlite" | "memory" | "floor";

export async function benchThroughput(options: ThroughputOptions = {}): Promise<BenchResult> {
  const rounds = options.rounds ?? 3;
  const inFlight = options.inFlight ?? 1000;
  const total = options.total ?? 12_000;
  const log = options.log ?? (() => {});

  const [sqlite, memory, floor] = await Promise.all([
    spawnGateway({ dataDir: tempDir(), store: "sqlite" }),
    spawnGateway({ dataDir: tempDir(), store: "memory" }),
    spawnFloor(tempDir()),
  ]);
  const children: Record<Config, Child> = { sqlite, memory, floor };
  const drivers: Record<Config, Driver> = {
    sqlite: await gatewayDriver(sqlite.url, { subscribe: true, wait: true }),
    memory: await gatewayDriver(memory.url, { subscribe: true, wait: true }),
    floor: await floorDriver(floor.url, true),
  };
  const configs = Object.keys(drivers) as Config[];
  try {
    for (const config of configs) await closedLoop(drivers[config], Math.ceil(total / 4), inFlight);
    const perRound: Array<Record<Config, { qps: number; serverCpu: number; loadCpu: number }>> = [];
    for (let round = 0; round < rounds; round++) {
      const figures = {} as Record<Config, { qps: number; serverCpu: number; loadCpu: number }>;
      for (const config of rotate(configs, round)) {
        const c0 = cpuUs(children[config].pid);
        const l0 = process.cpuUsage();
        const run = await closedLoop(drivers[config], total, inFlight);
        const load = process.cpuUsage(l0);
        figures[config] = {
          qps: total / (run.elapsedUs / 1e6),
          serverCpu: (cpuUs(children[config].pid) - c0) / total,
          loadCpu: (load.user + load.system) / total,
        };
      }
      perRound.push(figures);
      log(`  round ${round + 1}/${rounds}: ${configs.map((c) => `${c} ${fmtInt(figures[c].qps)}/s`).join(", ")}`);
    }
    const med = (pick: (r: (typeof perRound)[number]) => number) => median(perRound.map(pick));
    const qps = (c: Config) => med((r) => r[c].qps);
    const durableVsMemory = med((r) => r.sqlite.qps / r.memory.qps);
    const durableVsFloor = med((r) => r.sqlite.qps / r.floor.qps);
    const met = qps("sqlite") >= 10_000 && durableVsMemory >= 0.5;
    return {
      name: `2. Throughput (${fmtInt(inFlight)} in flight)`,
      result: `SQLite ${fmtInt(qps("sqlite"))}/s; memory ${fmtInt(qps("memory"))}/s; floor ${fmtInt(qps("floor"))}/s`,
      ratio: `durable/memory ${fmtRatio(durableVsMemory)}; durable/floor ${fmtRatio(durableVsFloor)}`,
      goal: "≥ 10,000/s durable; durable ≥ 0.5× memory",
      met,
      notes: [
        ...configs.map(
          (c) =>
            `${c}: ${fmtInt(qps(c))} questions/s; server CPU ${fmtUs(med((r) => r[c].serverCpu))} per question, ` +
            `load generator CPU ${fmtUs(med((r) => r[c].loadCpu))} per question`,
        ),
      ],
      data: { rounds, inFlight, total, perRound },
    };
  } finally {
    for (const driver of Object.values(drivers)) driver.close();
    await Promise.all([sqlite.stop(), memory.stop(), floor.stop()]);
  }
}
