import type { WebSocket } from "ws";
import { GatewayError, type ErrorBody } from "../errors.ts";
import { toErrorBody, type Dispatch } from "./dispatch.ts";
import { MAX_FRAME_BYTES, requestFrameSchema } from "./protocol.ts";
import type { GatewayEventName } from "./service.ts";

const AUTH_DEADLINE_MS = 10_000;
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface ConnectionOptions {
  socket: WebSocket;
  dispatch: Dispatch;
  authenticated: boolean;
  checkToken: (token: unknown) => boolean;
  log: (message: string, error?: unknown) => void;
}

/** One WebSocket client: authentication, request/response frames, and events with a per-connection seq. */
export function createConnection({ socket, dispatch, authenticated, checkToken, log }: ConnectionOptions) {
  let authed = authenticated;
  let seq = 0;
  const inFlight = new Set<AbortController>();
  const authTimer = authed ? undefined : setTimeout(() => socket.close(4401, "authenticate first"), AUTH_DEADLINE_MS);

  function send(frame: unknown): void {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      socket.terminate(); // a client that never reads must not grow the gateway's memory
      return;
    }
    socket.send(JSON.stringify(frame));
  }

  const respond = (id: unknown, body: { payload: unknown } | { error: ErrorBody }) =>
    send("error" in body ? { type: "res", id, ok: false, error: body.error } : { type: "res", id, ok: true, payload: body.payload });

  async function onMessage(raw: Buffer, isBinary: boolean): Promise<void> {
    if (raw.length > MAX_FRAME_BYTES) {
      respond(null, { error: { code: "FRAME_TOO_LARGE", message: `frames are limited to ${MAX_FRAME_BYTES} bytes (got ${raw.length})` } });
      return;
    }
    let frame: unknown;
    try {
      if (isBinary) throw new Error("binary frames are not accepted; send JSON text");
      frame = JSON.parse(raw.toString("utf8"));
    } catch (error) {
      respond(null, { error: { code: "INVALID_FRAME", message: `not a JSON text frame: ${(error as Error).message}`.slice(0, 300) } });
      return;
    }
    const parsed = requestFrameSchema.safeParse(frame);
    if (!parsed.success) {
      const id = typeof frame === "object" && frame !== null && "id" in frame ? (frame as { id: unknown }).id : null;
      const safeId = typeof id === "string" || typeof id === "number" ? id : null;
      respond(safeId, { error: { code: "INVALID_FRAME", message: 'expected {type:"req", id: string|number, method: string, params?: object}' } });
      return;
    }
    const { id, method, params } = parsed.data;
    if (method === "connect") {
      const token = (params as { token?: unknown } | undefined)?.token;
      if (checkToken(token)) {
        authed = true;
        clearTimeout(authTimer);
        respond(id, { payload: { ok: true } });
      } else {
        respond(id, { error: { code: "UNAUTHORIZED", message: "wrong or missing token" } });
        socket.close(4401, "unauthorized");
      }
      return;
    }
    if (!authed) {
      respond(id, { error: { code: "UNAUTHORIZED", message: "authenticate first: send a connect request with the gateway token" } });
      return;
    }
    const controller = new AbortController();
    inFlight.add(controller);
    try {
      respond(id, { payload: await dispatch(method, params, controller.signal) });
    } catch (error) {
      respond(id, { error: toErrorBody(error, log) });
    } finally {
      inFlight.delete(controller);
    }
  }

  socket.on("message", (raw: Buffer, isBinary) => {
    onMessage(raw, isBinary).catch((error) => log("connection handler failed", error));
  });
  socket.on("close", () => {
    clearTimeout(authTimer);
    for (const controller of inFlight) controller.abort();
  });
  socket.on("error", (error) => log("socket error", error));

  return {
    get authenticated() {
      return authed;
    },
    event(event: GatewayEventName, payload: unknown): void {
      if (authed) send({ type: "event", event, payload, seq: ++seq });
    },
  };
}

