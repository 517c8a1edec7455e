import type { IncomingMessage, ServerResponse } from "node:http";
import { createTokenCheck } from "../gateway/auth/auth.ts";
import { ADMIN, WEB, type Principal } from "../gateway/auth/principal.ts";
import type { HttpRoute, WebAppCaller } from "../gateway/server/server.ts";
import { createCookiePort, createHostCheck, hostRefusal, publicPort } from "./host-check.ts";
import { renderLoginPage, type LoginProblem } from "./login-page.ts";
import { boundPort, clearedCookieHeader, isSameOrigin, isSecureRequest, readCookie, sessionCookieHeader, sessionCookieName } from "./session.ts";
import { createSessionSockets } from "./session-sockets.ts";
import { adminSessionTag, createMemorySessionStore, createSessionCheck, SESSION_ABSOLUTE_MS, type SessionHolder, type SessionStore, type SignIn } from "./session-store.ts";
import { loadStaticAssets, type StaticAsset } from "./static-assets.ts";
import { readBody, sendWith, SECURITY_HEADERS } from "./http-replies.ts";

export { CONTENT_SECURITY_POLICY } from "./http-replies.ts";

const send = sendWith(SECURITY_HEADERS);

export interface ControlUiOptions {
  token: string;
  /**
   * GATEWAY_PUBLIC_URL: the address people open the page at when it is not localhost (a proxy, a LAN name). Its host
   * is accepted besides `localhost`, `127.0.0.1` and `[::1]` at the gateway's port; every other Host is refused.
   */
  publicUrl?: string | undefined;
  /**
   * Checks a sign-in's token for the client's address; the gateway passes its guarded credential check, so sign-ins
   * share the per-address backoff of every other token check, and a person's token signs in too (`principal`: who it
   * is; none means the admin). By default: the admin token alone, without a backoff.
   */
  checkToken?: (address: string | undefined, presented: unknown) => SignInVerdict | Promise<SignInVerdict>;
  /** The address a sign-in is checked under (the gateway's, by GATEWAY_TRUSTED_PROXIES); by default the socket's peer. */
  clientAddress?: (req: IncomingMessage) => string | undefined;
  /**
   * Where sessions live: the gateway passes its store's (SQLite, PostgreSQL or memory), so every instance knows a
   * sign-in and it outlives a restart; by default in this process's memory.
   */
  sessions?: SessionStore;
  now?: () => number;
  log?: (message: string, error?: unknown) => void;
}

/** A sign-in token's check: the admin (no principal, or ADMIN), a person, or someone the Control UI does not take. */
export type SignInVerdict = { ok: true; principal?: Principal } | { ok: false; retryAfterMs: number; revoked?: boolean };

export interface ControlUi {
  /** `/` (the page or the sign-in form), `POST /login`, `POST /logout`, the page's files under `/ui/`, and `/favicon.ico`. */
  routes: HttpRoute[];
  /**
   * Who a request carrying a live session cookie, for this gateway's own host, from the same origin, is: the admin's
   * session acts as the Control UI (`web`), a person's as that person. Used for `/ws` and `/rpc/*`.
   */
  authenticate: (req: IncomingMessage) => Promise<WebAppCaller | undefined>;
}

const MAX_LOGIN_BODY_BYTES = 4096;
const NO_STORE = { "cache-control": "no-store" };
const TEXT = { "content-type": "text/plain; charset=utf-8", ...NO_STORE };

/** The sign-in form's fields, or undefined when the body is larger than a sign-in ever is. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const body = await readBody(req, MAX_LOGIN_BODY_BYTES);
  return body === undefined ? undefined : new URLSearchParams(body);
}

const isWebSocketUpgrade = (req: IncomingMessage) => req.headers.upgrade?.toLowerCase() === "websocket";

/** The page's icon, also at the address browsers try when a page names none (an SVG: Chromium and Firefox take it there). */
const FAVICON_PATH = "/favicon.ico";
const ICON_ASSET = "icon.svg";

