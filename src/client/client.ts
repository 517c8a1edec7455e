import { WebSocket } from "ws";
import { GatewayError } from "../kernel/errors.ts";
import type { MethodName } from "../protocol/methods.ts";
import type { GatewayEventName } from "../protocol/methods.ts";
import type { QuestionRecord } from "../record/record.ts";
import { backoffDelay } from "../kernel/backoff.ts";
import { listAll } from "./list-pages.ts";
import { createPendingCalls, parseFrame } from "./pending-calls.ts";

export interface ConnectOptions {
  /** http(s)://host:port or ws(s)://host:port; `/ws` is added when missing. */
  url: string;
  token: string;
  /** Keep retrying when the first connection fails (bots), instead of rejecting (CLI). */
  retryInitial?: boolean;
  /** How long a request made while disconnected waits for the link before failing with DISCONNECTED. */
  offlineWaitMs?: number;
  /** Default per-request timeout (waitAnswer is bounded by its own timeoutMs). */
  requestTimeoutMs?: number;
  /**
   * The events this client wants (`events.subscribe`, sent on every connection). Default: all of them. An agent that
   * only asks and waits passes `[]` and is spared every other question's events.
   */
  events?: GatewayEventName[];
  /**
   * A bot's chat surface, declared on every connection (a `connect` frame with `surface`), so the gateway knows a bot
   * of it is connected even on the admin token; a bot-scoped token's own surface must match.
   */
  surface?: string;
  log?: (message: string, error?: unknown) => void;
}

type Listener = (record: QuestionRecord) => void;

export interface ClientEvents {
  "question.requested": Listener;
  "question.resolved": Listener;
  "question.updated": Listener;
  /** A reminder came due; `record.remindersSent` names it. */
  "question.reminded": Listener;
  /** An escalation step was taken; `record.escalated` names it, and its targets are in `record.targets`. */
  "question.escalated": Listener;
  /** An expired question got a late answer (`record.lateAnswer`). */
  "question.lateAnswered": Listener;
  /** After every reconnection (not the first connection), with a fresh list of pending questions. */
  resync: (pending: QuestionRecord[]) => void;
  connected: () => void;
  disconnected: (reason: string) => void;
}

export function toWsUrl(url: string): string {
  const u = new URL(url);
  if (u.protocol === "http:") u.protocol = "ws:";
  if (u.protocol === "https:") u.protocol = "wss:";
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/ws";
  return u.toString();
}

/** A connection to the gateway's WebSocket protocol, reconnecting with backoff. */
export class GatewayConnection {
  #socket: WebSocket | undefined;
  #calls = createPendingCalls();
  #listeners = new Map<keyof ClientEvents, Set<(...args: any[]) => void>>();
  #waitingForLink = new Set<(error?: GatewayError) => void>();
  #attempt = 0;
  #closed = false;
  #everConnected = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #url: string;
  readonly #options: ConnectOptions;

  constructor(options: ConnectOptions) {
    this.#options = options;
    this.#url = toWsUrl(options.url);
  }

  get connected(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): () => void {
    const set = this.#listeners.get(event) ?? new Set();
    set.add(listener);
    this.#listeners.set(event, set);
    return () => set.delete(listener);
  }

