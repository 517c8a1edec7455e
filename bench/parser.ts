/**
 * Benchmark 5: replies per second through `parseReply` over the parser fixture corpus (test/fixtures/parse),
 * single core (this process, one thread).
 *
 * Two figures. "fresh questions" is what the gateway does: `question.reply` decodes the record from the store, so
 * every reply is parsed against question objects the parser has never seen (its per-question matcher cache cannot
 * hit). "same questions" reuses the objects, as a bot parsing several replies to one prompt in memory would.
 * The copies are made outside the timed loop, so only parsing is timed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { normalizeAskUserInput } from "../src/contract/normalize.ts";
import type { AskUserQuestion } from "../src/contract/schema.ts";
import { parseReply } from "../src/parse/index.ts";
import { ROOT } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";
import { fmtInt, fmtRatio, median } from "./lib/stats.ts";

export interface ParserOptions {
  rounds?: number;
  /** Timed milliseconds per round and mode (approximately). */
  roundMs?: number;
  log?: (line: string) => void;
}

interface Case {
  questions: AskUserQuestion[];
  reply: string;
}

export function loadCorpus(): Case[] {
  const dir = join(ROOT, "test", "fixtures", "parse");
  const cases: Case[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    for (const item of JSON.parse(readFileSync(join(dir, file), "utf8")) as Array<{ questions: unknown; reply: string }>) {
      const normalised = normalizeAskUserInput({ questions: item.questions });
      if (!normalised.ok) throw new Error(`fixture in ${file} does not normalise`);
      cases.push({ questions: normalised.value.questions, reply: item.reply });
    }
  }
  return cases;
}

/**
 * Parses every case many times; `fresh` gives each parse its own copy of the questions. Returns replies per second
 * of wall time and per second of this process's CPU time: on a shared machine the CPU figure is what one core does
 * (time other processes take from us is not counted; V8's GC helper threads are, so it errs low).
 */
function measure(cases: Case[], fresh: boolean, targetMs: number): { wall: number; cpu: number } {
  // Few copies alive at a time: a young-generation GC then has little to move (a big batch made it pay for the copies).
  const passesPerBatch = fresh ? 1 : 20;
  let replies = 0;
  let timedNs = 0n;
  let cpuUs = 0;
  let sink = 0;
  while (Number(timedNs) / 1e6 < targetMs) {
    const batch: AskUserQuestion[][] = [];
    if (fresh) for (let p = 0; p < passesPerBatch; p++) for (const c of cases) batch.push(structuredClone(c.questions));
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let k = 0;
    for (let p = 0; p < passesPerBatch; p++) {
      for (const c of cases) {
        const outcome = parseReply(fresh ? batch[k++]! : c.questions, c.reply);
        sink += outcome.kind.length;
      }
    }
    timedNs += process.hrtime.bigint() - t0;
    const cpu = process.cpuUsage(c0);
    cpuUs += cpu.user + cpu.system;
    replies += passesPerBatch * cases.length;
  }
  if (sink === 0) throw new Error("unreachable: keeps the results alive");
  return { wall: replies / (Number(timedNs) / 1e9), cpu: replies / (cpuUs / 1e6) };
}

export async function benchParser(options: ParserOptions = {}): Promise<BenchResult> {
  const rounds = options.rounds ?? 5;
  const roundMs = options.roundMs ?? 600;
  const log = options.log ?? (() => {});
  const cases = loadCorpus();
  measure(cases, true, roundMs / 2); // warm-up (JIT)
  measure(cases, false, roundMs / 2);
  const fresh: Array<{ wall: number; cpu: number }> = [];
  const same: Array<{ wall: number; cpu: number }> = [];
  for (let round = 0; round < rounds; round++) {
    fresh.push(measure(cases, true, roundMs));
    same.push(measure(cases, false, roundMs));
    log(`  round ${round + 1}/${rounds}: fresh ${fmtInt(fresh.at(-1)!.cpu)}/CPU-s (${fmtInt(fresh.at(-1)!.wall)}/s wall), same ${fmtInt(same.at(-1)!.cpu)}/CPU-s`);
    await new Promise((r) => setImmediate(r));
  }
  const headline = median(fresh.map((f) => f.cpu));
  const sameCpu = median(same.map((f) => f.cpu));
  return {
    name: "5. Parser (1 core)",
    result: `${fmtInt(headline)} replies/s with fresh questions; ${fmtInt(sameCpu)}/s with the same questions`,
    ratio: `${fmtRatio(headline / 200_000)} goal`,
    goal: "≥ 200,000 replies/s",
    met: headline >= 200_000,
    notes: [
      `${cases.length} fixture replies (every file of test/fixtures/parse), ${rounds} rounds of ~${roundMs} ms per mode, median of rounds`,
      `fresh question objects per reply (what question.reply does in the gateway, which decodes the record for each reply): ` +
        `${fmtInt(headline)} replies per CPU-second, ${fmtInt(median(fresh.map((f) => f.wall)))} per wall-clock second`,
      `the same question objects every time (a bot parsing several replies to one prompt): ${fmtInt(sameCpu)} per CPU-second, ` +
        `${fmtInt(median(same.map((f) => f.wall)))} per wall-clock second`,
      `per CPU-second: this process's CPU time, so time the shared machine gives to other processes is not counted`,
    ],
    data: { cases: cases.length, fresh, same },
  };
}
