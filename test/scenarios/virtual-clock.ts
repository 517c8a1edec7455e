import type { Clock, ClockTimer } from "../../src/kernel/clock.ts";

/**
 * A clock for the gateway and the bridge in a test that the test moves forward (`advance`): the expiry, reminders,
 * late windows and back-offs of the in-memory platform's suites cost no real seconds. It also runs with the real
 * clock in between (now = the wall clock + every advance so far), because everything around it is real: sockets,
 * the database, the gateway client's heartbeats, vitest's own timeouts. A frozen global clock (fake timers) would
 * stall those; this one moves only what the gateway and the bridge were handed.
 */
export interface VirtualClock extends Clock {
  /**
   * Moves time forward by `ms`: every timer due by then fires (soonest first, each seeing the new time), and the
   * work they start gets a few turns of the event loop. What it sets off over sockets is waited for as usual.
   */
  advance(ms: number): Promise<void>;
}

interface Timer extends ClockTimer {
  at: number;
  callback: () => void;
  everyMs?: number;
  real?: NodeJS.Timeout;
  unrefd: boolean;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createVirtualClock(): VirtualClock {
  let aheadMs = 0;
  const now = () => Date.now() + aheadMs;
  const timers = new Set<Timer>();

  /** Waits for the timer on the real clock (it may still be advanced past first). */
  function arm(timer: Timer): void {
    timer.real = setTimeout(() => fire(timer), Math.max(0, timer.at - now()));
    if (timer.unrefd) timer.real.unref();
  }
  function fire(timer: Timer): void {
    clearTimeout(timer.real);
    if (!timers.has(timer)) return;
    if (timer.everyMs === undefined) timers.delete(timer);
    else {
      timer.at = now() + timer.everyMs;
      arm(timer);
    }
    timer.callback();
  }
  function add(callback: () => void, ms: number, everyMs?: number): Timer {
    const timer: Timer = {
      at: now() + Math.max(0, ms),
      callback,
      unrefd: false,
      ...(everyMs === undefined ? {} : { everyMs }),
      unref() {
        timer.unrefd = true;
        timer.real?.unref();
        return timer;
      },
    };
    timers.add(timer);
    arm(timer);
    return timer;
  }
  function remove(timer: ClockTimer | undefined): void {
    if (!timer || !timers.has(timer as Timer)) return;
    timers.delete(timer as Timer);
    clearTimeout((timer as Timer).real);
  }

  return {
    now,
    setTimeout: (callback, ms) => add(callback, ms),
    clearTimeout: remove,
    setInterval: (callback, ms) => add(callback, ms, Math.max(1, ms)),
    clearInterval: remove,
    async advance(ms) {
      aheadMs += ms;
      const fired = new Set<Timer>();
      for (;;) {
        // Soonest first; an interval fires once per advance, and a timer set by a callback fires too when it is due.
        const due = [...timers].filter((t) => t.at <= now() && !fired.has(t)).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        fired.add(due);
        fire(due);
        await turn();
      }
      for (let i = 0; i < 5; i++) await turn();
    },
  };
}