  #emit<E extends keyof ClientEvents>(event: E, ...args: Parameters<ClientEvents[E]>): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        listener(...args);
      } catch (error) {
        this.#options.log?.(`listener for ${event} failed`, error);
      }
    }
  }

  /** Opens the first connection. Rejects on a wrong token, or on no gateway unless retryInitial. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        this.#dial()
          .then(resolve)
          .catch((error: GatewayError) => {
            if (error.code === "UNAUTHORIZED" || !this.#options.retryInitial || this.#closed) reject(error);
            else this.#reconnectTimer = setTimeout(attempt, backoffDelay(this.#attempt++));
          });
      };
      attempt();
    });
  }

  #dial(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.#url, { headers: { authorization: `Bearer ${this.#options.token}` }, handshakeTimeout: 10_000 });
      let opened = false;
      socket.on("unexpected-response", (_req, res) => {
        const code = res.statusCode === 401 ? "UNAUTHORIZED" : "DISCONNECTED";
        reject(new GatewayError(code, code === "UNAUTHORIZED" ? "the gateway refused the token" : `the gateway answered HTTP ${res.statusCode}`));
        socket.terminate();
      });
      socket.on("error", (error) => {
        if (!opened) reject(new GatewayError("DISCONNECTED", `cannot reach the gateway at ${this.#url}: ${error.message}`, { cause: error }));
      });
      socket.on("open", () => {
        if (this.#closed) {
          socket.close();
          reject(new GatewayError("DISCONNECTED", "the client is closed"));
          return;
        }
        opened = true;
        this.#socket = socket;
        this.#attempt = 0;
        this.#startHeartbeat(socket);
        for (const wake of this.#waitingForLink) wake();
        this.#waitingForLink.clear();
        const reconnect = this.#everConnected;
        this.#everConnected = true;
        if (this.#options.surface !== undefined) {
          this.call("connect", { token: this.#options.token, surface: this.#options.surface }).catch((error) => this.#options.log?.("declaring the bot's surface failed", error));
        }
        if (this.#options.events) {
          // Sent first on this link, so no event it filters out arrives after a response to a later request.
          this.call("events.subscribe", { events: this.#options.events }).catch((error) => this.#options.log?.("events.subscribe failed", error));
        }
        this.#emit("connected");
        if (reconnect) this.#resync(socket, 0);
        resolve();
      });
      socket.on("message", (data) => this.#onFrame(data.toString()));
      socket.on("close", (code, reason) => {
        if (!opened) return;
        this.#onDrop(`closed (${code}${reason.length ? ` ${reason.toString()}` : ""})`);
      });
    });
  }

  /**
   * After a reconnect: every pending question, page after page, for the `resync` listeners. Tried again with backoff
   * while this link stays up (the gateway's database may be down for a moment); the next link starts its own.
   */
  #resync(socket: WebSocket, attempt: number): void {
    listAll((method, params) => this.call(method, params), { status: "pending" })
      .then((questions) => this.#emit("resync", questions))
      .catch((error) => {
        this.#options.log?.("resync failed", error);
        if (this.#closed || this.#socket !== socket || attempt >= 8) return;
        setTimeout(() => {
          if (!this.#closed && this.#socket === socket) this.#resync(socket, attempt + 1);
        }, backoffDelay(attempt)).unref();
      });
  }

  #startHeartbeat(socket: WebSocket): void {
    let alive = true;
    socket.on("pong", () => (alive = true));
    clearInterval(this.#heartbeat);
    this.#heartbeat = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, 15_000);
    this.#heartbeat.unref();
  }

  #onDrop(reason: string): void {
    clearInterval(this.#heartbeat);
    this.#socket = undefined;
    this.#calls.failAll(new GatewayError("DISCONNECTED", `the gateway link dropped: ${reason}`));
    this.#emit("disconnected", reason);
    if (this.#closed) return;
    const retry = () => {
      this.#dial().catch(() => {
        if (!this.#closed) this.#reconnectTimer = setTimeout(retry, backoffDelay(this.#attempt++));
      });
    };
    this.#reconnectTimer = setTimeout(retry, backoffDelay(this.#attempt++));
  }

  #onFrame(text: string): void {
    const frame = parseFrame(text);
    if (!frame) return this.#options.log?.("ignored a frame that is not a JSON object");
    if (this.#calls.settle(frame)) return;
    if (frame.type === "event" && typeof frame.event === "string") this.#emit(frame.event as GatewayEventName, frame.payload as QuestionRecord);
  }

  #waitForLink(): Promise<void> {
    if (this.connected) return Promise.resolve();
    if (this.#closed) return Promise.reject(new GatewayError("DISCONNECTED", "the client is closed"));
    const waitMs = this.#options.offlineWaitMs ?? 15_000;
    return new Promise((resolve, reject) => {
      const wake = (error?: GatewayError) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => {
        this.#waitingForLink.delete(wake);
        reject(new GatewayError("DISCONNECTED", `the gateway is unreachable (waited ${waitMs} ms)`));
      }, waitMs);
      this.#waitingForLink.add(wake);
    });
  }

  /** Sends one request. Fails with DISCONNECTED if the link drops before the answer, never hangs. */
  async call<T = unknown>(method: MethodName | (string & {}), params: unknown = {}, { timeoutMs }: { timeoutMs?: number } = {}): Promise<T> {
    await this.#waitForLink();
    const socket = this.#socket!;
    const limit = timeoutMs ?? this.#options.requestTimeoutMs ?? 30_000;
    return this.#calls.request<T>(method, params, limit, (text, fail) => socket.send(text, (error) => error && fail(error)));
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    clearInterval(this.#heartbeat);
    this.#socket?.close();
    this.#socket = undefined;
    const error = new GatewayError("DISCONNECTED", "the client is closed");
    this.#calls.failAll(error);
    for (const wake of this.#waitingForLink) wake(error);
    this.#waitingForLink.clear();
  }
}
