/** What each benchmark returns: one table row, notes for the doc, and the raw figures. */
export interface BenchResult {
  /** "1. Round trip" */
  name: string;
  /** The headline figures (medians over runs). */
  result: string;
  /** The headline ratios, each measured within one run. */
  ratio: string;
  goal: string;
  /** Whether every goal of the benchmark is met. */
  met: boolean;
  /** Breakdown and caveats, one line each. */
  notes: string[];
  data: Record<string, unknown>;
}

/** Runs `fn` over the items in a different order each round, so that no configuration always goes first. */
export function rotate<T>(items: readonly T[], round: number): T[] {
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** The Markdown table `npm run bench` prints: one row per benchmark. */
export function formatTable(results: BenchResult[]): string {
  return [
    "| Benchmark | Result (median) | Ratio (median, same run) | Goal | Met |",
    "|---|---|---|---|---|",
    ...results.map((r) => `| ${r.name} | ${r.result} | ${r.ratio} | ${r.goal} | ${r.met ? "yes" : "**no**"} |`),
  ].join("\n");
}
