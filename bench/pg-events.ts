/**
 * Benchmark 9: cross-instance event latency on PostgreSQL. Three gateways A, B and C share one database (each a
 * child process); every clock reading is taken in this process, so all latencies are on one clock.
 *
 * One question at a time: an agent on A asks (`question.request`, t0); a subscriber on C receives question.requested
 * (t1); once it has, a bot on B resolves the question (`question.resolve`, t2); the subscriber on C receives
 * question.resolved (t3). Reported: t1 − t0 (ask on A → event at C) and t3 − t2 (resolve on B → event at C), median
 * and p99 over every question. For scale, in the same rounds:
 * - the same two latencies with no instance crossed: asked, resolved and observed on A;
 * - raw LISTEN/NOTIFY with `pg`: one connection runs `SELECT pg_notify(…)`, another LISTENs (the floor of crossing).
 * Each round measures the three in turn (rotating); the medians over rounds are reported.
 */
import pg from "pg";
import { gatewayClient, QUESTION, ANSWERS } from "./lib/drivers.ts";
import { openBenchPostgres } from "./lib/postgres.ts";
import { spawnGateway, tempDir, type Child } from "./lib/procs.ts";
import { rotate, type BenchResult } from "./lib/result.ts";
import { fmtRatio, fmtUs, latency, median, nowUs } from "./lib/stats.ts";

export interface PgEventsOptions {
  rounds?: number;
  /** Questions per round and configuration. */
  questions?: number;
  /** An admin URL of a PostgreSQL server to use instead of starting one (the smoke test's). */
  postgresUrl?: string;
  log?: (line: string) => void;
}

const GOAL_P99_US = 50_000;

type Config = "cross" | "local" | "notify";
type Sample = { requested: number[]; resolved: number[] };

