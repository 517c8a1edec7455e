import { backoffDelay } from "../../../kernel/backoff.ts";
import { startPostgresListener } from "./postgres-listener.ts";
import { POSTGRES_CHANNEL } from "./postgres-migrations.ts";
import type { QuestionRecord } from "../../../record/record.ts";
import type { StoreChange } from "../kit/types.ts";
import { postgresRowToRecord, type PostgresQuestionRow } from "./postgres-row.ts";

export interface PostgresChangesOptions {
  connectionString: string;
  instanceId: string;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  log: (message: string, error?: unknown) => void;
  reconnectDelay?: (attempt: number) => number;
  heartbeatMs?: number;
  /**
   * Reads the records of changes whose notification could not carry them (a record over NOTIFY's 8000 bytes, or a
   * row that failed to decode), in one statement for a burst. A record it does not return is gone: that change is
   * dropped.
   */
  readRecords: (ids: string[]) => Promise<QuestionRecord[]>;
}

export interface PostgresChanges {
  /** Other instances' committed changes (this instance's own are skipped by their `origin`). */
  onRemoteChange(handler: (change: StoreChange) => void): () => void;
  /** After LISTEN is back on a new connection: what was committed meanwhile was never announced. */
  onResync(handler: () => void): () => void;
  close(): Promise<void>;
}

const EVENTS: ReadonlySet<string> = new Set<StoreChange["event"]>([
  "question.requested",
  "question.updated",
  "question.resolved",
  "question.reminded",
  "question.escalated",
  "question.lateAnswered",
]);

/** The most ids one read of records whose notification could not carry them asks for. */
const READ_BATCH = 500;

/**
 * The change feed: the triggers' notifications `{ origin, event, id, row? }` on POSTGRES_CHANNEL, minus this
 * instance's own, through one LISTEN connection that reconnects with backoff (backoffDelay: 250 ms doubling to 5 s).
 * A notification's `row` is the record as that change committed it (READ_RECORD's columns), handed on as
 * `change.record` without a read. A notification without one (the record did not fit) is read, with every other
 * such change of the same burst in one statement. Each record's changes reach the handlers in the order they were
 * committed: a change waits for the read of an earlier change of its record.
 */
export async function startPostgresChanges(options: PostgresChangesOptions): Promise<PostgresChanges> {
  const { instanceId, log } = options;
  let closed = false;
  const changeHandlers = new Set<(change: StoreChange) => void>();
  const resyncHandlers = new Set<() => void>();
  const call = <T>(handlers: Set<(value: T) => void>, value: T): void => {
    for (const handler of handlers) {
      try {
        handler(value);
      } catch (error) {
        log("a store change handler failed", error);
      }
    }
  };

  /** This instance's own notifications start so (json_build_object's spacing); anything else is parsed and checked. */
  const ownPrefix = `{"origin" : ${JSON.stringify(instanceId)},`;
  /** Changes not handed on yet, in commit order: those without `record` wait for a read, and later ones of their record. */
  const queue: StoreChange[] = [];
  /** The records being read now. */
  const reading = new Set<string>();
  /** Changes whose read failed: handed on without a record, for the handler to read (or report). */
  const unread = new WeakSet<StoreChange>();
  let readScheduled = false;

  function onNotification(payload: string): void {
    if (payload.startsWith(ownPrefix)) return;
    let message: { event?: unknown; id?: unknown; origin?: unknown; row?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return log(`ignored a malformed notification: ${payload.slice(0, 200)}`);
    }
    if (message.origin === instanceId || typeof message.id !== "string" || typeof message.event !== "string") return;
    if (!EVENTS.has(message.event)) return;
    const change: StoreChange = { event: message.event as StoreChange["event"], id: message.id };
    const record = decodeCarried(message.id, message.row);
    if (record) change.record = record;
    if (record && queue.length === 0) return call(changeHandlers, change);
    queue.push(change);
    drain();
  }

  /** The record a notification carries, when it carries one that decodes and is the announced record. */
  function decodeCarried(id: string, row: unknown): QuestionRecord | undefined {
    if (typeof row !== "object" || row === null) return undefined;
    try {
      const record = postgresRowToRecord(row as PostgresQuestionRow);
      return record.id === id ? record : undefined;
    } catch (error) {
      log(`a notification for ${id} carried a record that does not decode; reading it instead`, error);
      return undefined;
    }
  }

  /**
   * Hands on every queued change that waits for nothing: one without a record waits for its read, and the later
   * changes of the same record wait behind it (each record's changes stay in commit order; other records' go on, so
   * a read waiting for a busy pool holds back only its own record).
   */
  function drain(): void {
    const blocked = new Set<string>();
    let toRead = false;
    for (let i = 0; i < queue.length; i++) {
      const change = queue[i]!;
      if (blocked.has(change.id)) continue;
      if (!change.record && !unread.has(change)) {
        blocked.add(change.id);
        if (!reading.has(change.id)) toRead = true;
        continue;
      }
      queue.splice(i--, 1);
      call(changeHandlers, change);
    }
    if (toRead && !readScheduled) {
      readScheduled = true;
      // After this burst's other notifications, so that one statement reads them all.
      setImmediate(() => void readWaiting());
    }
  }

  async function readWaiting(): Promise<void> {
    readScheduled = false;
    if (closed) return;
    const ids = [...new Set(queue.filter((c) => !c.record && !unread.has(c) && !reading.has(c.id)).map((c) => c.id))].slice(0, READ_BATCH);
    if (ids.length === 0) return;
    const wanted = new Set(ids);
    // Only the changes queued before the read began: one notified while it runs may be newer than what it returns,
    // so it waits for a read of its own (drain() schedules it).
    const covered = new Set(queue.filter((c) => wanted.has(c.id) && !c.record && !unread.has(c)));
    for (const id of ids) reading.add(id);
    try {
      const found = new Map((await options.readRecords(ids)).map((r) => [r.id, r] as const));
      for (let i = 0; i < queue.length; i++) {
        const change = queue[i]!;
        if (!covered.has(change)) continue;
        const record = found.get(change.id);
        if (record) change.record = record;
        else queue.splice(i--, 1); // gone since: nothing to follow
      }
    } catch (error) {
      log(`could not read ${ids.length} changed record(s); handing the changes on without them`, error);
      for (const change of covered) unread.add(change);
    } finally {
      for (const id of ids) reading.delete(id);
    }
    if (!closed) drain();
  }

  const listener = await startPostgresListener({
    client: {
      connectionString: options.connectionString,
      application_name: instanceId,
      connectionTimeoutMillis: options.connectTimeoutMs,
      query_timeout: options.statementTimeoutMs,
      keepAlive: true,
    },
    channel: POSTGRES_CHANNEL,
    onNotification,
    onReconnect: () => call(resyncHandlers, undefined),
    log,
    reconnectDelay: options.reconnectDelay ?? ((attempt) => backoffDelay(attempt)),
    heartbeatMs: options.heartbeatMs ?? 30_000,
  });

  return {
    onRemoteChange(handler) {
      changeHandlers.add(handler);
      return () => void changeHandlers.delete(handler);
    },
    onResync(handler) {
      resyncHandlers.add(handler);
      return () => void resyncHandlers.delete(handler);
    },
    async close() {
      closed = true;
      queue.length = 0;
      changeHandlers.clear();
      resyncHandlers.clear();
      await listener.close();
    },
  };
}