/** The web Control UI (PRODUCT.md §2): a static page that talks the gateway's WebSocket protocol. */
export function createControlUi(options: ControlUiOptions): ControlUi {
  const now = options.now ?? Date.now;
  const plainCheck = createTokenCheck(options.token);
  const checkToken =
    options.checkToken ?? ((_address: string | undefined, presented: unknown): SignInVerdict => (plainCheck(presented) ? { ok: true } : { ok: false, retryAfterMs: 0 }));
  const clientAddress = options.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress);
  const sessions = createSessionCheck({ store: options.sessions ?? createMemorySessionStore(), adminTag: adminSessionTag(options.token), ...(options.log ? { log: options.log } : {}) });
  const sockets = createSessionSockets(sessions, now, undefined, options.log);
  const isOwnHost = createHostCheck(options.publicUrl);
  const assets = loadStaticAssets();
  const indexPage = assets.get("index.html");
  if (!indexPage) throw new Error("src/web/static/index.html is missing");
  const page: StaticAsset = indexPage;
  if (!assets.has(ICON_ASSET)) throw new Error(`src/web/static/${ICON_ASSET} is missing`);

  /** The static file a GET or HEAD asks for: one of the page's files under /ui/ (never index.html), or the icon. */
  function assetFor(pathname: string): StaticAsset | undefined {
    if (pathname === FAVICON_PATH) return assets.get(ICON_ASSET);
    return pathname.startsWith("/ui/") && !pathname.endsWith(".html") ? assets.get(pathname.slice(4)) : undefined;
  }

  const cookiePort = createCookiePort(options.publicUrl);
  const cookieName = (req: IncomingMessage) => sessionCookieName(cookiePort(req));
  /** The session id a request carries: in the cookie named for it, else in the public address's or this port's. */
  function sessionIdOf(req: IncomingMessage): string | undefined {
    const names = new Set([cookieName(req), sessionCookieName(boundPort(req)), ...(options.publicUrl ? [sessionCookieName(publicPort(options.publicUrl))] : [])]);
    for (const name of names) {
      const id = readCookie(req.headers.cookie, name);
      if (id !== undefined) return id;
    }
    return undefined;
  }
  /** The request's session, when it is live (which slides it): its id and who holds it. */
  async function liveSession(req: IncomingMessage): Promise<{ id: string; holder: SessionHolder } | undefined> {
    const id = sessionIdOf(req);
    const holder = id === undefined ? undefined : await sessions.holder(id, now());
    return holder && { id: id!, holder };
  }

  async function authenticate(req: IncomingMessage): Promise<WebAppCaller | undefined> {
    if (!isOwnHost(req) || !isSameOrigin(req)) return undefined;
    const live = await liveSession(req);
    if (!live) return undefined;
    if (isWebSocketUpgrade(req)) sockets.add(live.id, req.socket);
    const { holder } = live;
    return holder.kind === "admin"
      ? { principal: WEB }
      : { principal: { kind: "person", credentialId: holder.credentialId, name: holder.name }, tokenHash: holder.tokenHash };
  }

  const loginPage = (res: ServerResponse, problem: LoginProblem, head: boolean) =>
    send(res, 401, { "content-type": "text/html; charset=utf-8", ...NO_STORE }, renderLoginPage(problem), head);

  /** A valid token starts a session: a cookie and a redirect to a clean `/`. */
  async function signIn(req: IncomingMessage, res: ServerResponse, who: SignIn): Promise<void> {
    const cookie = sessionCookieHeader(cookieName(req), await sessions.create(who, now()), Math.floor(SESSION_ABSOLUTE_MS / 1000), isSecureRequest(req));
    send(res, 303, { location: "/", ...NO_STORE, "set-cookie": cookie }, "");
  }

  /** Who a sign-in's token signs in as, or why it does not. */
  async function signInFor(req: IncomingMessage, form: URLSearchParams | undefined): Promise<SignIn | LoginProblem> {
    if (!isSameOrigin(req)) return "wrong-token";
    const checked = checkToken(clientAddress(req), form?.get("token")?.trim());
    const verdict = checked instanceof Promise ? await checked : checked;
    if (!verdict.ok) return verdict.revoked ? "revoked" : verdict.retryAfterMs > 0 ? "locked-out" : "wrong-token";
    const principal = verdict.principal ?? ADMIN;
    if (principal.kind === "admin") return { kind: "admin" };
    if (principal.kind === "person") return { kind: "person", credentialId: principal.credentialId };
    return "not-a-person";
  }

  /** Ends the session on the server (in the store, so on every instance; its open WebSockets too) and in the browser. */
  async function signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    if (!isSameOrigin(req)) return send(res, 403, TEXT, "Sign-out must come from the Control UI itself.\n");
    const id = sessionIdOf(req);
    if (id !== undefined) {
      try {
        await sessions.end(id);
      } catch (error) {
        // Not signed out anywhere yet: say so, and keep the cookie, rather than pretend.
        options.log?.("could not end a Control UI session", error);
        return send(res, 503, TEXT, "Could not sign out: the gateway's store did not answer. Try again in a moment.\n");
      }
      sockets.end(id);
    }
    send(res, 303, { location: "/", ...NO_STORE, "set-cookie": clearedCookieHeader(cookieName(req), isSecureRequest(req)) }, "");
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://gateway");
    const head = req.method === "HEAD";
    const readable = req.method === "GET" || head;
    const post = req.method === "POST";
    const asset = readable ? assetFor(url.pathname) : undefined;
    const ours = (url.pathname === "/" && readable) || (post && (url.pathname === "/login" || url.pathname === "/logout")) || asset !== undefined;
    if (!ours) return false;

    if (!isOwnHost(req)) {
      req.resume();
      send(res, 421, TEXT, hostRefusal(options.publicUrl, boundPort(req)), head);
    } else if (asset) {
      const headers = { "content-type": asset.contentType, "cache-control": "no-cache", etag: asset.etag };
      if (req.headers["if-none-match"] === asset.etag) send(res, 304, headers, "", true);
      else send(res, 200, headers, asset.body, head);
    } else if (url.pathname === "/logout") {
      await signOut(req, res);
    } else if (url.pathname === "/login") {
      const who = await signInFor(req, await readForm(req));
      if (typeof who === "string") loginPage(res, who, false);
      else
        await signIn(req, res, who).catch((error: unknown) => {
          options.log?.("could not start a Control UI session", error);
          send(res, 503, TEXT, "Could not sign in: the gateway's store did not answer. Try again in a moment.\n");
        });
    } else if (url.searchParams.has("token")) {
      // A token in a URL is in the history and the logs by now: never trade it for a session.
      loginPage(res, "query-token", head);
    } else if ((await liveSession(req)) !== undefined) {
      send(res, 200, { "content-type": page.contentType, ...NO_STORE }, page.body, head);
    } else {
      loginPage(res, "none", head);
    }
    return true;
  }

  return { routes: [route], authenticate };
}
