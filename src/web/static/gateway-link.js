/** The gateway's WebSocket protocol for the page: requests, events, and reconnection with backoff. */
import { backoffDelay, createPendingCalls, GatewayError, parseFrame } from "./shared.js";

/** @typedef {"connecting" | "open" | "reconnecting" | "closed" | "signed-out"} LinkStatus */
/** @typedef {(method: string, params: object) => Promise<unknown>} GatewayCall */

const REQUEST_TIMEOUT_MS = 15_000;
/** Close code the gateway uses for an unauthenticated socket. */
const UNAUTHORIZED_CLOSE = 4401;

/**
 * Opens `/ws` on this origin; the browser sends the session cookie, so no token is ever in the URL.
 * onStatus gets the link's status; onOpen runs after every (re)connection. A failed call rejects with the
 * protocol's GatewayError (src/kernel/errors.ts), whose `code` says why.
 * @param {{ onOpen: () => void, onEvent: (name: string, payload: unknown) => void, onStatus: (status: LinkStatus) => void }} handlers
 */
export function createGatewayLink({ onOpen, onEvent, onStatus }) {
  /** @type {WebSocket | undefined} */
  let socket;
  let attempt = 0;
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retryTimer;
  const calls = createPendingCalls();

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
      const frame = parseFrame(String(message.data));
      if (!frame || calls.settle(frame)) return;
      if (frame.type === "event" && typeof frame.event === "string") onEvent(frame.event, frame.payload);
    });
    ws.addEventListener("close", (event) => {
      if (socket !== ws) return;
      socket = undefined;
      calls.failAll(new GatewayError("DISCONNECTED", "the connection to the gateway dropped"));
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
    return calls.request(method, params, REQUEST_TIMEOUT_MS, (text) => open.send(text));
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
