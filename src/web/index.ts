import type { IncomingMessage, ServerResponse } from "node:http";
import { createTokenCheck } from "../gateway/auth.ts";
import type { HttpRoute } from "../gateway/server.ts";
import { renderLoginPage, type LoginProblem } from "./login-page.ts";
import { createSessionSigner, isSameOrigin, isSecureRequest, readCookie, SESSION_COOKIE, sessionCookieHeader } from "./session.ts";
import { loadStaticAssets, type StaticAsset } from "./static-assets.ts";

export interface ControlUiOptions {
  token: string;
  now?: () => number;
  sessionMaxAgeSeconds?: number;
}

export interface ControlUi {
  /** `/` (the page or the token form), `POST /login`, and the page's files under `/ui/`. */
  routes: HttpRoute[];
  /** Accepts a request carrying a valid session cookie from the same origin; used for `/ws` and `/rpc/*`. */
  authenticate: (req: IncomingMessage) => boolean;
}

/** Nothing loads from elsewhere, no inline script runs, and Trusted Types forbid every HTML string sink. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const MAX_LOGIN_BODY_BYTES = 4096;

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer, head = false): void {
  res.writeHead(status, { ...SECURITY_HEADERS, ...headers });
  res.end(head ? undefined : body);
}

function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_LOGIN_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_LOGIN_BODY_BYTES ? undefined : new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", reject);
  });
}

/** The web Control UI (PRODUCT.md §2): a static page that talks the gateway's WebSocket protocol. */
export function createControlUi(options: ControlUiOptions): ControlUi {
  const now = options.now ?? Date.now;
  const checkToken = createTokenCheck(options.token);
  const sessions = createSessionSigner(options.token, options.sessionMaxAgeSeconds);
  const assets = loadStaticAssets();
  const indexPage = assets.get("index.html");
  if (!indexPage) throw new Error("src/web/static/index.html is missing");
  const page: StaticAsset = indexPage;

  const hasSession = (req: IncomingMessage) => sessions.verify(readCookie(req.headers.cookie, SESSION_COOKIE), now());
  const authenticate = (req: IncomingMessage) => isSameOrigin(req) && hasSession(req);

  const loginPage = (res: ServerResponse, problem: LoginProblem, head: boolean) =>
    send(res, 401, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }, renderLoginPage(problem), head);

  /** A valid token buys a cookie and a redirect to a clean `/`, so the token never stays in the address bar. */
  const signIn = (req: IncomingMessage, res: ServerResponse) =>
    send(res, 303, { location: "/", "cache-control": "no-store", "set-cookie": sessionCookieHeader(sessions.issue(now()), sessions.maxAgeSeconds, isSecureRequest(req)) }, "");

  async function route(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://gateway");
    const head = req.method === "HEAD";
    const readable = req.method === "GET" || head;

    if (url.pathname === "/" && readable) {
      if (url.searchParams.has("token")) {
        if (checkToken(url.searchParams.get("token"))) signIn(req, res);
        else loginPage(res, "wrong-token", head);
      } else if (hasSession(req)) {
        send(res, 200, { "content-type": page.contentType, "cache-control": "no-store" }, page.body, head);
      } else {
        loginPage(res, "none", head);
      }
      return true;
    }
    if (url.pathname === "/login" && req.method === "POST") {
      const form = await readForm(req);
      if (isSameOrigin(req) && checkToken(form?.get("token")?.trim())) signIn(req, res);
      else loginPage(res, "wrong-token", false);
      return true;
    }
    const asset = readable && url.pathname.startsWith("/ui/") ? assets.get(url.pathname.slice(4)) : undefined;
    if (asset && !url.pathname.endsWith(".html")) {
      const headers = { "content-type": asset.contentType, "cache-control": "no-cache", etag: asset.etag };
      if (req.headers["if-none-match"] === asset.etag) send(res, 304, headers, "", true);
      else send(res, 200, headers, asset.body, head);
      return true;
    }
    return false;
  }

  return { routes: [route], authenticate };
}
