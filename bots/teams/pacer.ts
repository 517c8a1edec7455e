/**
 * Paces the bot's calls to the Bot Connector the way Teams limits a bot: per conversation (thread) at most 7
 * operations in 1 s, 8 in 2 s, 60 in 30 s and 1,800 in an hour, and at most 50 requests a second for the app
 * overall. Over them Teams answers 429; a burst that ran into them would lose seconds to every Retry-After. Paced
 * here, calls to one conversation wait their turn in order, calls to others go on, and the app's overall rate is a
 * token bucket of one second's worth. A 429 that still comes is retried by the connector as before.
 */
export interface TeamsPace {
  /** Per conversation: at most `max` calls in any `windowMs`. */
  windows: ReadonlyArray<{ windowMs: number; max: number }>;
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

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms).unref()) : Promise.resolve());
const IDLE_CONVERSATIONS_KEPT = 1_000;

export function createTeamsPacer(pace: TeamsPace = TEAMS_PACE, now: () => number = () => performance.now()) {
  const longest = Math.max(...pace.windows.map((w) => w.windowMs));
  const conversations = new Map<string, { sent: number[]; tail: Promise<void>; waiting: number }>();
  let tokens = pace.perSecond;
  let tokensAtMs = now();
  let globalTail: Promise<void> = Promise.resolve();

  /** The app's bucket, first come first served. */
  function takeGlobal(): Promise<void> {
    const turn = globalTail.then(async () => {
      for (;;) {
        const at = now();
        tokens = Math.min(pace.perSecond, tokens + ((at - tokensAtMs) * pace.perSecond) / 1000);
        tokensAtMs = at;
        if (tokens >= 1) {
          tokens -= 1;
          return;
        }
        await sleep(((1 - tokens) * 1000) / pace.perSecond);
      }
    });
    globalTail = turn;
    return turn;
  }

  /** How long until one more call fits every window of this conversation. */
  function waitFor(sent: number[], at: number): number {
    let wait = 0;
    for (const { windowMs, max } of pace.windows) {
      const inWindow = sent.filter((t) => t > at - windowMs);
      if (inWindow.length >= max) wait = Math.max(wait, inWindow[inWindow.length - max]! + windowMs - at);
    }
    return wait;
  }

  function prune(): void {
    if (conversations.size <= IDLE_CONVERSATIONS_KEPT) return;
    const at = now();
    for (const [id, c] of conversations) if (c.waiting === 0 && (c.sent.at(-1) ?? -Infinity) < at - longest) conversations.delete(id);
  }

  return {
    /** Runs `call` when the conversation and the app may make one more call. */
    async run<T>(conversation: string, call: () => Promise<T>): Promise<T> {
      let state = conversations.get(conversation);
      if (!state) conversations.set(conversation, (state = { sent: [], tail: Promise.resolve(), waiting: 0 }));
      const s = state;
      s.waiting++;
      const turn = s.tail.then(async () => {
        for (let wait = waitFor(s.sent, now()); wait > 0; wait = waitFor(s.sent, now())) await sleep(wait);
        await takeGlobal();
        const at = now();
        s.sent.push(at);
        while (s.sent.length > 0 && s.sent[0]! <= at - longest) s.sent.shift();
      });
      s.tail = turn.catch(() => {});
      try {
        await turn;
      } finally {
        s.waiting--;
        prune();
      }
      return call();
    },
  };
}
