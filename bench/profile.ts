/**
 * Where the gateway's time goes: runs the real gateway (a child process) under `node --cpu-prof`, drives it with
 * the lean protocol at a given concurrency, and prints the profile's self time by area and by function.
 *
 *   node --import tsx bench/profile.ts [sqlite|memory|postgres|postgres1|postgres3] [in flight, default 1] [questions, default 5000]
 *
 * `postgres` starts an embedded PostgreSQL (bench/lib/postgres.ts) for the gateway, and also prints the statements
 * it ran per question and PostgreSQL's CPU per question. `postgres1` and `postgres3` are benchmark 8's load (three
 * lanes, each an agent and a bot following every question): `postgres1` on one gateway, `postgres3` as "3 instances,
 * answered elsewhere" (three gateways on one database, lane k's agent on gateway k and its bot on gateway k+1),
 * profiling the first gateway. With `PROFILE_ALL=1`, `postgres3` profiles all three: the summary printed is the first
 * gateway's, and the other two profiles are left beside it in the printed folder.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closedLoop, gatewayDriver, laneDriver } from "./lib/drivers.ts";
import { openBenchPostgres, statementStats, type BenchPostgres } from "./lib/postgres.ts";
import { killChildren, removeTempDirs, spawnGateway, tempDir } from "./lib/procs.ts";
import { summariseProfile } from "./profile-summary.ts";

const mode = (process.argv[2] ?? "sqlite") as "sqlite" | "memory" | "postgres" | "postgres1" | "postgres3";
const store = mode.startsWith("postgres") ? "postgres" : (mode as "sqlite" | "memory");
const inFlight = Number(process.argv[3] ?? 1);
const total = Number(process.argv[4] ?? 5000);
const dir = mkdtempSync(join(tmpdir(), "aub-prof-"));
process.env.BENCH_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${dir}`;
let postgres: BenchPostgres | undefined;
try {
  postgres = store === "postgres" ? await openBenchPostgres() : undefined;
  const database = await postgres?.createDatabase();
  const gateway = await spawnGateway({ dataDir: tempDir(), store, ...(database ? { databaseUrl: database.url } : {}) });
  let driver: Awaited<ReturnType<typeof gatewayDriver>>;
  const others: Array<{ stop(): Promise<unknown> }> = [];
  if (mode === "postgres3") {
    // The other two unprofiled, one at a time (each runs the migration check).
    if (!process.env.PROFILE_ALL) delete process.env.BENCH_NODE_FLAGS;
    const trio = [gateway];
    for (let i = 0; i < 2; i++) trio.push(await spawnGateway({ dataDir: tempDir(), store, databaseUrl: database!.url }));
    others.push(...trio.slice(1));
    driver = await laneDriver([0, 1, 2].map((k) => ({ agentUrl: trio[k]!.url, botUrl: trio[(k + 1) % 3]!.url })));
  } else if (mode === "postgres1") {
    driver = await laneDriver([0, 1, 2].map(() => ({ agentUrl: gateway.url, botUrl: gateway.url })));
  } else {
    driver = await gatewayDriver(gateway.url, { subscribe: true, wait: true });
  }
  await closedLoop(driver, Math.ceil(total / 10), inFlight);
  const stats = database && (await statementStats(database.url));
  await stats?.reset();
  const pg0 = postgres?.cpuUs() ?? 0;
  const run = await closedLoop(driver, total, inFlight);
  console.log(`${mode}, ${inFlight} in flight: ${Math.round(total / (run.elapsedUs / 1e6))} questions/s (profiling slows it)`);
  if (postgres && stats) {
    console.log(`PostgreSQL CPU ${(((postgres.cpuUs() ?? 0) - pg0) / total).toFixed(0)} µs per question; statements per question:`);
    for (const s of await stats.read()) console.log(`  ${(s.calls / total).toFixed(2)} × ${s.kind} (${(s.execUs / s.calls).toFixed(0)} µs each in the server)`);
    await stats.close();
  }
  driver.close();
  await Promise.all([gateway, ...others].map((g) => g.stop())); // SIGTERM: the profile is written on exit
  const file = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()[0];
  if (!file) throw new Error(`no profile in ${dir}`);
  const summary = summariseProfile(join(dir, file), 25);
  console.log(`busy ${summary.totalMs.toFixed(0)} ms = ${((summary.totalMs * 1000) / (total * 1.1)).toFixed(0)} µs per question; profile ${join(dir, file)}\n\nby area:`);
  for (const row of summary.byArea) console.log(`  ${(row.share * 100).toFixed(1).padStart(5)}%  ${row.name}`);
  console.log("\nby function (self time):");
  for (const row of summary.byFunction) console.log(`  ${(row.share * 100).toFixed(1).padStart(5)}%  ${row.name}`);
} finally {
  await killChildren();
  removeTempDirs();
  await postgres?.stop();
}
