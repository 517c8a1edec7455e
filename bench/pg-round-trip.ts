/**
 * Benchmark 7: one question's life on PostgreSQL against the floor, sequentially and with 100 in flight.
 *
 * One PostgreSQL server (own, see lib/postgres.ts) and three configurations, each server in its own child process,
 * driven from this process in interleaved rounds (the order rotates):
 * - transport: the raw `ws` relay of floor-server.ts, the 4 one-way messages and nothing else;
 * - floor: the same relay plus a raw `INSERT` of the question row and a compare-and-set `UPDATE … WHERE status =
 *   'pending'` to answered, with `pg` (the store's driver) over ONE connection, as named (prepared) statements, on
 *   the store's own schema (its migration: indexes and NOTIFY triggers), in a database of its own;
 * - lean (the headline): the real gateway with DATABASE_URL (its own database on the same server), used as in
 *   benchmark 1: `events.subscribe {events: []}` on the agent's connection, `question.request {waitMs}`.
 * Each ratio is taken within one round, then the median over rounds is reported. Per question: the server's CPU,
 * PostgreSQL's CPU (every process of the server), and the statements PostgreSQL ran (pg_stat_statements).
 */
import { closedLoop, floorDriver, gatewayDriver, type Driver } from "./lib/drivers.ts";
import { openBenchPostgres, statementStats, type StatementCount } from "./lib/postgres.ts";
import { cpuUs, spawnFloor, spawnGateway, tempDir, type Child } from "./lib/procs.ts";
import { rotate, type BenchResult } from "./lib/result.ts";
import { fmtRatio, fmtUs, latency, median } from "./lib/stats.ts";

export interface PgRoundTripOptions {
  rounds?: number;
  sequential?: number;
  inFlight?: number;
  concurrentTotal?: number;
  /** An admin URL of a PostgreSQL server to use instead of starting one (the smoke test's). */
  postgresUrl?: string;
  log?: (line: string) => void;
}

type Config = "transport" | "floor" | "lean";
type Figures = { median: number; p99: number; qps: number; cpu: number; pgCpu: number };

export function describeStatements(counts: StatementCount[], questions: number): string {
  if (counts.length === 0) return "n/a";
  const total = counts.reduce((sum, c) => sum + c.calls, 0);
  return (
    `${(total / questions).toFixed(2)} per question (` +
    counts
      .filter((c) => c.calls / questions >= 0.01)
      .map((c) => `${(c.calls / questions).toFixed(2)} × ${c.kind}, ${fmtUs(c.execUs / c.calls)} each in the server`)
      .join("; ") +
    ")"
  );
}

