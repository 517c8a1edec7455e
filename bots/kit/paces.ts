/**
 * The paces a platform's limit is made of, for the keyed pacer (./pacer.ts): a token bucket, sliding windows, and a
 * cell rate. Each is plain state and arithmetic on the times it is given, so it is tested without a clock.
 */
export interface Pace {
  /** How long until one more call fits (0: now). */
  waitMs(at: number): number;
  /** One call goes at `at`. */
  take(at: number): void;
  /** The call came back at `at`. */
  settled?(at: number): void;
  /** Nothing taken would hold a call back any more: the key may be forgotten. */
  idle(at: number): boolean;
}

export interface BucketPace {
  /** Calls a second, refilled continuously. */
  perSecond: number;
  /** How many may go at once before the pace applies. */
  burst: number;
}

/**
 * A token bucket of `burst` refilled at `perSecond`. With `inFlightEarns: false` the time a call is in flight earns no
 * tokens (its arrival at the platform is somewhere within it), so calls in line reach the platform spaced by at least
 * the pace even when the network delays one and not the next.
 */
export function tokenBucket({ perSecond, burst }: BucketPace, { inFlightEarns = true }: { inFlightEarns?: boolean } = {}): Pace {
  let tokens = burst;
  let atMs: number | undefined; // full until first asked
  const refill = (at: number) => {
    tokens = Math.min(burst, tokens + ((at - (atMs ?? at)) * perSecond) / 1000);
    atMs = at;
  };
  return {
    waitMs(at) {
      refill(at);
      return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / perSecond);
    },
    take(at) {
      refill(at);
      tokens = Math.max(0, tokens - 1);
    },
    ...(inFlightEarns ? {} : { settled: (at: number) => void (atMs = at) }),
    idle(at) {
      refill(at);
      return tokens >= burst;
    },
  };
}

export interface WindowLimit {
  windowMs: number;
  max: number;
}

/** At most `max` calls in any `windowMs`, for every window given (Teams: 7 in 1 s, 8 in 2 s…). */
export function slidingWindows(windows: readonly WindowLimit[]): Pace {
  const longest = Math.max(...windows.map((w) => w.windowMs));
  const sent: number[] = [];
  return {
    waitMs(at) {
      let wait = 0;
      for (const { windowMs, max } of windows) {
        const inWindow = sent.filter((t) => t > at - windowMs);
        if (inWindow.length >= max) wait = Math.max(wait, inWindow[inWindow.length - max]! + windowMs - at);
      }
      return wait;
    },
    take(at) {
      sent.push(at);
      while (sent.length > 0 && sent[0]! <= at - longest) sent.shift();
    },
    idle: (at) => (sent.at(-1) ?? -Infinity) < at - longest,
  };
}

/**
 * The generic cell rate algorithm: one slot every 1/perSecond s, nine tenths of `burst` at once. A tenth of the burst
 * is kept in reserve: calls taken a slot apart may reach the platform closer together than that (the network's
 * jitter), and the reserve absorbs it instead of a refusal.
 */
export function cellRate({ perSecond, burst }: BucketPace): Pace {
  const intervalMs = 1000 / perSecond;
  const toleranceMs = Math.max(0, Math.floor(burst * 0.9) - 1) * intervalMs;
  let theoreticalMs = 0;
  return {
    waitMs: (at) => Math.max(0, Math.ceil(theoreticalMs - toleranceMs - at)),
    take(at) {
      theoreticalMs = Math.max(theoreticalMs, at) + intervalMs;
    },
    idle: (at) => theoreticalMs <= at,
  };
}
