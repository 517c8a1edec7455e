/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): self time by function and by file, so a benchmark note can
 * say where the time goes. Usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [topN]
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  totalMs: number;
  byFunction: Array<{ name: string; ms: number; share: number }>;
  byArea: Array<{ name: string; ms: number; share: number }>;
}

/** Where a frame's code lives: our source file, a dependency, node internals, or V8 (GC, idle, program). */
function area(url: string, name: string): string {
  if (url === "") return name === "(garbage collector)" ? "GC" : name === "(idle)" ? "idle" : name === "(program)" ? "program (native)" : `native ${name}`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `dep ${nm[1]}`;
  if (url.startsWith("node:")) return `node ${url.slice(5).split("/")[0]}`;
  const src = /\/work\/[^/]+\/(.+)$/.exec(url) ?? /file:\/\/.*?\/((?:src|bench|bots)\/.+)$/.exec(url);
  return src ? src[1]! : url;
}

export function summariseProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = area(url, functionName);
    if (where === "idle") continue;
    total += us;
    const name = `${functionName || "(anonymous)"} ${where}${url ? `:${lineNumber + 1}` : ""}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    files.set(where, (files.get(where) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / total }));
  return { totalMs: total / 1000, byFunction: rank(fn), byArea: rank(files) };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ""))) {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: profile-summary.ts FILE.cpuprofile [topN]");
  const summary = summariseProfile(file, Number(topArg ?? 25));
  console.log(`busy ${summary.totalMs.toFixed(0)} ms (idle excluded)\n\nby area:`);
  for (const row of summary.byArea) console.log(`  ${(row.share * 100).toFixed(1).padStart(5)}%  ${row.name}`);
  console.log("\nby function (self time):");
  for (const row of summary.byFunction) console.log(`  ${(row.share * 100).toFixed(1).padStart(5)}%  ${row.name}`);
}