export async function benchPgRoundTrip(options: PgRoundTripOptions = {}): Promise<BenchResult> {
  const rounds = options.rounds ?? 5;
  const sequential = options.sequential ?? 400;
  const inFlight = options.inFlight ?? 100;
  const concurrentTotal = options.concurrentTotal ?? 3000;
  const log = options.log ?? (() => {});

  const postgres = await openBenchPostgres(options.postgresUrl);
  const databases = await Promise.all([postgres.createDatabase(), postgres.createDatabase()]);
  const [floorDb, gatewayDb] = databases;
  let floor: Child | undefined;
  let lean: Child | undefined;
  const drivers: Partial<Record<Config, Driver>> = {};
  try {
    [floor, lean] = await Promise.all([
      spawnFloor(tempDir(), floorDb!.url),
      spawnGateway({ dataDir: tempDir(), store: "postgres", databaseUrl: gatewayDb!.url }),
    ]);
    const children: Record<Config, Child> = { transport: floor, floor, lean };
    drivers.transport = await floorDriver(floor.url, false);
    drivers.floor = await floorDriver(floor.url, true);
    drivers.lean = await gatewayDriver(lean.url, { subscribe: true, wait: true });
    const configs: Config[] = ["transport", "floor", "lean"];
    const stats = postgres.statements ? await Promise.all([statementStats(floorDb!.url), statementStats(gatewayDb!.url)]) : [];
    try {
      for (const config of configs) {
        await closedLoop(drivers[config]!, Math.ceil(sequential / 2), 1);
        await closedLoop(drivers[config]!, Math.ceil(concurrentTotal / 3), inFlight);
      }
      for (const s of stats) await s.reset();
      const pgCpu = () => postgres.cpuUs() ?? Number.NaN;
      const perRound: Array<Record<"seq" | "par", Record<Config, Figures>>> = [];
      for (let round = 0; round < rounds; round++) {
        const figures = { seq: {}, par: {} } as Record<"seq" | "par", Record<Config, Figures>>;
        for (const config of rotate(configs, round)) {
          const pid = children[config].pid;
          const [c0, p0] = [cpuUs(pid), pgCpu()];
          const seq = await closedLoop(drivers[config]!, sequential, 1);
          const [c1, p1] = [cpuUs(pid), pgCpu()];
          const par = await closedLoop(drivers[config]!, concurrentTotal, inFlight);
          const [c2, p2] = [cpuUs(pid), pgCpu()];
          figures.seq[config] = { ...latency(seq.latenciesUs), qps: sequential / (seq.elapsedUs / 1e6), cpu: (c1 - c0) / sequential, pgCpu: (p1 - p0) / sequential };
          figures.par[config] = {
            ...latency(par.latenciesUs),
            qps: concurrentTotal / (par.elapsedUs / 1e6),
            cpu: (c2 - c1) / concurrentTotal,
            pgCpu: (p2 - p1) / concurrentTotal,
          };
        }
        perRound.push(figures);
        log(
          `  round ${round + 1}/${rounds}: sequential ${configs.map((c) => `${c} ${fmtUs(figures.seq[c].median)}`).join(", ")}; ` +
            `${inFlight} in flight ${configs.map((c) => `${c} ${fmtUs(figures.par[c].median)}`).join(", ")}`,
        );
      }
      const measured = rounds * (sequential + concurrentTotal);
      const [floorStatements, gatewayStatements] = await Promise.all(stats.map((s) => s.read()));

      const med = (pick: (r: (typeof perRound)[number]) => number) => median(perRound.map(pick));
      const fig = (mode: "seq" | "par", c: Config, key: keyof Figures) => med((r) => r[mode][c][key]);
      const ratio = (mode: "seq" | "par", a: Config, b: Config, key: keyof Figures = "median") => med((r) => r[mode][a][key] / r[mode][b][key]);
      const seqFloor = ratio("seq", "lean", "floor");
      const parFloor = ratio("par", "lean", "floor");
      const notes: string[] = [];
      for (const mode of ["seq", "par"] as const) {
        const label = mode === "seq" ? "sequential" : `${inFlight} in flight`;
        for (const c of configs) {
          notes.push(
            `${label}, ${c}: median ${fmtUs(fig(mode, c, "median"))}, p99 ${fmtUs(fig(mode, c, "p99"))}, ` +
              `${Math.round(fig(mode, c, "qps")).toLocaleString("en-US")} questions/s, server CPU ${fmtUs(fig(mode, c, "cpu"))} per question` +
              (c === "transport" ? "" : `, PostgreSQL CPU ${fmtUs(fig(mode, c, "pgCpu"))} per question`),
          );
        }
      }
      notes.push(
        `ratios (median of per-round ratios): sequential lean/floor ${fmtRatio(seqFloor)} (p99 ${fmtRatio(ratio("seq", "lean", "floor", "p99"))}), ` +
          `lean/transport ${fmtRatio(ratio("seq", "lean", "transport"))}, floor/transport ${fmtRatio(ratio("seq", "floor", "transport"))}; ` +
          `${inFlight} in flight lean/floor ${fmtRatio(parFloor)} (p99 ${fmtRatio(ratio("par", "lean", "floor", "p99"))}), ` +
          `lean/transport ${fmtRatio(ratio("par", "lean", "transport"))}`,
      );
      if (floorStatements && gatewayStatements) {
        notes.push(`statements, floor: ${describeStatements(floorStatements, measured)}`);
        notes.push(`statements, gateway: ${describeStatements(gatewayStatements, measured)}`);
      }
      return {
        name: "7. Round trip (PostgreSQL)",
        result:
          `seq ${fmtUs(fig("seq", "lean", "median"))} (p99 ${fmtUs(fig("seq", "lean", "p99"))}); ` +
          `${inFlight} in flight ${fmtUs(fig("par", "lean", "median"))} (p99 ${fmtUs(fig("par", "lean", "p99"))})`,
        ratio:
          `seq ${fmtRatio(seqFloor)} floor, ${fmtRatio(ratio("seq", "lean", "transport"))} transport; ` +
          `${inFlight} in flight ${fmtRatio(parFloor)} floor, ${fmtRatio(ratio("par", "lean", "transport"))} transport`,
        goal: "≤ 1.5× floor",
        met: seqFloor <= 1.5 && parFloor <= 1.5,
        notes,
        data: { rounds, sequential, inFlight, concurrentTotal, perRound, floorStatements, gatewayStatements },
      };
    } finally {
      await Promise.all(stats.map((s) => s.close()));
    }
  } finally {
    for (const driver of Object.values(drivers)) driver.close();
    await Promise.all([floor?.stop(), lean?.stop()]);
    await Promise.all(databases.map((d) => d.drop().catch(() => undefined)));
    await postgres.stop();
  }
}
