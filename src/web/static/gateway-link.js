/** The gateway's WebSocket protocol for the page: requests, events, and reconnection with backoff. */
export class GatewayCallError extends Error {
  constructor(code, message, issues = []) {
    super(message);
    this.code = code;
    this.issues = Array.isArray(issues) ? issues : [];
  }
}

const REQUEST_TIMEOUT_MS = 15_000;
/** Close code the gateway uses for an unauthenticated socket. */
const UNAUTHORIZED_CLOSE = 4401;

/** Exponential backoff with jitter: half to all of min(5 s, 300 ms * 2^attempt). */
function backoffDelay(attempt) {
  const ceiling = Math.min(5_000, 300 * 2 ** Math.min(attempt, 10));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * Opens `/ws` on this origin; the browser sends the session cookie, so no token is ever in the URL.
 * onStatus gets "connecting" | "open" | "reconnecting" | "closed" | "signed-out"; onOpen runs after every
 * (re)connection.
 */
export function createGatewayLink({ onOpen, onEvent, onStatus }) {
  let socket;
  let attempt = 0;
  let nextId = 1;
  let stopped = false;
  let retryTimer;
  const pending = new Map();

  function failAll(code, message) {
    for (const { reject, timer } of pending.values()) {
      clearTimeout(timer);
      reject(new GatewayCallError(code, message));
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
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame?.type === "event") onEvent(frame.event, frame.payload);
      if (frame?.type !== "res") return;
      const call = pending.get(frame.id);
      if (!call) return;
      pending.delete(frame.id);
      clearTimeout(call.timer);
      if (frame.ok) call.resolve(frame.payload);
      else call.reject(new GatewayCallError(frame.error?.code ?? "INTERNAL", frame.error?.message ?? "the gateway refused the request", frame.error?.issues));
    });
    ws.addEventListener("close", (event) => {
      if (socket !== ws) return;
      socket = undefined;
      failAll("DISCONNECTED", "the connection to the gateway dropped");
      if (stopped) return;
      if (event.code === UNAUTHORIZED_CLOSE) {
        stop("signed-out");
        return;
      }
      onStatus("reconnecting");
      retryTimer = setTimeout(connect, backoffDelay(attempt++));
    });
  }

  function stop(status = "closed") {
    stopped = true;
    clearTimeout(retryTimer);
    socket?.close();
    onStatus(status);
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
    call(method, params) {
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        return Promise.reject(new GatewayCallError("DISCONNECTED", "not connected to the gateway"));
      }
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new GatewayCallError("TIMEOUT", `${method} got no response`));
        }, REQUEST_TIMEOUT_MS);
        pending.set(id, { resolve, reject, timer });
        socket.send(JSON.stringify({ type: "req", id, method, params }));
      });
    },
  };
}
