import { MatrixClient, MatrixError, Method, type ISendEventResponse } from "matrix-js-sdk";
import type { Log } from "../shared.ts";

/** A rate-limited call waits the server's `retry_after_ms` (this when it gives none) and tries again. */
const RATE_LIMIT_DEFAULT_MS = 1_000;
/** Waits longer than this go back to the caller (the bridge's send retry), rather than holding the call. */
const RATE_LIMIT_WAIT_MAX_MS = 30_000;
const RATE_LIMIT_TRIES = 5;

export interface MatrixCallOptions {
  sleep?: (ms: number) => Promise<void>;
}

/** Whether the homeserver refused the call for now: M_LIMIT_EXCEEDED (HTTP 429). */
export function isRateLimited(error: unknown): error is MatrixError {
  return error instanceof MatrixError && (error.errcode === "M_LIMIT_EXCEEDED" || error.httpStatus === 429);
}

/** The wait a rate-limited answer asks for: `retry_after_ms` (or the Retry-After header), else a second. */
export function retryAfterMs(error: MatrixError): number {
  try {
    return error.getRetryAfterMs() ?? RATE_LIMIT_DEFAULT_MS;
  } catch {
    return RATE_LIMIT_DEFAULT_MS;
  }
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

/**
 * The bot's client: matrix-js-sdk's MatrixClient used for its HTTP API (authentication, error types, the event
 * sending and redaction calls), with no scheduler and no store: the bot runs its own sync loop (./sync-loop.ts), so
 * its sync token is durable. Every call that the homeserver rate-limits is tried again after the `retry_after_ms` it
 * asks for (up to 5 tries, each wait at most 30 s); past that the error goes back to the caller.
 */
export function createMatrixApi(client: MatrixClient, log: Log, options: MatrixCallOptions = {}) {
  const sleep = options.sleep ?? realSleep;
  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (!isRateLimited(error) || attempt >= RATE_LIMIT_TRIES) throw error;
        const wait = retryAfterMs(error);
        if (wait > RATE_LIMIT_WAIT_MAX_MS) throw error;
        log(`${what}: rate limited (M_LIMIT_EXCEEDED); retrying in ${wait} ms`);
        await sleep(wait);
      }
    }
  }
  const request = <T>(what: string, method: Method, path: string, query?: Record<string, string>, body?: unknown) =>
    call(what, () => client.http.authedRequest<T>(method, path, query, body as Record<string, unknown> | undefined));
  const enc = encodeURIComponent;
  return {
    client,
    call,
    /** Sends one event; the same txnId always gives the same event (the homeserver keeps it), so a retry never posts twice. */
    send: (roomId: string, type: string, content: Record<string, unknown>, txnId = client.makeTxnId()) =>
      call(`send ${type}`, () => client.sendEvent(roomId, type as never, content as never, txnId) as Promise<ISendEventResponse>),
    redact: (roomId: string, eventId: string, reason: string) => call("redact", () => client.redactEvent(roomId, eventId, undefined, { reason })),
    /** A state event's content, or undefined when the room has none (M_NOT_FOUND). */
    async state(roomId: string, type: string, stateKey = ""): Promise<Record<string, unknown> | undefined> {
      try {
        return await call(`state ${type}`, () => client.getStateEvent(roomId, type, stateKey));
      } catch (error) {
        if (error instanceof MatrixError && (error.errcode === "M_NOT_FOUND" || error.httpStatus === 404)) return undefined;
        throw error;
      }
    },
    joinedMembers: (roomId: string) => request<{ joined: Record<string, { display_name?: string }> }>("joined_members", Method.Get, `/rooms/${enc(roomId)}/joined_members`),
    join: (roomId: string) => request<{ room_id: string }>("join", Method.Post, `/join/${enc(roomId)}`, undefined, {}),
    createRoom: (body: Record<string, unknown>) => request<{ room_id: string }>("createRoom", Method.Post, "/createRoom", undefined, body),
    async accountData<T>(userId: string, type: string): Promise<T | undefined> {
      try {
        return await request<T>("account_data", Method.Get, `/user/${enc(userId)}/account_data/${enc(type)}`);
      } catch (error) {
        if (error instanceof MatrixError && (error.errcode === "M_NOT_FOUND" || error.httpStatus === 404)) return undefined;
        throw error;
      }
    },
    setAccountData: (userId: string, type: string, content: unknown) => request<object>("account_data", Method.Put, `/user/${enc(userId)}/account_data/${enc(type)}`, undefined, content),
    whoami: () => request<{ user_id: string }>("whoami", Method.Get, "/account/whoami"),
    /** One long-poll of /sync (`timeoutMs` 0 for at once); aborted by `signal`. */
    sync: (query: Record<string, string>, timeoutMs: number, signal: AbortSignal) =>
      call("sync", () =>
        client.http.authedRequest<MatrixSyncResponse>(Method.Get, "/sync", { ...query, timeout: String(timeoutMs) }, undefined, { localTimeoutMs: timeoutMs + 30_000, abortSignal: signal }),
      ),
    messages: (roomId: string, query: Record<string, string>) =>
      request<{ chunk: MatrixRawEvent[]; end?: string }>("messages", Method.Get, `/rooms/${enc(roomId)}/messages`, query),
  };
}

export type MatrixApi = ReturnType<typeof createMatrixApi>;

/** An event as the client-server API gives it. */
export interface MatrixRawEvent {
  type: string;
  event_id: string;
  sender: string;
  origin_server_ts?: number;
  state_key?: string;
  content: Record<string, any>;
  redacts?: string;
  unsigned?: Record<string, unknown>;
}

export interface MatrixSyncRoom {
  timeline?: { events?: MatrixRawEvent[]; limited?: boolean; prev_batch?: string };
  state?: { events?: MatrixRawEvent[] };
}

export interface MatrixSyncResponse {
  next_batch: string;
  rooms?: {
    join?: Record<string, MatrixSyncRoom>;
    invite?: Record<string, { invite_state?: { events?: Array<Partial<MatrixRawEvent>> } }>;
    leave?: Record<string, unknown>;
  };
  account_data?: { events?: Array<{ type: string; content: Record<string, any> }> };
}
