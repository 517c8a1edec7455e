import { realClock, type Clock } from "../../kernel/clock.ts";
import type { AskUserResult } from "../../contract/result.ts";
import { recordToResult, type QuestionRecord } from "../../record/record.ts";

/**
 * What ends a wait early: an AbortSignal (HTTP), or the lighter hook a WebSocket connection gives, which runs its
 * callbacks when the connection closes (an AbortController per request costs more than the rest of a request).
 * `onCancel` returns a function that unregisters the callback.
 */
export type Cancellation = AbortSignal | { onCancel(callback: () => void): () => void };

export type WaitOutcome = ({ id: string } & AskUserResult & { record: QuestionRecord }) | { id: string; status: "pending"; expiresAtMs: number };

export function recordToWaitOutcome(record: QuestionRecord): WaitOutcome {
  const result = recordToResult(record);
  return result ? { id: record.id, ...result, record } : { id: record.id, status: "pending", expiresAtMs: record.expiresAtMs };
}

/** How many resolutions nobody waited on are remembered for a wait that starts just after (about a second's worth at full load). */
const RECENT = 2_000;

/**
 * The long-polls (question.waitAnswer, question.request with waitMs): each waits for its question to resolve, on
 * this instance or, through the store's change feed, on any other. `read` gives the latest record when a wait ends
 * by timeout or cancellation.
 */
export function createWaiters({ maxWaitMs, read, clock = realClock }: { maxWaitMs: number; read: (id: string) => Promise<QuestionRecord | undefined>; clock?: Clock }) {
  const waiting = new Map<string, Set<(record: QuestionRecord | undefined) => void>>();
  /**
   * The ids of questions that resolved while nobody here waited on them, oldest first (at most RECENT). A wait that
   * starts with a record read (or created) just before its resolution was announced (another instance's change can
   * arrive between an ask's commit and its wait) reads the record again and ends at once instead of waiting out its
   * timeout. Only ids: with several instances every instance hears of every resolution, most of which nobody here
   * waits on, so keeping their records would hold thousands in every instance's heap for the rare wait that needs one.
   */
  const recent = new Set<string>();

  return {
    /** Resolves with the result once `record` is terminal, or `pending` after timeoutMs (or on cancellation). */
    wait(record: QuestionRecord, timeoutMs = 60_000, signal?: Cancellation): Promise<WaitOutcome> {
      const id = record.id;
      if (record.status !== "pending" || timeoutMs <= 0) return Promise.resolve(recordToWaitOutcome(record));
      if (recent.has(id)) return read(id).then((latest) => recordToWaitOutcome(latest ?? record), () => recordToWaitOutcome(record));
      return new Promise((resolve) => {
        const set = waiting.get(id) ?? new Set();
        waiting.set(id, set);
        let unregister: (() => void) | undefined;
        const done = (latest: QuestionRecord | undefined) => {
          clock.clearTimeout(timer);
          set.delete(done);
          if (set.size === 0 && waiting.get(id) === set) waiting.delete(id);
          unregister?.();
          resolve(recordToWaitOutcome(latest ?? record));
        };
        /** Ended without a resolution: answer with the latest record (a resolution may have just landed elsewhere). */
        const giveUp = () => {
          set.delete(done);
          read(id).then(done, () => done(undefined));
        };
        const timer = clock.setTimeout(giveUp, Math.min(timeoutMs, maxWaitMs));
        set.add(done);
        if (signal instanceof AbortSignal) {
          signal.addEventListener("abort", giveUp, { once: true });
          unregister = () => signal.removeEventListener("abort", giveUp);
        } else if (signal) {
          unregister = signal.onCancel(giveUp);
        }
      });
    },

    /** The question resolved: every wait on it ends with this record. */
    wake(record: QuestionRecord): void {
      const set = waiting.get(record.id);
      waiting.delete(record.id);
      if (set) return set.forEach((done) => done(record));
      recent.delete(record.id);
      recent.add(record.id);
      if (recent.size > RECENT) recent.delete(recent.values().next().value!);
    },

    /** The questions someone is waiting on. */
    ids: (): string[] => [...waiting.keys()],

    /** Ends every wait now with its record as it was (shutdown), so no timer keeps the process alive. */
    endAll(): void {
      for (const set of waiting.values()) for (const done of [...set]) done(undefined);
      waiting.clear();
      recent.clear();
    },
  };
}

export type Waiters = ReturnType<typeof createWaiters>;
