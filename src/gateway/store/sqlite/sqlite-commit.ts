import type Database from "better-sqlite3";

/**
 * Group commit for one SQLite connection: with `enabled`, the writes of one event-loop turn share one IMMEDIATE
 * transaction, committed at the end of the turn (setImmediate); a write's promise settles only after that COMMIT.
 * Off: every write commits on its own. `writes` counts the writes begun: the record cell's version.
 */
export function createGroupCommit(db: Database.Database, enabled: boolean) {
  /** The open group-commit transaction: callbacks waiting for its COMMIT. */
  let batch: Array<(error?: unknown) => void> | undefined;
  let writes = 0;

  function commit(): void {
    const callbacks = batch;
    if (!callbacks) return;
    batch = undefined;
    let failure: unknown;
    try {
      db.exec("COMMIT");
    } catch (error) {
      failure = error;
      try {
        if (db.inTransaction) db.exec("ROLLBACK");
      } catch {
        // the connection is unusable; the failure above is what callers hear
      }
    }
    for (const callback of callbacks) {
      try {
        callback(failure);
      } catch (error) {
        console.error("[store] an afterCommit callback failed", error);
      }
    }
  }

  return {
    /** Before a write: with group commit on, opens the turn's transaction (once) and schedules its commit. */
    beginWrite(): void {
      writes++;
      if (!enabled || batch) return;
      db.exec("BEGIN IMMEDIATE");
      batch = [];
      setImmediate(commit);
    },
    /** How many writes began on this connection. */
    writes: (): number => writes,
    commit,
    /** A write's result, once it is durable: after the turn's COMMIT under group commit, else at once. */
    durable<T>(value: T): Promise<T> {
      const waiting = batch;
      if (!waiting) return Promise.resolve(value);
      return new Promise<T>((resolve, reject) => waiting.push((error) => (error === undefined ? resolve(value) : reject(error))));
    },
  };
}

export type GroupCommit = ReturnType<typeof createGroupCommit>;

/** Runs a synchronous step as a promise: its throw becomes a rejection. */
export function runStep<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (error) {
    return Promise.reject(error);
  }
}
