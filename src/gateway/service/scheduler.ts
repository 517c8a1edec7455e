import type { Clock, ClockTimer } from "../../kernel/clock.ts";

/**
 * The longest single timer. setTimeout runs on the monotonic clock, which stands still while the host is suspended,
 * so a long timer would fire late by the length of the sleep: each wake re-reads the wall clock (`now`, no store
 * call) and sleeps again only if the deadline is still ahead.
 */
export const MAX_TIMER_MS = 1_000;

/**
 * One timer for the whole gateway: it wakes at the earliest deadline it is told about, runs `tick`, and asks `next`
 * for the following deadline. Ticks never overlap; a deadline poked while a tick runs is picked up by the re-arm
 * after it (`next` sees everything). The timer only ever moves earlier between two ticks, so an answer from `next`
 * that is out of date by the time it arrives can wake the gateway early (harmless: the tick finds nothing due),
 * never late.
 */
export function createScheduler({ clock, tick, next, onError, maxTimerMs = MAX_TIMER_MS }: {
  /** Time and the timer (the wall clock is `clock.now`). */
  clock: Clock;
  tick: (nowMs: number) => Promise<void>;
  next: () => Promise<number | undefined>;
  onError: (error: unknown) => void;
  /** The longest single timer (default MAX_TIMER_MS). */
  maxTimerMs?: number;
}) {
  const now = () => clock.now();
  let timer: ClockTimer | undefined;
  let armedFor: number | undefined;
  let stopped = false;
  let ticking = false;

  async function arm(): Promise<void> {
    if (stopped || ticking) return;
    let at: number | undefined;
    try {
      at = await next();
    } catch (error) {
      onError(error);
      at = now() + 1_000; // the store is unavailable: look again in a second
    }
    if (stopped || ticking || at === undefined) return;
    set(at);
  }

  /** Arms the timer for `at` unless it is already armed for that moment or earlier. */
  function set(at: number): void {
    if (timer && armedFor !== undefined && armedFor <= at) return;
    clear();
    armedFor = at;
    wait(at);
  }

  /** Sleeps at most MAX_TIMER_MS at a time, and fires once the wall clock has reached `at`. */
  function wait(at: number): void {
    timer = clock.setTimeout(() => (now() < at ? wait(at) : void fire()), Math.min(maxTimerMs, Math.max(0, at - now())));
    timer.unref?.();
  }

  async function fire(): Promise<void> {
    timer = undefined;
    armedFor = undefined;
    ticking = true;
    try {
      await tick(now());
    } catch (error) {
      onError(error);
    } finally {
      ticking = false;
    }
    await arm();
  }

  function clear(): void {
    if (timer) clock.clearTimeout(timer);
    timer = undefined;
    armedFor = undefined;
  }

  return {
    /** Call whenever a deadline may have moved earlier. */
    poke(deadlineMs: number): void {
      if (stopped || ticking) return;
      set(deadlineMs);
    },
    arm,
    stop(): void {
      stopped = true;
      clear();
    },
  };
}
