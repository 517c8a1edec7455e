/**
 * Benchmark 6: CLI start-up. The wall time of `ask-user-bridge --help` (the compiled bin, dist/bin, exactly what
 * npm installs) against `node -e 0`, both started the same way: spawnSync of this Node with no shell. Runs are
 * interleaved (help, bare node, version, help, …), so every ratio is taken within one round of the same noise.
 */
import { spawnSync } from "node:child_process";
import { BIN } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";
import { fmtMs, fmtRatio, median } from "./lib/stats.ts";

export interface CliStartupOptions {
  rounds?: number;
  log?: (line: string) => void;
}

const GOAL = 1.5;

function timeRun(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

export async function benchCliStartup(options: CliStartupOptions = {}): Promise<BenchResult> {
  const rounds = options.rounds ?? 31;
  const log = options.log ?? (() => {});
  const runs = { help: [] as number[], version: [] as number[], node: [] as number[], ratio: [] as number[] };
  for (let i = 0; i < 3; i++) timeRun([BIN, "--help"]); // warm the file cache
  for (let round = 0; round < rounds; round++) {
    const help = timeRun([BIN, "--help"]);
    const node = timeRun(["-e", "0"]);
    runs.version.push(timeRun([BIN, "--version"]));
    runs.help.push(help);
    runs.node.push(node);
    runs.ratio.push(help / node);
  }
  const figures = { help: median(runs.help), version: median(runs.version), node: median(runs.node), ratio: median(runs.ratio) };
  log(`  --help ${fmtMs(figures.help)}, node -e 0 ${fmtMs(figures.node)}, ratio ${fmtRatio(figures.ratio)}`);
  return {
    name: "6. CLI start-up",
    result: `--help ${fmtMs(figures.help)}; --version ${fmtMs(figures.version)}; node -e 0 ${fmtMs(figures.node)}`,
    ratio: `--help / node -e 0: ${fmtRatio(figures.ratio)}`,
    goal: `≤ ${GOAL}×`,
    met: figures.ratio <= GOAL,
    notes: [
      `median of ${rounds} interleaved runs of each, spawnSync(process.execPath, …) with no shell; the ratio is taken per round, then the median`,
      "the bin loads only src/cli/main.ts and src/cli/version.ts for --help and --version: every command module, dotenv and zod load when a command runs",
    ],
    data: { rounds, ...figures },
  };
}
