import type { SessionStore } from "./session-store.ts";

/** The part of a socket this needs: Node's net.Socket under a WebSocket. */
export interface LiveSocket {
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
}

/** How often pages with an open WebSocket count as using their session, and ended sessions lose their sockets. */
export const LIVE_SOCKET_CHECK_MS = 60_000;

/**
 * The WebSockets each session has open. A page with its WebSocket open is in use, so its session keeps sliding;
 * a session that ends (signed out, or past its absolute lifetime) has its sockets closed, so revoking a session
 * also cuts off the pages still open on it. The timer runs only while some socket is open.
 */
export function createSessionSockets(store: SessionStore, now: () => number, checkMs = LIVE_SOCKET_CHECK_MS) {
  const bySession = new Map<string, Set<LiveSocket>>();
  let timer: ReturnType<typeof setInterval> | undefined;

  function end(id: string): void {
    const sockets = bySession.get(id);
    bySession.delete(id);
    for (const socket of sockets ?? []) socket.destroy();
  }

  function check(): void {
    for (const id of [...bySession.keys()]) if (!store.touch(id, now())) end(id);
  }

  return {
    add(id: string, socket: LiveSocket): void {
      let sockets = bySession.get(id);
      if (!sockets) bySession.set(id, (sockets = new Set()));
      if (sockets.has(socket)) return;
      sockets.add(socket);
      timer ??= setInterval(check, checkMs).unref();
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
    /** Closes every socket of a session (after it was revoked). */
    end,
    check,
    openCount: () => [...bySession.values()].reduce((n, s) => n + s.size, 0),
  };
}
