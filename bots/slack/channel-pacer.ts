/**
 * Paces chat.postMessage per channel the way Slack limits it: about one message a second per channel, with short
 * bursts allowed (a token bucket of `burst` refilled at `perSecond`). Slack's WebClient has no per-channel limiter:
 * it learns of the limit from a 429, then pauses every call of the app (every channel) for the Retry-After and backs
 * off a further 1–2 s, so a burst to many channels loses seconds to each 429. Paced here (the kit's keyed pacer),
 * posts to one channel wait their turn, one in flight at a time, and other channels are not held up; a 429 that
 * still comes is the WebClient's to handle, as before. Only a channel with posts in line is paced: a post with none
 * before it goes at once, as it did before (a lone post over the limit is the WebClient's 429 to handle). The time a
 * post is in flight earns no tokens, so queued posts reach Slack spaced by at least the pace.
 */
import { createKeyedPacer } from "../kit/pacer.ts";
import { tokenBucket, type BucketPace } from "../kit/paces.ts";

export interface ChannelPacerOptions extends Partial<BucketPace> {
  now?: () => number;
}

/** Slack's documented pace for chat.postMessage (1 a second per channel), with a burst of 3 assumed. */
export const SLACK_POST_PACE = { perSecond: 1, burst: 3 } as const;

export function createChannelPacer({ perSecond = SLACK_POST_PACE.perSecond, burst = SLACK_POST_PACE.burst, now }: ChannelPacerOptions = {}) {
  return createKeyedPacer({ pace: () => tokenBucket({ perSecond, burst }, { inFlightEarns: false }), loneGoesAtOnce: true, ...(now ? { now } : {}) });
}
