/**
 * Milliseconds of this process's CPU time since `since` (`process.cpuUsage()`). The speed guards against
 * super-linear work measure this, not the wall clock: other test workers on the machine stretch the wall clock, not
 * the CPU time this process spends.
 */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}
