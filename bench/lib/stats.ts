/** Small statistics helpers: every headline figure is a median over repeated runs. */

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Linear-interpolated quantile (q in [0, 1]); NaN for no values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[hi] ?? Number.NaN;
  return a + (b - a) * (at - lo);
}

export const p99 = (values: readonly number[]): number => quantile(values, 0.99);

/** Median and p99 of a sample of latencies. */
export interface Latency {
  median: number;
  p99: number;
}

export function latency(samples: readonly number[]): Latency {
  return { median: median(samples), p99: p99(samples) };
}

/** The median of each field over several runs. */
export function medianOf<T extends Record<string, number>>(runs: readonly T[]): T {
  const first = runs[0];
  if (!first) throw new Error("medianOf needs at least one run");
  const out: Record<string, number> = {};
  for (const key of Object.keys(first)) out[key] = median(runs.map((run) => run[key] ?? Number.NaN));
  return out as T;
}

/** Formats microseconds compactly: 73 µs, 1.2 ms, 3.40 s. */
export function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return "n/a";
  if (us < 0) return `−${fmtUs(-us)}`;
  if (us < 1000) return `${us.toFixed(us < 10 ? 1 : 0)} µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(us < 10_000 ? 2 : 1)} ms`;
  return `${(us / 1_000_000).toFixed(2)} s`;
}

export function fmtMs(ms: number): string {
  return fmtUs(ms * 1000);
}

export function fmtRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : "n/a";
}

/** 12345.6 → "12,346". */
export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a";
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "n/a";
  if (bytes < 0) return `−${fmtBytes(-bytes)}`;
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(2)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** High-resolution clock in microseconds. */
export const nowUs = (): number => Number(process.hrtime.bigint()) / 1000;