/** Events by key (`where event id`), with the time each arrived (µs), for whoever waits for them, before or after. */
function eventWaiter() {
  const pending = new Map<string, (atUs: number) => void>();
  const early = new Map<string, number>();
  return {
    arrived(key: string, atUs: number): void {
      const wake = pending.get(key);
      if (wake) {
        pending.delete(key);
        wake(atUs);
      } else early.set(key, atUs);
    },
    wait(key: string, timeoutMs = 10_000): Promise<number> {
      const at = early.get(key);
      if (at !== undefined) {
        early.delete(key);
        return Promise.resolve(at);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${key} within ${timeoutMs} ms`)), timeoutMs);
        pending.set(key, (atUs) => {
          clearTimeout(timer);
          resolve(atUs);
        });
      });
    },
  };
}

export async function benchPgEvents(options: PgEventsOptions = {}): Promise<BenchResult> {
  const rounds = options.rounds ?? 5;
  const questions = options.questions ?? 300;
  const log = options.log ?? (() => {});

  const postgres = await openBenchPostgres(options.postgresUrl);
  const database = await postgres.createDatabase();
  const gateways: Child[] = [];
  const closers: Array<() => unknown> = [];
  try {
    for (let i = 0; i < 3; i++) gateways.push(await spawnGateway({ dataDir: tempDir(), store: "postgres", databaseUrl: database.url }));
    const [a, b, c] = gateways as [Child, Child, Child];
    const events = eventWaiter();
    const subscriber = (where: string) => (event: string, payload: { id: string }) => events.arrived(`${where} ${event} ${payload.id}`, nowUs());
    const agent = await gatewayClient(a.url, []);
    const botB = await gatewayClient(b.url, []);
    const botA = await gatewayClient(a.url, []);
    const atC = await gatewayClient(c.url, ["question.requested", "question.resolved"], subscriber("C"));
    const atA = await gatewayClient(a.url, ["question.requested", "question.resolved"], subscriber("A"));
    closers.push(agent.close, botA.close, botB.close, atC.close, atA.close);

    // Raw LISTEN/NOTIFY on the same server, with the store's driver.
    const notifier = new pg.Client({ connectionString: database.url, application_name: "aub-bench-notify" });
    const listener = new pg.Client({ connectionString: database.url, application_name: "aub-bench-listen" });
    for (const client of [notifier, listener]) {
      client.on("error", () => undefined);
      await client.connect();
      closers.push(() => client.end().catch(() => undefined));
    }
    await listener.query("LISTEN aub_bench");
    listener.on("notification", (message) => events.arrived(`N ${message.payload}`, nowUs()));
    const notifyText = { name: "bench-notify", text: "SELECT pg_notify('aub_bench', $1)" };

    /**
     * One question's two latencies: at C, asked on A and resolved on B (across instances); at A, asked and resolved
     * on A (none crossed). Both subscribers get both events every time, and the question is resolved only once both
     * have seen it requested: otherwise C may read the record only after it was resolved, and then it announces
     * question.resolved (twice) and never question.requested.
     */
    async function life(where: "A" | "C"): Promise<[number, number]> {
      const other = where === "A" ? "C" : "A";
      const t0 = nowUs();
      const { id } = await agent.call("question.request", { questions: [QUESTION] });
      const t1 = await events.wait(`${where} question.requested ${id}`);
      await events.wait(`${other} question.requested ${id}`);
      const t2 = nowUs();
      const resolving = (where === "A" ? botA : botB).call("question.resolve", { id, answers: ANSWERS });
      const t3 = await events.wait(`${where} question.resolved ${id}`);
      await resolving;
      await events.wait(`${other} question.resolved ${id}`);
      return [t1 - t0, t3 - t2];
    }
    let nextNotify = 0;
    async function notify(): Promise<[number, number]> {
      const out: number[] = [];
      for (let i = 0; i < 2; i++) {
        const key = `n${nextNotify++}`;
        const t0 = nowUs();
        const arrived = events.wait(`N ${key}`);
        await notifier.query({ ...notifyText, values: [key] });
        out.push((await arrived) - t0);
      }
      return out as [number, number];
    }
    const measure: Record<Config, () => Promise<[number, number]>> = { cross: () => life("C"), local: () => life("A"), notify };
    const configs = Object.keys(measure) as Config[];

    for (const config of configs) for (let i = 0; i < Math.ceil(questions / 3); i++) await measure[config]();
    const perRound: Array<Record<Config, { requested: { median: number; p99: number }; resolved: { median: number; p99: number } }>> = [];
    const all: Record<Config, Sample> = { cross: { requested: [], resolved: [] }, local: { requested: [], resolved: [] }, notify: { requested: [], resolved: [] } };
    for (let round = 0; round < rounds; round++) {
      const figures = {} as (typeof perRound)[number];
      for (const config of rotate(configs, round)) {
        const sample: Sample = { requested: [], resolved: [] };
        for (let i = 0; i < questions; i++) {
          const [requested, resolved] = await measure[config]();
          sample.requested.push(requested);
          sample.resolved.push(resolved);
        }
        all[config].requested.push(...sample.requested);
        all[config].resolved.push(...sample.resolved);
        figures[config] = { requested: latency(sample.requested), resolved: latency(sample.resolved) };
      }
      perRound.push(figures);
      log(
        `  round ${round + 1}/${rounds}: ask on A → C ${fmtUs(figures.cross.requested.median)} (p99 ${fmtUs(figures.cross.requested.p99)}), ` +
          `resolve on B → C ${fmtUs(figures.cross.resolved.median)} (p99 ${fmtUs(figures.cross.resolved.p99)}); ` +
          `at A ${fmtUs(figures.local.requested.median)} / ${fmtUs(figures.local.resolved.median)}; NOTIFY ${fmtUs(figures.notify.requested.median)}`,
      );
    }
    const med = (pick: (r: (typeof perRound)[number]) => number) => median(perRound.map(pick));
    // p99 over every question of every round (the tail is what the goal is about), medians as the median over rounds.
    const overall = (c: Config, k: keyof Sample) => latency(all[c][k]);
    const cross = { requested: overall("cross", "requested"), resolved: overall("cross", "resolved") };
    const p99Max = Math.max(cross.requested.p99, cross.resolved.p99);
    const line = (c: Config, k: keyof Sample) => `median ${fmtUs(med((r) => r[c][k].median))}, p99 ${fmtUs(overall(c, k).p99)}`;
    return {
      name: "9. Cross-instance event latency (PostgreSQL)",
      result:
        `ask on A → event at C ${fmtUs(med((r) => r.cross.requested.median))} (p99 ${fmtUs(cross.requested.p99)}); ` +
        `resolve on B → event at C ${fmtUs(med((r) => r.cross.resolved.median))} (p99 ${fmtUs(cross.resolved.p99)})`,
      ratio:
        `vs the same events at A: ${fmtRatio(med((r) => r.cross.requested.median / r.local.requested.median))} (ask), ` +
        `${fmtRatio(med((r) => r.cross.resolved.median / r.local.resolved.median))} (resolve)`,
      goal: "p99 < 50 ms",
      met: p99Max < GOAL_P99_US,
      notes: [
        `${rounds} rounds × ${questions} questions, one at a time; p99 over all ${rounds * questions} of each`,
        `ask on A → question.requested at C: ${line("cross", "requested")}; at A itself: ${line("local", "requested")}`,
        `resolve on B → question.resolved at C: ${line("cross", "resolved")}; at A: ${line("local", "resolved")}`,
        `raw LISTEN/NOTIFY with pg (SELECT pg_notify → notification on another connection): ${line("notify", "requested")}`,
      ],
      data: { rounds, questions, perRound, cross },
    };
  } finally {
    for (const close of closers) await close();
    await Promise.all(gateways.map((g) => g.stop()));
    await database.drop().catch(() => undefined);
    await postgres.stop();
  }
}
