/**
 * Paces chat.postMessage per channel the way Slack limits it: about one message a second per channel, with short
 * bursts allowed (a token bucket of `burst` refilled at `perSecond`). Slack's WebClient has no per-channel limiter:
 * it learns of the limit from a 429, then pauses every call of the app (every channel) for the Retry-After and backs
 * off a further 1–2 s, so a burst to many channels loses seconds to each 429. Paced here, posts to one channel wait
 * their turn and other channels are not held up; a 429 that still comes is the WebClient's to handle, as before.
 * Only a channel with posts in line is paced: a bot posting now and then to a channel posts at once.
 */
export interface ChannelPacerOptions {
  /** Messages a second per channel (Slack: 1). */
  perSecond?: number;
  /** How many may go at once before the pace applies (Slack allows short bursts; it does not say how long). */
  burst?: number;
  now?: () => number;
}

/** Slack's documented pace for chat.postMessage, with a burst of 3 assumed. */
export const SLACK_POST_PACE = { perSecond: 1, burst: 3 } as const;

const IDLE_CHANNELS_KEPT = 1_000;

export function createChannelPacer({ perSecond = SLACK_POST_PACE.perSecond, burst = SLACK_POST_PACE.burst, now = () => performance.now() }: ChannelPacerOptions = {}) {
  const buckets = new Map<string, { tokens: number; atMs: number; waiting: number; tail: Promise<void> }>();

  function refill(bucket: { tokens: number; atMs: number }): void {
    const at = now();
    bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.atMs) * perSecond) / 1000);
    bucket.atMs = at;
  }

  function prune(): void {
    if (buckets.size <= IDLE_CHANNELS_KEPT) return;
    for (const [channel, bucket] of buckets) {
      refill(bucket);
      if (bucket.waiting === 0 && bucket.tokens >= burst) buckets.delete(channel);
    }
  }

  return {
    /**
     * Runs `post` when `channel` may take a message: one post in flight per channel, each waiting for a token while
     * others are in line for the channel (a post with none before it goes at once, as it did before: a lone post
     * over the limit is the WebClient's 429 to handle). The time a post is in flight earns no tokens (its arrival at
     * Slack is somewhere within it), so queued posts reach Slack spaced by at least the pace even when the network
     * delays one and not the next.
     */
    run<T>(channel: string, post: () => Promise<T>): Promise<T> {
      let bucket = buckets.get(channel);
      if (!bucket) {
        prune();
        buckets.set(channel, (bucket = { tokens: burst, atMs: now(), waiting: 0, tail: Promise.resolve() }));
      }
      const b = bucket;
      const alone = b.waiting === 0;
      b.waiting++;
      const mine = b.tail.then(async () => {
        refill(b);
        if (!alone && b.tokens < 1) {
          await new Promise((r) => setTimeout(r, Math.ceil(((1 - b.tokens) * 1000) / perSecond)));
          refill(b);
        }
        b.tokens = Math.max(0, b.tokens - 1);
        try {
          return await post();
        } finally {
          b.atMs = now();
          b.waiting--;
        }
      });
      b.tail = mine.then(
        () => {},
        () => {},
      );
      return mine;
    },
  };
}
