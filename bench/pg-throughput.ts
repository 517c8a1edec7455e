/**
 * Benchmark 8: questions per second through their whole life with 1,000 in flight on PostgreSQL, one gateway
 * against three gateways sharing one database, in the same run (rotating order), each gateway a child process.
 *
 * The load is three lanes (lib/drivers.ts laneDriver): in each, an agent asks with the lean protocol
 * (question.request {waitMs}) and a bot, subscribed to question.requested and question.resolved, answers that lane's
 * questions. Every bot receives every question's events, as a bot does, so the frames sent are the same in every
 * configuration:
 * - one: one gateway, the three agents and three bots all on it (database A);
 * - three, answered elsewhere: three gateways on database B; lane k's agent on gateway k and its bot on gateway
 *   k+1, so every question crosses instances twice (question.requested to the bot's gateway, question.resolved
 *   back to the asker's, both through LISTEN/NOTIFY, the notification carrying the record);
 * - three, answered where asked: the same three gateways, lane k's agent and bot both on gateway k (the other two
 *   still follow every change, as instances do).
 * Where the time goes: CPU per question of each gateway, of PostgreSQL (every process of the server) and of the load
 * generator, against the machine's cores; and the statements PostgreSQL ran per question (pg_stat_statements).
 */
import os from "node:os";
import { closedLoop, laneDriver } from "./lib/drivers.ts";
import { activitySampler, openBenchPostgres, statementStats, type StatementCount } from "./lib/postgres.ts";
import { cpuUs, spawnGateway, tempDir, contextSwitches, type Child } from "./lib/procs.ts";
import { rotate, type BenchResult } from "./lib/result.ts";
import { fmtInt, fmtRatio, fmtUs, median } from "./lib/stats.ts";
import { describeStatements } from "./pg-round-trip.ts";

export interface PgThroughputOptions {
  rounds?: number;
  inFlight?: number;
  /** Questions per measured run. */
  total?: number;
  /** An admin URL of a PostgreSQL server to use instead of starting one (the smoke test's). */
  postgresUrl?: string;
  log?: (line: string) => void;
}

type Config = "one" | "crossed" | "local";
const LABEL: Record<Config, string> = { one: "1 instance", crossed: "3 instances, answered elsewhere", local: "3 instances, answered where asked" };

interface RunFigures {
  qps: number;
  /** CPU per question, µs: the gateways (sum), each gateway, PostgreSQL, the load generator. */
  gatewayCpu: number;
  perGateway: number[];
  /** Per question, the gateways' main threads (summed): wake-ups (voluntary switches) and preemptions (involuntary). */
  gatewaySwitches: { voluntary: number; involuntary: number };
  pgCpu: number;
  loadCpu: number;
  /** Share of the machine's cores busy with the three (sum of CPU / (cores × wall time)). */
  busy: number;
  statements: StatementCount[];
  /** What the database's client connections were doing (share of samples; see activitySampler). */
  activity: Record<string, number>;
  /** Calls refused with STORE_UNAVAILABLE and sent again (see laneDriver), per question. */
  retried: Record<string, number>;
}

