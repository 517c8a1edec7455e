import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { readCappedBody } from "../../kernel/capped-body.ts";
import { GatewayError, type ErrorBody } from "../../kernel/errors.ts";
import { bearerToken } from "../auth/auth.ts";
import { createAuthBackoff, lockoutMessage, retryAfterSeconds, type AuthBackoff } from "../auth/auth-backoff.ts";
import { createCredentialCheck, CREDENTIAL_RECHECK_MS, REVOKED_MESSAGE, type AuthVerdict } from "../auth/check.ts";
import type { Principal } from "../auth/principal.ts";
import type { CredentialStore } from "../auth/store.ts";
import { socketAddress, type ClientAddress } from "./client-address.ts";
import { createDispatcher, toErrorBody } from "./dispatch.ts";
import { CLOSE_HANDSHAKE_TIMEOUT_MS, createConnectionCounter, DEFAULT_MAX_CONNECTIONS, MAX_FRAME_BYTES } from "./limits.ts";
import { isCrossOrigin } from "./origin.ts";
import type { QuestionService } from "../service/service.ts";
import type { ConnectionSnapshot } from "./metrics.ts";
import { createHealthRoutes, sendJson, type HealthOptions } from "./health-routes.ts";
import { createConnection } from "./ws-connection.ts";

/**
 * Who a request is by some credential other than a bearer token (a web app's session cookie), or undefined. A
 * `tokenHash` (a person's credential) is re-checked like a scoped bearer token's: before every frame, and by the sweep.
 */
export type RequestAuthenticator = (req: IncomingMessage) => Promise<WebAppCaller | undefined>;
export interface WebAppCaller {
  principal: Principal;
  tokenHash?: string;
}

/** Extra HTTP routes (the Control UI); return true when handled. */
export type HttpRoute = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

export interface GatewayServerOptions {
  service: QuestionService;
  token: string;
  host?: string;
  port?: number;
  routes?: HttpRoute[];
  /** Alternative ways a request may authenticate (the UI's session cookie): it then acts as the UI (`web`) or a person. */
  authenticate?: RequestAuthenticator;
  /** Scoped credentials (agents, bots), besides `token`, the admin credential. */
  credentials?: CredentialStore;
  /** The per-address backoff for wrong tokens; pass one to share it with a web app's sign-in. */
  backoff?: AuthBackoff;
  /** The address the backoff counts a request under (createClientAddress, GATEWAY_TRUSTED_PROXIES); by default the socket's peer. */
  clientAddress?: ClientAddress;
  /** Open WebSocket connections at most (GATEWAY_MAX_CONNECTIONS); 64 of them may be unauthenticated. */
  maxConnections?: number;
  /** Open WebSocket connections and HTTP long-polls one scoped credential may hold (GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL). */
  maxConnectionsPerCredential?: number;
  log?: (message: string, error?: unknown) => void;
  /** /metrics and /readyz (see health-routes.ts); without it, /metrics is 404 and /readyz checks no store. */
  health?: Omit<HealthOptions, "connections" | "backoff" | "clientAddress">;
}

const HTTP_STATUS: Partial<Record<ErrorBody["code"], number>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  QUOTA_EXCEEDED: 429,
  INVALID_PARAMS: 400,
  INVALID_FRAME: 400,
  FRAME_TOO_LARGE: 413,
  UNKNOWN_METHOD: 404,
  QUESTION_NOT_FOUND: 404,
  QUESTION_ALREADY_TERMINAL: 409,
  SESSION_HAS_PENDING_QUESTION: 409,
  DUPLICATE_REPLY: 409,
  QUESTION_INVALID_ANSWER: 422,
  CREDENTIAL_REFUSED: 422,
  STORE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** Refuses a WebSocket upgrade with a plain-text reason, then lets go of the socket. */
function refuseUpgrade(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}): void {
  const body = `${reason}\n`;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
    "Connection: close",
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
  // The server keeps half-open sockets; one whose client never closes its side must not stay.
  setTimeout(() => socket.destroy(), CLOSE_HANDSHAKE_TIMEOUT_MS).unref();
}

/** An HTTP request that waits for an answer: it holds a place of its credential's, like a socket (issue 37 §7). */
const isLongPoll = (method: string, params: unknown) =>
  method === "question.waitAnswer" ||
  (method === "question.request" && typeof params === "object" && params !== null && typeof (params as { waitMs?: unknown }).waitMs === "number" && (params as { waitMs: number }).waitMs > 0);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const body = await readCappedBody(req, MAX_FRAME_BYTES);
  if (body === undefined) throw new GatewayError("FRAME_TOO_LARGE", `request bodies are limited to ${MAX_FRAME_BYTES} bytes`);
  return body;
}

