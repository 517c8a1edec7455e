import type { WebSocket } from "ws";
import { GatewayError, type ErrorBody } from "../../kernel/errors.ts";
import { toErrorBody, type Dispatch } from "./dispatch.ts";
import { isRequestFrame, parseBotStatusParams, parseSubscribeParams, requestFrameSchema } from "../../protocol/methods.ts";
import type { BotPlatformStatus, GatewayEventName } from "../../protocol/methods.ts";
import { lockoutMessage } from "../auth/auth-backoff.ts";
import { REVOKED_MESSAGE, type AuthVerdict } from "../auth/check.ts";
import type { Principal } from "../auth/principal.ts";
import { canSee, shownTo } from "../auth/scope.ts";
import { BOT_NAMES, type BotName } from "../../platforms/surfaces.ts";
import type { QuestionRecord } from "../../record/record.ts";
import { CLOSE_HANDSHAKE_TIMEOUT_MS, MAX_FRAME_BYTES, PRE_AUTH_FRAME_MAX_BYTES, setFrameLimit } from "./limits.ts";

const AUTH_DEADLINE_MS = 10_000;
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface ConnectionOptions {
  socket: WebSocket;
  dispatch: Dispatch;
  /** Who the upgrade authenticated (a bearer token or the UI's cookie); undefined until a `connect` frame does. */
  principal: Principal | undefined;
  /** The upgrade's scoped token, by its hash: checked again before every request (see `stillLive`). */
  tokenHash?: string;
  /**
   * Checks the token of a `connect` request (with this client address's backoff). The admin token is checked at
   * once; a scoped token is looked up, so a client using one waits for the connect response before sending more.
   */
  checkToken: (token: unknown) => AuthVerdict | Promise<AuthVerdict>;
  /**
   * Whether a scoped token is still live, by the rule every HTTP request follows too (auth/check.ts): a
   * revoked credential's connection refuses every request with UNAUTHORIZED and closes.
   */
  stillLive?: (tokenHash: string) => Promise<boolean>;
  /**
   * Called once, when a connection that was not authenticated at the upgrade authenticates: a refusal (its
   * credential holds all the connections it may) closes it.
   */
  onAuthenticated?: (principal: Principal) => string | undefined;
  /** Its bot surface became known (see `botSurface`): the server recounts which surfaces have a bot connected. */
  onBotSurface?: () => void;
  log: (message: string, error?: unknown) => void;
}

/**
 * An event goes to every connection with the same record: its JSON is built once and reused while the same
 * payload is sent on (the server sends one event to each connection in a row).
 */
let lastPayload: unknown;
let lastPayloadJson: string | undefined;
function payloadJson(payload: unknown): string | undefined {
  if (payload !== lastPayload || lastPayload === undefined) {
    lastPayload = payload;
    lastPayloadJson = JSON.stringify(payload) as string | undefined;
  }
  return lastPayloadJson;
}

/** The same caller: the admin token again, the UI again, or the same scoped credential. */
const samePrincipal = (a: Principal | undefined, b: Principal) =>
  a !== undefined && a.kind === b.kind && ("credentialId" in a ? a.credentialId : undefined) === ("credentialId" in b ? b.credentialId : undefined);

/** `ws`'s underlying net.Socket, to cork it: the frames of one tick then leave in one write. */
type Corkable = { cork(): void; uncork(): void; destroyed?: boolean };
function rawSocketOf(socket: WebSocket): Corkable | undefined {
  const raw = (socket as unknown as { _socket?: Partial<Corkable> | null })._socket;
  return raw && typeof raw.cork === "function" && typeof raw.uncork === "function" ? (raw as Corkable) : undefined;
}

