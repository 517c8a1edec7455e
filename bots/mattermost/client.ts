import mattermostClient from "@mattermost/client";
import { NodeWebSocket as WsWebSocket, type Log } from "../shared.ts";

/** A 429 is waited out (its Retry-After) and tried again inside the call this many times; then it fails. */
const RATE_LIMIT_RETRIES = 3;
/** The longest a 429's Retry-After is waited inside a call; beyond it the call fails and the bridge retries later. */
const RATE_LIMIT_WAIT_MAX_MS = 60_000;

// A CommonJS package whose named exports Node's ES module loader cannot see: taken from its default export.
const { Client4, ClientError, WebSocketClient } = mattermostClient;
type WebSocketClient = InstanceType<typeof WebSocketClient>;
type Client4 = InstanceType<typeof Client4>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const numberHeader = (headers: Headers, name: string): number | undefined => {
  const value = headers.get(name);
  if (value === null || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
};

/**
 * Mattermost's rate limit (RateLimitSettings: 10 requests/s with bursts of 100 by default, per token) as the client
 * learns it from the X-RateLimit-Limit / X-RateLimit-Remaining headers: a token bucket that holds calls back before
 * the server would refuse them, and after a 429 waits for its Retry-After (or X-RateLimit-Reset). The first call goes
 * alone, so that a burst learns the limit before it is sent; when its response has no such headers (the limit is off
 * by default), nothing is held back.
 */
export function createRateGate(now: () => number = Date.now) {
  let perSecond = 0;
  let capacity = 0;
  let tokens = Number.POSITIVE_INFINITY;
  let refilledAt = now();
  let blockedUntil = 0;
  let inFlight = 0;
  let queue: Promise<void> = Promise.resolve();
  /** Settles with the first response (or failure): until then one call at a time. */
  let probed = false;
  let onProbed: () => void = () => {};
  const firstAnswer = new Promise<void>((resolve) => (onProbed = resolve));
  const probeDone = () => {
    probed = true;
    onProbed();
  };

  const refill = () => {
    const at = now();
    if (perSecond > 0) tokens = Math.min(capacity, tokens + ((at - refilledAt) / 1000) * perSecond);
    refilledAt = at;
  };

  return {
    /** Waits for a turn; calls take turns in order. */
    take(): Promise<void> {
      const turn = queue.then(async () => {
        if (!probed && inFlight > 0) await firstAnswer;
        for (;;) {
          const blocked = blockedUntil - now();
          if (blocked > 0) {
            await sleep(blocked);
            continue;
          }
          refill();
          if (tokens >= 1) break;
          await sleep(Math.max(5, ((1 - tokens) / perSecond) * 1000));
        }
        tokens -= 1;
        inFlight += 1;
      });
      queue = turn.catch(() => {});
      return turn;
    },
    /** What a response said about the limit. */
    learn(status: number, headers: Headers): void {
      inFlight = Math.max(0, inFlight - 1);
      probeDone();
      const limit = numberHeader(headers, "X-RateLimit-Limit");
      const remaining = numberHeader(headers, "X-RateLimit-Remaining");
      if (limit !== undefined && limit > 0 && remaining !== undefined) {
        refill();
        perSecond = limit;
        capacity = Math.max(capacity, remaining + inFlight + 1);
        // The calls still in flight have taken from the server's bucket already.
        tokens = Math.min(Number.isFinite(tokens) ? tokens : capacity, Math.max(0, remaining - inFlight));
      }
      if (status === 429) {
        const after = numberHeader(headers, "Retry-After") ?? numberHeader(headers, "X-RateLimit-Reset") ?? 1;
        blockedUntil = Math.max(blockedUntil, now() + Math.min(RATE_LIMIT_WAIT_MAX_MS, Math.max(0, after) * 1000));
        tokens = 0;
      }
    },
    /** The call failed before any response. */
    failed(): void {
      inFlight = Math.max(0, inFlight - 1);
      probeDone();
    },
  };
}

export type RateGate = ReturnType<typeof createRateGate>;

interface FetchResult {
  response: Response;
  headers: Headers;
  data: unknown;
}
type FetchWithResponse = (url: string, options: { method?: string; body?: unknown; ignoreStatus?: boolean }) => Promise<FetchResult>;

/** The status of a failed call: Mattermost's error body says it, and a 429 (plain text) is recorded on the error. */
export function mattermostStatus(error: unknown): number | undefined {
  const status = (error as { status_code?: unknown } | undefined)?.status_code;
  return typeof status === "number" ? status : undefined;
}

/**
 * Client4 with the rate limit kept: every call takes a turn at the gate, and a 429 is waited out and tried again (a
 * 429 means nothing happened, so nothing is done twice). Everything else is Client4's own.
 */
export class MattermostClient extends Client4 {
  constructor(url: string, token: string, readonly gate: RateGate = createRateGate()) {
    super();
    this.setUrl(url.replace(/\/+$/u, ""));
    this.setToken(token);
    this.setIncludeCookies(false);
    const self = this as unknown as { doFetchWithResponse: FetchWithResponse };
    const original = self.doFetchWithResponse;
    self.doFetchWithResponse = async (requestUrl, options) => {
      for (let attempt = 0; ; attempt++) {
        await this.gate.take();
        let result: FetchResult;
        try {
          result = await original(requestUrl, { ...options, ignoreStatus: true });
        } catch (error) {
          this.gate.failed();
          throw error;
        }
        const { status } = result.response;
        this.gate.learn(status, result.response.headers);
        if (status === 429 && attempt < RATE_LIMIT_RETRIES) continue;
        if (result.response.ok || options.ignoreStatus) return result;
        const data = (typeof result.data === "object" && result.data !== null ? result.data : {}) as Record<string, unknown>;
        throw new ClientError(this.getUrl(), {
          message: typeof data.message === "string" && data.message ? data.message : status === 429 ? "rate limited (429)" : `HTTP ${status}`,
          server_error_id: typeof data.id === "string" ? data.id : undefined,
          status_code: status,
          url: requestUrl,
        } as ConstructorParameters<typeof ClientError>[1]);
      }
    };
  }

  /** POST /api/v4/actions/dialogs/open: an interactive dialog, for the press whose trigger id this is. */
  openDialog(body: { trigger_id: string; url: string; dialog: unknown }): Promise<unknown> {
    return this.doFetch(`${this.getBaseRoute()}/actions/dialogs/open`, { method: "post", body: JSON.stringify(body) });
  }
}

/** What the client logs with console.log (a line, or an event object), as one line of ours. */
const describe = (part: unknown): string =>
  typeof part === "string" ? part : part instanceof Error || (typeof part === "object" && part !== null && "message" in part) ? String((part as { message: unknown }).message) : typeof part;

/**
 * Runs `work` with console.log routed into `log`: the Mattermost client writes its connection notes to stdout, where
 * the CLI keeps its JSON log lines. JavaScript runs one thing at a time, so nothing else is caught meanwhile.
 */
function withLog<T>(log: Log, work: () => T): T {
  const original = console.log;
  console.log = (...parts: unknown[]) => log(`websocket: ${parts.map(describe).join(" ")}`);
  try {
    return work();
  } finally {
    console.log = original;
  }
}

const HANDLERS = ["onopen", "onclose", "onerror", "onmessage"] as const;

/** A `ws` socket whose on… handlers, as the client sets them, run with console.log routed into `log`. */
function loggedSocket(url: string, log: Log): WebSocket {
  const socket = new WsWebSocket(url);
  for (const name of HANDLERS) {
    const property = Object.getOwnPropertyDescriptor(WsWebSocket.prototype, name);
    if (!property?.set || !property.get) continue;
    Object.defineProperty(socket, name, {
      configurable: true,
      get: () => property.get!.call(socket),
      set: (handler: unknown) =>
        property.set!.call(socket, typeof handler === "function" ? (...args: unknown[]) => withLog(log, () => (handler as (...a: unknown[]) => unknown)(...args)) : handler),
    });
  }
  return socket as unknown as WebSocket;
}

/** The WebSocket close event the client makes itself (Node 20 has none); only its code is read. */
class NodeCloseEvent extends Event {
  readonly code: number;
  readonly wasClean: boolean;
  constructor(type: string, init: { code?: number; wasClean?: boolean } = {}) {
    super(type);
    this.code = init.code ?? 0;
    this.wasClean = init.wasClean ?? false;
  }
}

export interface EventsSocket {
  socket: WebSocketClient;
  close(): void;
}

/**
 * The events WebSocket (`/api/v4/websocket`, the token in its authentication challenge), on `ws`: the client reads
 * `WebSocket.OPEN` and makes `CloseEvent`s from the globals, which Node 20 lacks, so they are provided where missing.
 * Its console notes go to `log`.
 */
export function createEventsSocket(client: Client4, token: string, log: Log, options: { retryMs?: number } = {}): EventsSocket {
  const globals = globalThis as unknown as { WebSocket?: unknown; CloseEvent?: unknown };
  globals.WebSocket ??= WsWebSocket;
  globals.CloseEvent ??= NodeCloseEvent;
  const socket = new WebSocketClient({
    newWebSocketFn: (url) => loggedSocket(url, log),
    minWebSocketRetryTime: options.retryMs ?? 3_000,
    reconnectJitterRange: Math.min(2_000, options.retryMs ?? 2_000),
  });
  const url = client.getWebSocketUrl().replace(/^http/u, "ws");
  withLog(log, () => socket.initialize(url, token));
  return { socket, close: () => withLog(log, () => socket.close()) };
}

export type { Log };
