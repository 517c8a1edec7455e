/** setTimeout's own ceiling; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One timer for the whole gateway: it wakes at the earliest deadline it is told about,
 * runs `tick`, and asks `next` for the following deadline.
 */
export function createScheduler({ now, tick, next }: { now: () => number; tick: (nowMs: number) => void; next: () => number | undefined }) {
  let timer: NodeJS.Timeout | undefined;
  let armedFor: number | undefined;
  let stopped = false;

  function arm(): void {
    if (stopped) return;
    const at = next();
    if (at === undefined) {
      clear();
      return;
    }
    if (timer && armedFor === at) return;
    clear();
    armedFor = at;
    timer = setTimeout(fire, Math.min(MAX_TIMER_MS, Math.max(0, at - now())));
    timer.unref?.();
  }

  function fire(): void {
    timer = undefined;
    armedFor = undefined;
    tick(now());
    arm();
  }

  function clear(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    armedFor = undefined;
  }

  return {
    /** Call whenever a deadline may have moved earlier. */
    poke(deadlineMs: number): void {
      if (armedFor === undefined || deadlineMs < armedFor) arm();
    },
    arm,
    stop(): void {
      stopped = true;
      clear();
    },
  };
}
