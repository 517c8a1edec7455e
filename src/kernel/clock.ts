/**
 * Where the gateway and the bridge get the time and their timers: one injected clock, the real one by default. A
 * test hands both the same virtual clock (test/scenarios/virtual-clock.ts) and moves it forward, so expiry,
 * reminders, late windows and back-offs cost no real seconds, while sockets and the database keep real time.
 */
export interface Clock {
  /** Milliseconds since the epoch, like Date.now(). */
  now(): number;
  setTimeout(callback: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer | undefined): void;
  setInterval(callback: () => void, ms: number): ClockTimer;
  clearInterval(timer: ClockTimer | undefined): void;
}

/** A timer of a clock: opaque; `unref` (where it exists) lets the process exit while the timer is pending. */
export interface ClockTimer {
  unref?(): unknown;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (timer) => clearInterval(timer as NodeJS.Timeout | undefined),
};

/** Resolves after `ms` on `clock`'s time (unref'd: it never keeps the process alive). */
export function clockSleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms).unref?.());
}