/** The gateway's HTTP server: `/ws` (WebSocket protocol), `POST /rpc/<method>` (HTTP mirror), `/healthz`, plus routes. */
export function createGatewayServer(options: GatewayServerOptions) {
  const { service } = options;
  const log = options.log ?? ((message, error) => console.error(`[gateway] ${message}`, error ?? ""));
  // Every token check goes through the per-address backoff (auth/auth-backoff.ts).
  const backoff = options.backoff ?? createAuthBackoff();
  const clientAddress = options.clientAddress ?? socketAddress;
  const credentialCheck = createCredentialCheck({
    adminToken: options.token,
    backoff,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    log,
  });
  const checkToken = credentialCheck.check;
  const counter = createConnectionCounter({
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    ...(options.maxConnectionsPerCredential ? { maxPerCredential: options.maxConnectionsPerCredential } : {}),
  });

  /** A request's credentials: a bearer token (checked with the backoff), else the web app's own (a cookie). */
  async function authorize(req: IncomingMessage): Promise<AuthVerdict> {
    const viaWebApp = async (): Promise<AuthVerdict> => {
      const caller = await options.authenticate?.(req).catch((error: unknown) => {
        // The store cannot answer: no session can be checked, so none is let in.
        log("could not check a Control UI session", error);
        return undefined;
      });
      return caller ? { ok: true, ...caller } : { ok: false, retryAfterMs: 0 };
    };
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) return viaWebApp();
    const checked = checkToken(clientAddress(req), presented);
    const verdict = checked instanceof Promise ? await checked : checked;
    if (verdict.ok || verdict.retryAfterMs > 0) return verdict;
    const web = await viaWebApp();
    return web.ok ? web : verdict;
  }

  const dispatch = createDispatcher(service);
  /** The open connections, each with when it opened and when it last sent a frame, a ping or a pong (for /readyz). */
  const connections = new Map<ReturnType<typeof createConnection>, { connectedAtMs: number; lastSeenMs: number }>();
  function connectionSnapshots(): ConnectionSnapshot[] {
    return [...connections].map(([connection, times]) => {
      const principal = connection.principal;
      const role = principal?.kind ?? "unauthenticated";
      const bot = connection.botSurface;
      const surface = bot ?? (principal?.kind === "person" ? "web" : role);
      const platform = connection.platform;
      return { role, surface, bot: bot !== undefined, ...times, ...(platform ? { platform } : {}) };
    });
  }
  /** Tells the service which chat surfaces have a bot connected here (issue 30: a target with no bot says so). */
  function reportBots(): void {
    const surfaces = new Set<string>();
    for (const connection of connections.keys()) if (connection.botSurface) surfaces.add(connection.botSurface);
    service.botsConnectedHere(surfaces);
  }
  const health = createHealthRoutes({ ...options.health, connections: connectionSnapshots, backoff, clientAddress });

  const unsubscribe = service.subscribe((event, record) => {
    for (const connection of connections.keys()) connection.event(event, record);
  });

  // Revocation reaches open sockets: every open connection's scoped credential is re-checked (in one query) as often
  // as an HTTP request's, and the revoked ones close. Each frame is checked by the same rule (ws-connection.ts).
  let sweeping = false;
  const sweep = setInterval(() => {
    const byHash = new Map<string, Array<ReturnType<typeof createConnection>>>();
    for (const connection of connections.keys()) {
      const hash = connection.tokenHash;
      if (hash !== undefined) byHash.set(hash, [...(byHash.get(hash) ?? []), connection]);
    }
    if (byHash.size === 0 || sweeping) return;
    sweeping = true;
    credentialCheck
      .revokedAmong(byHash.keys())
      .then((revoked) => {
        for (const hash of revoked) for (const connection of byHash.get(hash) ?? []) connection.revoked();
      })
      .catch((error: unknown) => log("could not re-check the open connections' credentials", error))
      .finally(() => {
        sweeping = false;
      });
  }, CREDENTIAL_RECHECK_MS);
  sweep.unref();

  async function handleRpc(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const requestId = req.headers["x-request-id"] ?? null;
    const fail = (error: ErrorBody) => sendJson(res, HTTP_STATUS[error.code] ?? 400, { type: "res", id: requestId, ok: false, error });
    const auth = await authorize(req);
    if (!auth.ok && auth.retryAfterMs > 0) {
      res.setHeader("retry-after", String(retryAfterSeconds(auth.retryAfterMs)));
      return sendJson(res, 429, { type: "res", id: requestId, ok: false, error: { code: "UNAUTHORIZED", message: lockoutMessage(auth.retryAfterMs) } });
    }
    if (!auth.ok) return fail({ code: "UNAUTHORIZED", message: auth.revoked ? REVOKED_MESSAGE : "send the gateway token as Authorization: Bearer <token>" });
    let params: unknown;
    try {
      const body = await readBody(req);
      params = body.length === 0 ? {} : JSON.parse(body.toString("utf8"));
    } catch (error) {
      return fail(error instanceof GatewayError ? error.toBody() : { code: "INVALID_FRAME", message: `the body is not JSON: ${(error as Error).message}`.slice(0, 300) });
    }
    // A long-poll takes a place of its credential's, with its sockets: 2,000 of them from one agent token are refused
    // past GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL as its sockets are, and give it back when they end.
    const held = isLongPoll(method, params) ? counter.hold(auth.principal) : undefined;
    if (held && !held.ok) return fail({ code: "QUOTA_EXCEEDED", message: held.refusal });
    const controller = new AbortController();
    res.on("close", () => {
      controller.abort();
      if (held?.ok) held.release();
    });
    try {
      const payload = await dispatch(method, params, controller.signal, auth.principal);
      sendJson(res, 200, { type: "res", id: requestId, ok: true, payload });
    } catch (error) {
      fail(toErrorBody(error, log));
    } finally {
      if (held?.ok) held.release();
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://gateway");
      if (await health(req, res, url.pathname)) return;
      const rpc = /^\/rpc\/([A-Za-z.]+)$/.exec(url.pathname);
      if (rpc) {
        if (req.method !== "POST") return sendJson(res, 405, { ok: false, error: { code: "INVALID_FRAME", message: "use POST" } });
        return handleRpc(req, res, rpc[1]!);
      }
      for (const route of options.routes ?? []) if (await route(req, res)) return;
      sendJson(res, 404, { ok: false, error: { code: "UNKNOWN_METHOD", message: "not found" } });
    })().catch((error) => {
      log("http handler failed", error);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: "INTERNAL", message: "internal error" } });
    });
  });

  // A frame over 1 MiB (4 KiB before connect, set per connection) drops its connection at its header: see
  // limits.ts. No compression, so a frame's length is what it costs.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://gateway");
    if (url.pathname !== "/ws") return refuseUpgrade(socket, 404, "not found");
    // Any web page may open a WebSocket to any address (with its cookies): only the gateway's own pages may here.
    if (isCrossOrigin(req)) return refuseUpgrade(socket, 403, "WebSocket upgrades from another origin are refused");
    void upgrade(req, socket, head).catch((error) => {
      log("upgrade failed", error);
      socket.destroy();
    });
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const auth = await authorize(req);
    if (socket.destroyed) return;
    if (!auth.ok && auth.retryAfterMs > 0) return refuseUpgrade(socket, 429, lockoutMessage(auth.retryAfterMs), { "Retry-After": String(retryAfterSeconds(auth.retryAfterMs)) });
    // A wrong bearer token is refused here; no credentials at all may still send a connect frame.
    if (!auth.ok && bearerToken(req.headers.authorization) !== undefined) return refuseUpgrade(socket, 401, auth.revoked ? REVOKED_MESSAGE : "wrong token");
    const principal = auth.ok ? auth.principal : undefined;
    const refusal = counter.refusal(principal);
    if (refusal) return refuseUpgrade(socket, 503, refusal);
    const address = clientAddress(req);
    // handleUpgrade calls back synchronously (no verifyClient), so the count checked above is still the count here.
    wss.handleUpgrade(req, socket, head, (ws) => {
      const slot = counter.take(principal);
      const connection = createConnection({
        socket: ws,
        dispatch,
        principal,
        ...(auth.ok && auth.tokenHash !== undefined ? { tokenHash: auth.tokenHash } : {}),
        checkToken: (token) => checkToken(address, token),
        stillLive: credentialCheck.stillLive,
        onAuthenticated: (who) => slot.authenticated(who),
        onBotSurface: reportBots,
        log,
      });
      const times = { connectedAtMs: Date.now(), lastSeenMs: Date.now() };
      connections.set(connection, times);
      if (connection.botSurface) reportBots(); // a bot-scoped token at the upgrade
      const touch = () => {
        times.lastSeenMs = Date.now();
      };
      ws.on("message", touch);
      ws.on("pong", touch);
      ws.on("ping", touch); // the client's heartbeat: every 15 s, idle or not
      ws.on("close", () => {
        slot.release();
        connections.delete(connection);
        reportBots();
      });
    });
  }

  return {
    server,
    /** The open connections, for /metrics. */
    connections: connectionSnapshots,
    async listen(): Promise<{ host: string; port: number; url: string }> {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port ?? 8787, options.host ?? "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      return { host: address.address, port: address.port, url: `http://${host}:${address.port}` };
    },
    async close(): Promise<void> {
      unsubscribe();
      clearInterval(sweep);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
