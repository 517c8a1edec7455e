/**
 * What one client may cost the gateway on `/ws`: the size of a frame, and how many connections may be open.
 *
 * Frames. A frame may be PRE_AUTH_FRAME_MAX_BYTES before `connect` succeeds (a connect frame is about 100 bytes)
 * and MAX_FRAME_BYTES after. A frame that announces more is never read: its connection is destroyed as soon as the
 * frame's header arrives. Merely refusing it is not enough. ws, on its own, answers an oversized frame with a close
 * frame and then keeps reading (and discarding) whatever the peer still sends until the closing handshake ends; with
 * a 1 MiB limit, 40 connections sending 15 MiB each still grew the gateway by about 50 MiB, read in 64 KiB chunks
 * that the GC frees late. Destroying the socket at the header stops the reading there.
 *
 * Connections. At most MAX_UNAUTHENTICATED_CONNECTIONS may be open without having authenticated (a bearer token
 * or session cookie at the upgrade counts as authenticated from the start), and GATEWAY_MAX_CONNECTIONS in all;
 * past either, the upgrade is refused with 503.
 */
import type { WebSocket } from "ws";
import { MAX_FRAME_BYTES } from "../protocol/methods.ts";

export { MAX_FRAME_BYTES };
export const PRE_AUTH_FRAME_MAX_BYTES = 4 * 1024;
export const MAX_UNAUTHENTICATED_CONNECTIONS = 64;
export const DEFAULT_MAX_CONNECTIONS = 1_000;
/** How long a client has to answer the gateway's close frame before its socket is destroyed (ws's default: 30 s). */
export const CLOSE_HANDSHAKE_TIMEOUT_MS = 2_000;

/**
 * Sets the largest frame this one connection may send from now on. ws takes one `maxPayload` per server, but its
 * receiver compares every frame header's length with its own `_maxPayload` as the header arrives (ws 8,
 * `Receiver#haveLength`; the whole message's length when it comes in fragments), so changing that field
 * changes the limit for the next frame. It is ws's internal field (ws is pinned in package.json): this checks it
 * is there and returns false when it is not, and the caller then checks each message's length itself.
 */
export function setFrameLimit(socket: WebSocket, maxBytes: number): boolean {
  const receiver = (socket as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
  if (!receiver || typeof receiver._maxPayload !== "number") return false;
  receiver._maxPayload = maxBytes;
  return true;
}

/** A connection's place in the counts: given back when it authenticates, and when it closes. */
export interface ConnectionSlot {
  authenticated(): void;
  release(): void;
}

export function createConnectionCounter({ maxConnections = DEFAULT_MAX_CONNECTIONS, maxUnauthenticated = MAX_UNAUTHENTICATED_CONNECTIONS } = {}) {
  let open = 0;
  let unauthenticated = 0;
  return {
    /** Why a new connection cannot be taken now, or undefined when it can. */
    refusal(authenticated: boolean): string | undefined {
      if (open >= maxConnections) return `the gateway has ${open} connections open, its limit (GATEWAY_MAX_CONNECTIONS); try again later`;
      if (!authenticated && unauthenticated >= maxUnauthenticated) {
        return `${unauthenticated} connections are waiting to authenticate; send Authorization: Bearer <token> with the upgrade, or try again later`;
      }
      return undefined;
    },
    /** Counts a connection that was let in. */
    take(authenticated: boolean): ConnectionSlot {
      open += 1;
      let waiting = !authenticated;
      if (waiting) unauthenticated += 1;
      let released = false;
      return {
        authenticated() {
          if (!waiting || released) return;
          waiting = false;
          unauthenticated -= 1;
        },
        release() {
          if (released) return;
          released = true;
          open -= 1;
          if (waiting) unauthenticated -= 1;
        },
      };
    },
    get open() {
      return open;
    },
    get unauthenticated() {
      return unauthenticated;
    },
  };
}
