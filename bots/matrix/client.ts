import { MatrixClient, MatrixError, Method, type ISendEventResponse } from "matrix-js-sdk";
import type { Log } from "../shared.ts";
import { createRateGate } from "./rate-gate.ts";

export { isRateLimited, retryAfterMs } from "./rate-limit.ts";

export interface MatrixCallOptions {
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The bot's client: matrix-js-sdk's MatrixClient used for its HTTP API (authentication, error types, the event
 * sending and redaction calls), with no scheduler and no store: the bot runs its own sync loop (./sync-loop.ts), so
 * its sync token is durable. Every call but /sync goes through one rate gate (./rate-gate.ts): one the homeserver
 * rate-limits is tried again after the `retry_after_ms` it asks for, the calls then in single file.
 */
export function createMatrixApi(client: MatrixClient, log: Log, options: MatrixCallOptions = {}) {
  const gate = createRateGate({ ...(options.sleep ? { sleep: options.sleep } : {}), log });
  const call = <T>(what: string, run: () => Promise<T>): Promise<T> => gate.run(what, run);
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
      // Not through the gate: a long-poll must not wait behind sends (the loop backs off on its own failures).
      client.http.authedRequest<MatrixSyncResponse>(Method.Get, "/sync", { ...query, timeout: String(timeoutMs) }, undefined, { localTimeoutMs: timeoutMs + 30_000, abortSignal: signal }),
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
