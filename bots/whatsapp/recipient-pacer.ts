/**
 * Paces messages per recipient the way WhatsApp limits them: a business number may send one person about one message
 * every 6 seconds, with bursts (Meta documents up to 45 in 6 seconds, then a wait as long), and over that it answers
 * 131056 (the pair rate limit). A token bucket per recipient keeps the bot under it, so a burst of questions to one
 * person waits its turn here instead of collecting refusals and backoffs, and other recipients are not held up.
 * Only a recipient with messages in line is paced: a lone message goes at once.
 */
export interface RecipientPace {
  /** Messages a second to one recipient. */
  perSecond: number;
  /** How many may go at once before the pace applies. */
  burst: number;
}

/** Meta's documented pair rate: 1 message every 6 s to one recipient, with bursts of up to 45. */
export const WHATSAPP_PAIR_PACE: RecipientPace = { perSecond: 1 / 6, burst: 45 };

const IDLE_RECIPIENTS_KEPT = 1_000;

interface Bucket {
  tokens: number;
  atMs: number;
  waiting: number;
  tail: Promise<void>;
}

export function createRecipientPacer({ perSecond, burst }: RecipientPace = WHATSAPP_PAIR_PACE, now: () => number = () => performance.now()) {
  const buckets = new Map<string, Bucket>();

  function refill(bucket: Bucket): void {
    const at = now();
    bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.atMs) * perSecond) / 1000);
    bucket.atMs = at;
  }

  function prune(): void {
    if (buckets.size <= IDLE_RECIPIENTS_KEPT) return;
    for (const [recipient, bucket] of buckets) {
      refill(bucket);
      if (bucket.waiting === 0 && bucket.tokens >= burst) buckets.delete(recipient);
    }
  }

  return {
    /**
     * Runs `send` when `recipient` may take a message: one at a time per recipient, each waiting for a token. `gate`
     * (the number's throughput) is waited for after the token, and the time spent there still earns tokens: only the
     * send's own flight does not.
     */
    run<T>(recipient: string, send: () => Promise<T>, gate?: () => Promise<void>): Promise<T> {
      let bucket = buckets.get(recipient);
      if (!bucket) {
        prune();
        buckets.set(recipient, (bucket = { tokens: burst, atMs: now(), waiting: 0, tail: Promise.resolve() }));
      }
      const b = bucket;
      b.waiting++;
      const mine = b.tail.then(async () => {
        refill(b);
        if (b.tokens < 1) {
          await new Promise((resolve) => setTimeout(resolve, Math.ceil(((1 - b.tokens) * 1000) / perSecond)));
          refill(b);
        }
        if (gate) {
          await gate();
          refill(b);
        }
        b.tokens = Math.max(0, b.tokens - 1);
        try {
          return await send();
        } finally {
          // The time a send is in flight earns no tokens (it reaches WhatsApp somewhere within it), so queued sends
          // arrive spaced by at least the pace even when the network delays one and not the next.
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