export async function benchPgThroughput(options: PgThroughputOptions = {}): Promise<BenchResult> {
  const rounds = options.rounds ?? 5;
  const inFlight = options.inFlight ?? 1000;
  const total = options.total ?? 6000;
  const log = options.log ?? (() => {});
  const cores = os.availableParallelism();

  const postgres = await openBenchPostgres(options.postgresUrl);
  const databases = await Promise.all([postgres.createDatabase(), postgres.createDatabase()]);
  const [singleDb, sharedDb] = databases;
  const gateways: Child[] = [];
  try {
    // One at a time, so the three of database B do not race each other's migration (they would wait on its lock).
    gateways.push(await spawnGateway({ dataDir: tempDir(), store: "postgres", databaseUrl: singleDb!.url }));
    for (let i = 0; i < 3; i++) gateways.push(await spawnGateway({ dataDir: tempDir(), store: "postgres", databaseUrl: sharedDb!.url }));
    const [single, ...trio] = gateways as [Child, Child, Child, Child];
    const setups: Record<Config, { children: Child[]; database: string; lanes: Array<{ agentUrl: string; botUrl: string }> }> = {
      one: { children: [single], database: singleDb!.url, lanes: [0, 1, 2].map(() => ({ agentUrl: single.url, botUrl: single.url })) },
      crossed: { children: trio, database: sharedDb!.url, lanes: [0, 1, 2].map((k) => ({ agentUrl: trio[k]!.url, botUrl: trio[(k + 1) % 3]!.url })) },
      local: { children: trio, database: sharedDb!.url, lanes: [0, 1, 2].map((k) => ({ agentUrl: trio[k]!.url, botUrl: trio[k]!.url })) },
    };
    const configs = Object.keys(setups) as Config[];
    const stats = postgres.statements ? { [singleDb!.url]: await statementStats(singleDb!.url), [sharedDb!.url]: await statementStats(sharedDb!.url) } : undefined;
    const samplers = { [singleDb!.url]: await activitySampler(singleDb!.url), [sharedDb!.url]: await activitySampler(sharedDb!.url) };

    /** One run: connects the lanes, drives `questions` through them, disconnects (an idle bot would still get events). */
    async function run(config: Config, questions: number): Promise<RunFigures> {
      const setup = setups[config];
      const driver = await laneDriver(setup.lanes);
      const stat = stats?.[setup.database];
      const sampler = samplers[setup.database]!;
      try {
        await stat?.reset();
        sampler.start();
        const c0 = setup.children.map((c) => cpuUs(c.pid));
        const s0 = setup.children.map((c) => contextSwitches(c.pid));
        const p0 = postgres.cpuUs() ?? Number.NaN;
        const l0 = process.cpuUsage();
        const { elapsedUs } = await closedLoop(driver, questions, inFlight);
        const load = process.cpuUsage(l0);
        const activity = await sampler.stop();
        const perGateway = setup.children.map((c, i) => (cpuUs(c.pid) - c0[i]!) / questions);
        const s1 = setup.children.map((c) => contextSwitches(c.pid));
        const switched = (kind: "voluntary" | "involuntary") => s1.reduce((sum, s, i) => sum + s[kind] - s0[i]![kind], 0) / questions;
        const gatewaySwitches = { voluntary: switched("voluntary"), involuntary: switched("involuntary") };
        const pgCpu = ((postgres.cpuUs() ?? Number.NaN) - p0) / questions;
        const loadCpu = (load.user + load.system) / questions;
        const gatewayCpu = perGateway.reduce((a, b) => a + b, 0);
        return {
          qps: questions / (elapsedUs / 1e6),
          gatewayCpu,
          perGateway,
          gatewaySwitches,
          pgCpu,
          loadCpu,
          busy: ((gatewayCpu + pgCpu + loadCpu) * questions) / (cores * elapsedUs),
          statements: (await stat?.read()) ?? [],
          activity,
          retried: driver.failures(),
        };
      } finally {
        driver.close();
      }
    }

    try {
      for (const config of configs) await run(config, Math.ceil(total / 4));
      const perRound: Array<Record<Config, RunFigures>> = [];
      for (let round = 0; round < rounds; round++) {
        const figures = {} as Record<Config, RunFigures>;
        for (const config of rotate(configs, round)) figures[config] = await run(config, total);
        perRound.push(figures);
        log(`  round ${round + 1}/${rounds}: ${configs.map((c) => `${c} ${fmtInt(figures[c].qps)}/s`).join(", ")}`);
      }
      const med = (pick: (r: Record<Config, RunFigures>) => number) => median(perRound.map(pick));
      const qps = (c: Config) => med((r) => r[c].qps);
      const threeVsOne = med((r) => r.crossed.qps / r.one.qps);
      const localVsOne = med((r) => r.local.qps / r.one.qps);
      // What scaling out costs, per question, within each round: the gateways' CPU (the three summed), and everything
      // (the gateways and PostgreSQL), 3 instances over 1.
      const cpuRatio = (c: Config) => med((r) => r[c].gatewayCpu / r.one.gatewayCpu);
      const allCpuRatio = (c: Config) => med((r) => (r[c].gatewayCpu + r[c].pgCpu) / (r.one.gatewayCpu + r.one.pgCpu));
      const met = Math.min(threeVsOne, localVsOne) >= 0.85 && Math.max(cpuRatio("crossed"), cpuRatio("local")) <= 1.2;
      /** Statements per question over every round of a configuration. */
      const statementsOf = (c: Config): string => {
        const merged = new Map<string, StatementCount>();
        for (const r of perRound) {
          for (const s of r[c].statements) {
            const m = merged.get(s.kind) ?? { kind: s.kind, calls: 0, execUs: 0 };
            m.calls += s.calls;
            m.execUs += s.execUs;
            merged.set(s.kind, m);
          }
        }
        return describeStatements([...merged.values()].sort((a, b) => b.calls - a.calls), total * rounds);
      };
      const retried = (c: Config): string => {
        const counts = new Map<string, number>();
        for (const r of perRound) for (const [k, v] of Object.entries(r[c].retried)) counts.set(k, (counts.get(k) ?? 0) + v);
        return [...counts.entries()].map(([k, v]) => `${fmtInt(v)} × ${k}`).join(", ");
      };
      const notes = configs.map((c) => {
        const per = (perRound[0]![c].perGateway ?? []).map((_, i) => fmtUs(med((r) => r[c].perGateway[i]!)));
        return (
          `${LABEL[c]}: ${fmtInt(qps(c))} questions/s; CPU per question: gateway${per.length > 1 ? `s ${per.join(" + ")} = ` : " "}` +
          `${fmtUs(med((r) => r[c].gatewayCpu))}, PostgreSQL ${fmtUs(med((r) => r[c].pgCpu))}, load generator ` +
          `${fmtUs(med((r) => r[c].loadCpu))}; ${(med((r) => r[c].busy) * 100).toFixed(0)} % of ${cores} cores busy` +
          (retried(c) ? `; refused and sent again over ${rounds} runs: ${retried(c)}` : "")
        );
      });
      notes.push(
        `3 / 1 instances (median of per-round ratios): throughput ${fmtRatio(threeVsOne)} answered elsewhere, ${fmtRatio(localVsOne)} where asked; ` +
          `gateways' CPU per question ${fmtRatio(cpuRatio("crossed"))} and ${fmtRatio(cpuRatio("local"))}; ` +
          `gateways' + PostgreSQL's CPU per question ${fmtRatio(allCpuRatio("crossed"))} and ${fmtRatio(allCpuRatio("local"))}`,
      );
      // Three processes (and PostgreSQL's backends) share the cores: how often each loop slept and woke, and how often
      // it was preempted while it had work (and so ran again on caches another process had filled).
      const switches = (c: Config, kind: "voluntary" | "involuntary") => med((r) => r[c].gatewaySwitches[kind]);
      notes.push(
        `gateways' main threads per question (summed): ` +
          configs.map((c) => `${LABEL[c]} ${switches(c, "voluntary").toFixed(2)} wake-ups, ${switches(c, "involuntary").toFixed(2)} preemptions`).join("; "),
      );
      if (stats) for (const c of configs) notes.push(`statements, ${LABEL[c]}: ${statementsOf(c)}`);
      for (const c of configs) {
        const states = [...new Set(perRound.flatMap((r) => Object.keys(r[c].activity)))];
        const share = (state: string) => perRound.reduce((sum, r) => sum + (r[c].activity[state] ?? 0), 0) / perRound.length;
        const parts = states.map((s) => [s, share(s)] as const).filter(([, v]) => v >= 0.01).sort((a, b) => b[1] - a[1]);
        notes.push(`PostgreSQL connections of the gateway pools, ${LABEL[c]} (sampled every 50 ms): ${parts.map(([s, v]) => `${(v * 100).toFixed(0)} % ${s}`).join(", ")}`);
      }
      return {
        name: `8. Throughput on PostgreSQL (${fmtInt(inFlight)} in flight)`,
        result: `1 instance ${fmtInt(qps("one"))}/s; 3 instances ${fmtInt(qps("crossed"))}/s answered elsewhere, ${fmtInt(qps("local"))}/s answered where asked`,
        ratio:
          `3 / 1 instances: ${fmtRatio(threeVsOne)} answered elsewhere, ${fmtRatio(localVsOne)} where asked; ` +
          `gateways' CPU/q ${fmtRatio(cpuRatio("crossed"))}, ${fmtRatio(cpuRatio("local"))}`,
        goal: "3 / 1 ≥ 0.85× throughput; gateways' CPU/q 3 / 1 ≤ 1.2×",
        met,
        notes,
        data: {
          rounds, inFlight, total, cores, perRound,
          ratios: {
            throughput: { crossed: threeVsOne, local: localVsOne },
            gatewayCpu: { crossed: cpuRatio("crossed"), local: cpuRatio("local") },
            allCpu: { crossed: allCpuRatio("crossed"), local: allCpuRatio("local") },
            switches: Object.fromEntries(configs.map((c) => [c, { voluntary: switches(c, "voluntary"), involuntary: switches(c, "involuntary") }])),
          },
        },
      };
    } finally {
      if (stats) await Promise.all(Object.values(stats).map((s) => s.close()));
      await Promise.all(Object.values(samplers).map((s) => s.close()));
    }
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await Promise.all(databases.map((d) => d.drop().catch(() => undefined)));
    await postgres.stop();
  }
}
