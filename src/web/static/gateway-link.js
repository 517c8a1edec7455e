/** The gateway's WebSocket protocol for the page: requests, events, and reconnection with backoff. */
import { backoffDelay, GatewayError } from "./shared.js";
/** @import { ErrorBody } from "./shared.js" */

/** @typedef {"connecting" | "open" | "reconnecting" | "closed" | "signed-out"} LinkStatus */
/** @typedef {{ resolve: (payload: unknown) => void, reject: (error: GatewayError) => void, timer: ReturnType<typeof setTimeout> }} PendingCall */
/** @typedef {(method: string, params: object) => Promise<unknown>} GatewayCall */

const REQUEST_TIMEOUT_MS = 15_000;
/** Close code the gateway uses for an unauthenticated socket. */
const UNAUTHORIZED_CLOSE = 4401;

/**
 * Opens `/ws` on this origin; the browser sends the session cookie, so no token is ever in the URL.
 * onStatus gets the link's status; onOpen runs after every (re)connection. A failed call rejects with the
 * protocol's GatewayError (src/errors.ts), whose `code` says why.
 * @param {{ onOpen: () => void, onEvent: (name: string, payload: unknown) => void, onStatus: (status: LinkStatus) => void }} handlers
 */
export function createGatewayLink({ onOpen, onEvent, onStatus }) {
  /** @type {WebSocket | undefined} */
  let socket;
  let attempt = 0;
  let nextId = 1;
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retryTimer;
  /** @type {Map<number, PendingCall>} */
  const pending = new Map();

  function dropped() {
    for (const { reject, timer } of pending.values()) {
      clearTimeout(timer);
      reject(new GatewayError("DISCONNECTED", "the connection to the gateway dropped"));
    }
    pending.clear();
  }

  function connect() {
    clearTimeout(retryTimer);
    if (stopped) return;
    onStatus(attempt === 0 ? "connecting" : "reconnecting");
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws`);
    socket = ws;
    ws.addEventListener("open", () => {
      attempt = 0;
      onStatus("open");
      onOpen();
    });
    ws.addEventListener("message", (message) => {
      /** @type {{ type?: unknown, id?: unknown, ok?: unknown, event?: unknown, payload?: unknown, error?: ErrorBody } | null} */
      let frame;
      try {
        frame = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (frame?.type === "event" && typeof frame.event === "string") onEvent(frame.event, frame.payload);
      if (frame?.type !== "res" || typeof frame.id !== "number") return;
      const call = pending.get(frame.id);
      if (!call) return;
      pending.delete(frame.id);
      clearTimeout(call.timer);
      if (frame.ok) call.resolve(frame.payload);
      else call.reject(GatewayError.from(frame.error ?? { code: "INTERNAL", message: "the gateway refused the request" }));
    });
    ws.addEventListener("close", (event) => {
      if (socket !== ws) return;
      socket = undefined;
      dropped();
      if (stopped) return;
      if (event.code === UNAUTHORIZED_CLOSE) {
        stop("signed-out");
        return;
      }
      onStatus("reconnecting");
      retryTimer = setTimeout(connect, backoffDelay(attempt++));
    });
  }

  /** @param {LinkStatus} [status] */
  function stop(status = "closed") {
    stopped = true;
    clearTimeout(retryTimer);
    socket?.close();
    onStatus(status);
  }

  /** @type {GatewayCall} */
  function call(method, params) {
    const open = socket;
    if (!open || open.readyState !== WebSocket.OPEN) {
      return Promise.reject(new GatewayError("DISCONNECTED", "not connected to the gateway"));
    }
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new GatewayError("TIMEOUT", `${method} got no response`));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      open.send(JSON.stringify({ type: "req", id, method, params }));
    });
  }

  return {
    start: connect,
    stop,
    /** Retry at once (the browser came back online, or the tab became visible). */
    nudge() {
      if (!stopped && !socket) {
        attempt = 0;
        connect();
      }
    },
    call,
  };
}

/**
 * Whatever a call threw, as a GatewayError: a code to act on and a message to show.
 * @param {unknown} thrown
 * @returns {GatewayError}
 */
export function toGatewayError(thrown) {
  if (thrown instanceof GatewayError) return thrown;
  return new GatewayError("INTERNAL", thrown instanceof Error ? thrown.message : String(thrown), { cause: thrown });
}
