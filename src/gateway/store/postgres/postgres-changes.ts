import { backoffDelay } from "../../../kernel/backoff.ts";
import { startPostgresListener } from "./postgres-listener.ts";
import { POSTGRES_CHANNEL } from "./postgres-schema.ts";
import type { StoreChange } from "../kit/types.ts";

export interface PostgresChangesOptions {
  connectionString: string;
  instanceId: string;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  log: (message: string, error?: unknown) => void;
  reconnectDelay?: (attempt: number) => number;
  heartbeatMs?: number;
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

/**
 * The change feed: the triggers' notifications `{ event, id, origin }` on POSTGRES_CHANNEL, minus this instance's
 * own, through one LISTEN connection that reconnects with backoff (backoffDelay: 250 ms doubling to 5 s).
 */
export async function startPostgresChanges(options: PostgresChangesOptions): Promise<PostgresChanges> {
  const { instanceId, log } = options;
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

  function onNotification(payload: string): void {
    let message: { event?: unknown; id?: unknown; origin?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return log(`ignored a malformed notification: ${payload}`);
    }
    if (message.origin === instanceId || typeof message.id !== "string" || typeof message.event !== "string") return;
    if (!EVENTS.has(message.event)) return;
    call(changeHandlers, { event: message.event as StoreChange["event"], id: message.id });
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
      changeHandlers.clear();
      resyncHandlers.clear();
      await listener.close();
    },
  };
}
