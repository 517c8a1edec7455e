import pg from "pg";
import { describePostgresFailure, unreachableError } from "./postgres-failure.ts";

export interface PostgresListenerOptions {
  /** How to connect (the store's connection string, instance id as application_name, timeouts). */
  client: pg.ClientConfig;
  channel: string;
  onNotification: (payload: string) => void;
  /** Called after LISTEN is active again on a new connection: notifications sent meanwhile were lost. */
  onReconnect: () => void;
  log: (message: string, error?: unknown) => void;
  /** The wait before reconnect attempt `n` (0-based). */
  reconnectDelay: (attempt: number) => number;
  /** How often an idle connection is checked with `SELECT 1`, so that a silently dead one is noticed. */
  heartbeatMs: number;
}

export interface PostgresListener {
  /** True while LISTEN is active on a live connection. */
  readonly connected: boolean;
  close(): Promise<void>;
}

/**
 * One dedicated connection that LISTENs on `channel`. When it drops (an error, the server ending it, or a failed
 * heartbeat) it is replaced, with backoff, until it works again; then `onReconnect` runs. The first connection is
 * made before this resolves, and a failure to make it rejects with StoreUnavailableError.
 */
export async function startPostgresListener(options: PostgresListenerOptions): Promise<PostgresListener> {
  const { channel, log } = options;
  let current: pg.Client | undefined;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  let checking = false;

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client(options.client);
    client.on("error", (error) => drop(client, error));
    client.on("end", () => drop(client, new Error("the server ended the connection")));
    client.on("notification", (message) => {
      if (message.channel === channel && message.payload !== undefined) options.onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** Forgets a connection that failed (once; later events from it are ignored) and schedules its replacement. */
  function drop(client: pg.Client, error: unknown): void {
    if (client !== current || closed) return;
    current = undefined;
    client.end().catch(() => undefined);
    log(`the LISTEN connection was lost (${describePostgresFailure(error)}); reconnecting`);
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        (client) => {
          if (closed) {
            client.end().catch(() => undefined);
            return;
          }
          current = client;
          attempt = 0;
          log("the LISTEN connection is back");
          options.onReconnect();
        },
        (error: unknown) => {
          if (closed) return;
          attempt += 1;
          log(`could not reconnect LISTEN (attempt ${attempt}): ${describePostgresFailure(error)}`);
          scheduleReconnect();
        },
      );
    }, options.reconnectDelay(attempt));
  }

  const heartbeat = setInterval(() => {
    const client = current;
    if (!client || checking) return;
    checking = true;
    client
      .query("SELECT 1")
      .catch((error: unknown) => drop(client, error))
      .finally(() => (checking = false));
  }, options.heartbeatMs);
  heartbeat.unref();

  try {
    current = await connect();
  } catch (error) {
    clearInterval(heartbeat);
    throw unreachableError(error);
  }

  return {
    get connected() {
      return current !== undefined;
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      if (retry) clearTimeout(retry);
      const client = current;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