/** One WebSocket client: authentication, request/response frames, and events with a per-connection seq. */
export function createConnection({ socket, dispatch, checkToken, stillLive, onAuthenticated, onBotSurface, log, ...options }: ConnectionOptions) {
  let principal = options.principal;
  /** The chat surface a bot declared on `connect` (`surface`): how a bot on the admin token is told apart. */
  let declaredSurface: BotName | undefined;
  let tokenHash = options.tokenHash;
  let authed = principal !== undefined;
  let seq = 0;
  /** The events this connection asked for with events.subscribe; all of them until it does. */
  let subscribed: ReadonlySet<GatewayEventName> | undefined;
  /** What the bot on it last said of its platform (`bot.status`). */
  let platform: (BotPlatformStatus & { sinceMs: number }) | undefined;
  let corked: Corkable | undefined;
  /** Waits (waitAnswer, request with waitMs) end when the connection closes. */
  const onClose = new Set<() => void>();
  let closed = false;
  const cancellation = {
    onCancel(callback: () => void): () => void {
      if (closed) {
        queueMicrotask(callback);
        return () => {};
      }
      onClose.add(callback);
      return () => onClose.delete(callback);
    },
  };
  /** Closes with a reason; a client that does not answer the close frame within 2 s (ws waits 30) is cut off. */
  const closeWith = (code: number, reason: string) => {
    socket.close(code, reason);
    setTimeout(() => socket.terminate(), CLOSE_HANDSHAKE_TIMEOUT_MS).unref();
  };
  /** The credential was revoked: the request (if any) is refused, and the connection closes. */
  function revoke(requestId: string | number | null): void {
    if (requestId !== null) respond(requestId, { error: { code: "UNAUTHORIZED", message: REVOKED_MESSAGE } });
    authed = false;
    if (!closed) closeWith(4401, "credential revoked");
  }
  const authTimer = authed ? undefined : setTimeout(() => closeWith(4401, "authenticate first"), AUTH_DEADLINE_MS);
  // Frames are limited to 4 KiB until `connect` succeeds (see limits.ts). Should ws's receiver ever not take a
  // per-connection limit, onMessage checks the length instead (the server's 1 MiB limit still holds before that).
  const preAuthLimitByWs = !authed && setFrameLimit(socket, PRE_AUTH_FRAME_MAX_BYTES);

  const uncork = () => {
    const raw = corked;
    corked = undefined;
    if (raw && !raw.destroyed) raw.uncork();
  };

  function sendText(text: string): void {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      socket.terminate(); // a client that never reads must not grow the gateway's memory
      return;
    }
    // Frames sent in the same turn of the event loop (responses, events) share one socket write instead of one
    // syscall each: the socket is corked at the first and uncorked once this turn's callbacks have run.
    if (!corked) {
      corked = rawSocketOf(socket);
      if (corked) {
        corked.cork();
        setImmediate(uncork);
      }
    }
    socket.send(text);
  }

  const send = (frame: unknown): void => sendText(JSON.stringify(frame));

  function sendEvent(event: GatewayEventName, payload: unknown): void {
    // Byte for byte what JSON.stringify({ type, event, payload, seq }) gives, with the payload serialised once.
    if (!authed) return;
    const json = payloadJson(payload);
    if (json === undefined) send({ type: "event", event, payload, seq: ++seq });
    else sendText(`{"type":"event","event":${JSON.stringify(event)},"payload":${json},"seq":${++seq}}`);
  }

  function respond(id: string | number | null, body: { payload: unknown } | { error: ErrorBody }): void {
    if ("error" in body) return send({ type: "res", id, ok: false, error: body.error });
    // question.resolve answers with the record its question.resolved event just carried: reuse that JSON.
    const json = payloadJson(body.payload);
    if (json === undefined) return send({ type: "res", id, ok: true, payload: body.payload });
    sendText(`{"type":"res","id":${JSON.stringify(id)},"ok":true,"payload":${json}}`);
  }

  async function onMessage(raw: Buffer, isBinary: boolean): Promise<void> {
    // (Frames over MAX_FRAME_BYTES never get here: ws drops their connection at the header, see the "error" handler.)
    if (!authed && !preAuthLimitByWs && raw.length > PRE_AUTH_FRAME_MAX_BYTES) {
      socket.terminate();
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
    // Well-formed frames skip zod; anything else gets zod's verdict, so what is refused, and how, is unchanged.
    const parsed = isRequestFrame(frame) ? { success: true as const, data: frame } : requestFrameSchema.safeParse(frame);
    if (!parsed.success) {
      const id = typeof frame === "object" && frame !== null && "id" in frame ? (frame as { id: unknown }).id : null;
      const safeId = typeof id === "string" || typeof id === "number" ? id : null;
      respond(safeId, { error: { code: "INVALID_FRAME", message: 'expected {type:"req", id: string|number, method: string, params?: object}' } });
      return;
    }
    const { id, method, params } = parsed.data;
    if (method === "connect") {
      const token = (params as { token?: unknown } | undefined)?.token;
      const surface = (params as { surface?: unknown } | undefined)?.surface;
      if (surface !== undefined && !(typeof surface === "string" && (BOT_NAMES as readonly string[]).includes(surface))) {
        respond(id, {
          error: { code: "INVALID_PARAMS", message: `surface must be one of ${BOT_NAMES.join(", ")}`, issues: [{ path: "surface", message: "is not a chat surface" }] },
        });
        return;
      }
      const checked = checkToken(token);
      const verdict = checked instanceof Promise ? await checked : checked;
      if (closed) return;
      if (verdict.ok) {
        if (authed && !samePrincipal(principal, verdict.principal)) {
          respond(id, { error: { code: "FORBIDDEN", message: "this connection is authenticated already; open another connection for another credential" } });
          return;
        }
        // A bot-scoped credential's own surface wins: declaring another is refused, and so is any caller not a bot;
        // refused before it authenticates anything.
        const who = verdict.principal;
        const refusal =
          surface === undefined || who.kind === "admin" ? undefined
          : who.kind === "bot" ? (who.surface === surface ? undefined : `this credential is the ${who.surface} bot's, not the ${String(surface)} bot's`)
          : "only a bot's connection declares a surface";
        if (refusal) {
          respond(id, { error: { code: "FORBIDDEN", message: refusal } });
          return;
        }
        // onMessage has not awaited yet (for the admin token): this runs within ws's "message" event, so a frame
        // pipelined right behind the connect frame is already read with the 1 MiB limit.
        if (!authed) {
          const refused = onAuthenticated?.(verdict.principal);
          if (refused) {
            respond(id, { error: { code: "UNAUTHORIZED", message: refused } });
            closeWith(4429, "too many connections for this credential");
            return;
          }
          principal = verdict.principal;
          tokenHash = verdict.tokenHash;
          authed = true;
          clearTimeout(authTimer);
          setFrameLimit(socket, MAX_FRAME_BYTES);
          if (principal.kind === "bot") onBotSurface?.();
        }
        if (surface !== undefined && declaredSurface !== surface) {
          declaredSurface = surface as BotName;
          onBotSurface?.();
        }
        respond(id, { payload: { ok: true } });
      } else if (verdict.revoked) {
        revoke(id);
      } else if (verdict.retryAfterMs > 0) {
        respond(id, { error: { code: "UNAUTHORIZED", message: lockoutMessage(verdict.retryAfterMs) } });
        closeWith(4429, "too many wrong tokens; try again later");
      } else {
        respond(id, { error: { code: "UNAUTHORIZED", message: "wrong or missing token" } });
        closeWith(4401, "unauthorized");
      }
      return;
    }
    if (!authed) {
      respond(id, { error: { code: "UNAUTHORIZED", message: "authenticate first: send a connect request with the gateway token" } });
      return;
    }
    if (method === "events.subscribe") {
      // Per connection: which events to receive from now on (an agent that only waits needs none).
      try {
        const events = parseSubscribeParams(params);
        subscribed = new Set(events);
        respond(id, { payload: { events } });
      } catch (error) {
        respond(id, { error: toErrorBody(error, log) });
      }
      return;
    }
    if (method === "bot.status") {
      // Per connection, like events.subscribe: what /readyz says of this bot's platform.
      try {
        if (!(principal?.kind === "bot" ? principal.surface : declaredSurface)) throw new GatewayError("FORBIDDEN", "only a bot's connection reports its platform's status");
        const status = parseBotStatusParams(params);
        platform = { ...status, sinceMs: platform?.reachable === status.reachable ? platform.sinceMs : Date.now() };
        respond(id, { payload: { ok: true } });
      } catch (error) {
        respond(id, { error: toErrorBody(error, log) });
      }
      return;
    }
    if (tokenHash !== undefined && !(await stillLive?.(tokenHash) ?? true)) return revoke(id);
    try {
      respond(id, { payload: await dispatch(method, params, cancellation, principal) });
    } catch (error) {
      respond(id, { error: toErrorBody(error, log) });
    }
  }

  socket.on("message", (raw: Buffer, isBinary) => {
    onMessage(raw, isBinary).catch((error) => log("connection handler failed", error));
  });
  socket.on("close", () => {
    closed = true;
    clearTimeout(authTimer);
    for (const callback of [...onClose]) {
      try {
        callback();
      } catch (error) {
        log("ending a wait on close failed", error);
      }
    }
    onClose.clear();
  });
  // ws reports a frame over the limit (announced in its header), a malformed frame or invalid UTF-8 here, after it
  // has queued a close frame. Left alone it would keep reading, and discarding, what the peer sends until the
  // closing handshake ends; destroying the socket stops reading at once.
  socket.on("error", (error) => {
    socket.terminate();
    log(`dropped a connection: ${error.message}`);
  });

  return {
    get authenticated() {
      return authed;
    },
    /** Who it authenticated as (undefined until it does): what /metrics and /readyz label it by. */
    get principal(): Principal | undefined {
      return principal;
    },
    /** The chat surface of the bot on it: its bot-scoped credential's, else the one it declared; else undefined. */
    get botSurface(): BotName | undefined {
      if (!authed) return undefined;
      return principal?.kind === "bot" ? principal.surface : declaredSurface;
    },
    /** What the bot on it last said of its platform's API (`bot.status`), with since when; undefined until it does. */
    get platform(): (BotPlatformStatus & { sinceMs: number }) | undefined {
      return platform;
    },
    /** The hash of the scoped token it authenticated with, if any: what the server re-checks. */
    get tokenHash(): string | undefined {
      return tokenHash;
    },
    /**
     * Sends an event (the service emits only what is durable), unless this connection unsubscribed from it or its
     * credential may not see that question.
     */
    event(event: GatewayEventName, record: QuestionRecord): void {
      if (!authed || (subscribed && !subscribed.has(event)) || !canSee(principal!, record)) return;
      sendEvent(event, shownTo(principal!, record));
    },
    /** Its credential was revoked: it closes (see `revoke`). */
    revoked: () => revoke(null),
  };
}

