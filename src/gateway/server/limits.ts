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
 * past either, the upgrade is refused with 503. One scoped credential may hold GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL,
 * and the last RESERVED_CONNECTIONS places are only for the admin token, bots and the Control UI: one agent token
 * cannot lock out the operators and the bots. An HTTP long-poll (`POST /rpc/question.waitAnswer`, or
 * `question.request` with `waitMs`) holds one of its credential's places while it waits, like a socket (issue 37 §7:
 * one agent token held 2,000 of them); it is not counted in GATEWAY_MAX_CONNECTIONS, which counts sockets.
 */
import type { WebSocket } from "ws";
import { MAX_FRAME_BYTES } from "../../protocol/methods.ts";
import type { Principal } from "../auth/principal.ts";

export { MAX_FRAME_BYTES };
export const PRE_AUTH_FRAME_MAX_BYTES = 4 * 1024;
export const MAX_UNAUTHENTICATED_CONNECTIONS = 64;
export const DEFAULT_MAX_CONNECTIONS = 1_000;
export const DEFAULT_MAX_CONNECTIONS_PER_CREDENTIAL = 100;
/** The last places of GATEWAY_MAX_CONNECTIONS, which only the admin token, bots and the Control UI may take. */
export const RESERVED_CONNECTIONS = 16;
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
  /** It authenticated (a `connect` frame) as `principal`: the refusal when that credential holds its share already. */
  authenticated(principal: Principal): string | undefined;
  release(): void;
}

export interface ConnectionLimits {
  /** GATEWAY_MAX_CONNECTIONS: connections in all. */
  maxConnections?: number;
  maxUnauthenticated?: number;
  /** GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL: connections one scoped credential (an agent's or a bot's) may hold. */
  maxPerCredential?: number;
  /** The last places, kept for the admin token, bots and the Control UI (default: RESERVED_CONNECTIONS, at most a tenth). */
  reserved?: number;
}

/** Who may take the reserved places: not agents, not people (there may be many), and not connections that have not authenticated yet. */
const mayTakeReserved = (principal: Principal | undefined) => principal !== undefined && principal.kind !== "agent" && principal.kind !== "person";
const credentialOf = (principal: Principal | undefined) => (principal && "credentialId" in principal ? principal.credentialId : undefined);

export function createConnectionCounter({
  maxConnections = DEFAULT_MAX_CONNECTIONS,
  maxUnauthenticated = MAX_UNAUTHENTICATED_CONNECTIONS,
  maxPerCredential = DEFAULT_MAX_CONNECTIONS_PER_CREDENTIAL,
  reserved = Math.min(RESERVED_CONNECTIONS, Math.floor(maxConnections / 10)),
}: ConnectionLimits = {}) {
  let open = 0;
  let unauthenticated = 0;
  const perCredential = new Map<string, number>();

  function credentialRefusal(principal: Principal | undefined): string | undefined {
    const id = credentialOf(principal);
    const held = id === undefined ? 0 : (perCredential.get(id) ?? 0);
    if (held < maxPerCredential) return undefined;
    const name = principal && "name" in principal ? ` (${principal.name})` : "";
    return `credential ${id}${name} has ${held} connections open, its limit (GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL); close some or try again later`;
  }
  function count(principal: Principal | undefined): () => void {
    const id = credentialOf(principal);
    if (id === undefined) return () => {};
    perCredential.set(id, (perCredential.get(id) ?? 0) + 1);
    return () => {
      const left = (perCredential.get(id) ?? 1) - 1;
      if (left > 0) perCredential.set(id, left);
      else perCredential.delete(id);
    };
  }

  return {
    /** Why a new connection (authenticated at the upgrade as `principal`, or not yet) cannot be taken now. */
    refusal(principal: Principal | undefined): string | undefined {
      if (open >= maxConnections) return `the gateway has ${open} connections open, its limit (GATEWAY_MAX_CONNECTIONS); try again later`;
      if (!mayTakeReserved(principal) && open >= maxConnections - reserved) {
        return `the gateway has ${open} connections open; its last ${reserved} places (of GATEWAY_MAX_CONNECTIONS) are kept for the admin token and bots; try again later`;
      }
      if (!principal && unauthenticated >= maxUnauthenticated) {
        return `${unauthenticated} connections are waiting to authenticate; send Authorization: Bearer <token> with the upgrade, or try again later`;
      }
      return credentialRefusal(principal);
    },
    /**
     * An HTTP long-poll of `principal` (only a scoped credential's is counted): its place among the credential's, to
     * give back when it ends, or the refusal when the credential holds its share already.
     */
    hold(principal: Principal): { ok: true; release: () => void } | { ok: false; refusal: string } {
      const refusal = credentialRefusal(principal);
      if (refusal) return { ok: false, refusal };
      const uncount = count(principal);
      let released = false;
      return {
        ok: true,
        release() {
          if (released) return;
          released = true;
          uncount();
        },
      };
    },
    /** Counts a connection that was let in. */
    take(principal: Principal | undefined): ConnectionSlot {
      open += 1;
      let waiting = !principal;
      if (waiting) unauthenticated += 1;
      let uncount = count(principal);
      let released = false;
      return {
        authenticated(who) {
          if (!waiting || released) return undefined;
          const refused = credentialRefusal(who);
          if (refused) return refused;
          waiting = false;
          unauthenticated -= 1;
          uncount = count(who);
          return undefined;
        },
        release() {
          if (released) return;
          released = true;
          open -= 1;
          if (waiting) unauthenticated -= 1;
          uncount();
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
