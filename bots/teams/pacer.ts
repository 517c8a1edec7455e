/**
 * Paces the bot's calls to the Bot Connector the way Teams limits a bot: per conversation (thread) at most 7
 * operations in 1 s, 8 in 2 s, 60 in 30 s and 1,800 in an hour, and at most 50 requests a second for the app
 * overall. Over them Teams answers 429; a burst that ran into them would lose seconds to every Retry-After. Paced
 * here (the kit's keyed pacer), calls to one conversation take their turns in order (and may be in flight together),
 * calls to others go on, and the app's overall rate is a token bucket of one second's worth. A 429 that still comes
 * is retried by the connector as before.
 */
import { createKeyedPacer } from "../kit/pacer.ts";
import { slidingWindows, tokenBucket, type WindowLimit } from "../kit/paces.ts";

export interface TeamsPace {
  /** Per conversation: at most `max` calls in any `windowMs`. */
  windows: readonly WindowLimit[];
  /** For the app overall: a token bucket of `perSecond`, refilled continuously. */
  perSecond: number;
}

/** Teams' documented limits for a bot (per thread, and the app's global rate). */
export const TEAMS_PACE: TeamsPace = {
  windows: [
    { windowMs: 1_000, max: 7 },
    { windowMs: 2_000, max: 8 },
    { windowMs: 30_000, max: 60 },
    { windowMs: 3_600_000, max: 1_800 },
  ],
  perSecond: 50,
};

export function createTeamsPacer(pace: TeamsPace = TEAMS_PACE, now?: () => number) {
  return createKeyedPacer({
    pace: () => slidingWindows(pace.windows),
    overall: tokenBucket({ perSecond: pace.perSecond, burst: pace.perSecond }),
    inFlight: Number.POSITIVE_INFINITY,
    ...(now ? { now } : {}),
  });
}
