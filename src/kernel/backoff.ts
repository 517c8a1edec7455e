/** Exponential backoff with full jitter: the n-th retry waits up to min(max, base * 2^n). */
export function backoffDelay(attempt: number, baseMs = 250, maxMs = 5_000): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
