/**
 * One keyed pacer for every bot that keeps to its platform's rate limits (Slack per channel, WhatsApp per recipient,
 * Teams per conversation, Matrix per account). Each key (a channel, a recipient…) has its own line: its calls take
 * their turns in order, wait for the key's pace (a `Pace`: a token bucket, sliding windows…), then for the app's
 * overall pace (shared by every key, first come first served), and go. Other keys are not held up by one. A call the
 * platform still refuses for now (its 429 and Retry-After) may be waited out and tried again (`backOff`): the key
 * then pauses for the wait asked, and its calls go one at a time until enough went through.
 *
 * Hand-written rather than p-queue or Bottleneck: p-queue has one fixed-window interval per queue and no keys,
 * Bottleneck (unmaintained since 2019) refreshes its reservoir in fixed steps; neither has a continuous token bucket
 * whose time in flight earns nothing, sliding windows such as Teams' (7 in 1 s, 8 in 2 s, 60 in 30 s, 1,800 an hour),
 * or a back-off that switches a key to single file, which the platforms' limits here need.
 */
import type { Pace } from "./paces.ts";

export interface BackOff {
  /** The wait a refusal asks for (ms), or undefined when the error is not a rate limit (it goes back at once). */
  retryAfterMs(error: unknown): number | undefined;
  /** Waits longer than this go back to the caller (its own retry), rather than holding the call. */
  waitMaxMs: number;
  /** How long one call may keep being refused before the error goes back to the caller. */
  refusedForMaxMs: number;
  /** Calls in a row that went through in single file before the key's calls go side by side again. */
  calmAfter: number;
  /** Told once when a key starts going in single file. */
  onSingleFile?(what: string, waitMs: number): void;
}

export interface KeyedPacerOptions {
  /** The pace of one key, made when the key is first seen (none: only the overall pace and `inFlight` apply). */
  pace?: () => Pace;
  /** The app's pace, shared by every key, taken after the key's. */
  overall?: Pace;
  /** Calls of one key in flight at once (default 1: one at a time, each after the one before came back). */
  inFlight?: number;
  /**
   * A call with none before it in its key's line goes at once, whatever the pace (Slack: a lone post over the limit
   * is the WebClient's 429 to handle). It still takes its share of the pace.
   */
  loneGoesAtOnce?: boolean;
  backOff?: BackOff;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const IDLE_KEYS_KEPT = 1_000;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

interface Line {
  pace: Pace | undefined;
  /** The end of the line: the next call's turn comes after it. */
  tail: Promise<void>;
  /** Calls in line or in flight. */
  pending: number;
  inFlight: number;
  /** Waiting for a call in flight to come back. */
  freed: Array<() => void>;
  pausedUntil: number;
  singleFile: boolean;
  calm: number;
}

export function createKeyedPacer({ pace, overall, inFlight: inFlightMax = 1, loneGoesAtOnce = false, backOff, now = () => performance.now(), sleep = realSleep }: KeyedPacerOptions = {}) {
  const lines = new Map<string, Line>();
  let overallTail: Promise<void> = Promise.resolve();

  /** Sleeps until `pace` lets one more call go (none when it already does). */
  async function waitFor(p: Pace): Promise<void> {
    for (let wait = p.waitMs(now()); wait > 0; wait = p.waitMs(now())) await sleep(wait);
  }

  /** The app's pace, first come first served. */
  function takeOverall(o: Pace): Promise<void> {
    const turn = overallTail.then(async () => {
      await waitFor(o);
      o.take(now());
    });
    overallTail = turn.catch(() => {});
    return turn;
  }

  function prune(): void {
    if (lines.size <= IDLE_KEYS_KEPT) return;
    const at = now();
    for (const [key, line] of lines) if (line.pending === 0 && line.pausedUntil <= at && (line.pace?.idle(at) ?? true)) lines.delete(key);
  }

  function lineOf(key: string): Line {
    let line = lines.get(key);
    if (!line) {
      prune();
      line = { pace: pace?.(), tail: Promise.resolve(), pending: 0, inFlight: 0, freed: [], pausedUntil: 0, singleFile: false, calm: 0 };
      lines.set(key, line);
    }
    return line;
  }

  /** The call's turn: a free place in flight, the pause over, the key's pace and the app's. */
  function turn(line: Line, lone: boolean): Promise<void> {
    const mine = line.tail.then(async () => {
      while (line.inFlight >= (line.singleFile ? 1 : inFlightMax)) await new Promise<void>((resolve) => line.freed.push(resolve));
      line.inFlight++;
      const paused = line.pausedUntil - now();
      if (paused > 0) await sleep(paused);
      if (line.pace && !lone) await waitFor(line.pace);
      if (overall) await takeOverall(overall);
      line.pace?.take(now());
    });
    line.tail = mine.catch(() => {});
    return mine;
  }

  function cameBack(line: Line): void {
    line.pace?.settled?.(now());
    line.inFlight--;
    line.freed.shift()?.();
  }

  return {
    /** Runs `call` when `key` (and the app) may make one more; its result or error is the call's. */
    async run<T>(key: string, call: () => Promise<T>, what = key): Promise<T> {
      const line = lineOf(key);
      const lone = loneGoesAtOnce && line.pending === 0;
      line.pending++;
      let firstRefusedAt: number | undefined;
      try {
        for (;;) {
          await turn(line, lone && firstRefusedAt === undefined);
          const sentAt = now();
          try {
            const result = await call();
            if (line.singleFile && ++line.calm >= (backOff?.calmAfter ?? 0)) line.singleFile = false;
            return result;
          } catch (error) {
            const wait = backOff?.retryAfterMs(error);
            if (!backOff || wait === undefined) throw error;
            firstRefusedAt ??= now();
            if (now() - firstRefusedAt > backOff.refusedForMaxMs || wait > backOff.waitMaxMs) throw error;
            if (!line.singleFile) backOff.onSingleFile?.(what, wait);
            line.singleFile = true;
            line.calm = 0;
            // The platform counted `wait` from when it answered, about half the round trip ago.
            const answeredAt = now();
            line.pausedUntil = Math.max(line.pausedUntil, answeredAt + Math.max(0, wait - (answeredAt - sentAt) / 2));
          } finally {
            cameBack(line);
          }
        }
      } finally {
        line.pending--;
      }
    },
  };
}

export type KeyedPacer = ReturnType<typeof createKeyedPacer>;
