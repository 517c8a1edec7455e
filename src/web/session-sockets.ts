import { SESSION_RECHECK_MS, type SessionCheck } from "./session-store.ts";

/** The part of a socket this needs: Node's net.Socket under a WebSocket. */
export interface LiveSocket {
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
}

/** How often the open pages' sessions are checked: as often as a request's, so a sign-out anywhere closes them soon. */
export const LIVE_SOCKET_CHECK_MS = SESSION_RECHECK_MS;

/**
 * The WebSockets each session has open. A page with its WebSocket open is in use, so its session keeps sliding;
 * a session that ends (signed out on any instance, its person's credential revoked, or past its absolute lifetime)
 * has its sockets closed, so ending a session also cuts off the pages still open on it. All open sessions are
 * checked in one store query per tick; the timer runs only while some socket is open.
 */
export function createSessionSockets(sessions: SessionCheck, now: () => number, checkMs = LIVE_SOCKET_CHECK_MS, log: (message: string, error?: unknown) => void = () => {}) {
  const bySession = new Map<string, Set<LiveSocket>>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let checking = false;

  function end(id: string): void {
    const sockets = bySession.get(id);
    bySession.delete(id);
    for (const socket of sockets ?? []) socket.destroy();
  }

  async function check(): Promise<void> {
    if (checking || bySession.size === 0) return;
    checking = true;
    try {
      for (const id of await sessions.endedAmong([...bySession.keys()], now())) end(id);
    } catch (error) {
      // The store cannot answer: the pages stay open, and the next tick asks again.
      log("could not re-check the open Control UI sessions", error);
    } finally {
      checking = false;
    }
  }

  return {
    add(id: string, socket: LiveSocket): void {
      let sockets = bySession.get(id);
      if (!sockets) bySession.set(id, (sockets = new Set()));
      if (sockets.has(socket)) return;
      sockets.add(socket);
      timer ??= setInterval(() => void check(), checkMs).unref();
      socket.once("close", () => {
        const open = bySession.get(id);
        open?.delete(socket);
        if (open?.size === 0) bySession.delete(id);
        if (bySession.size === 0) {
          clearInterval(timer);
          timer = undefined;
        }
      });
    },
    /** Closes every socket of a session (after it was signed out). */
    end,
    check,
    openCount: () => [...bySession.values()].reduce((n, s) => n + s.size, 0),
  };
}
