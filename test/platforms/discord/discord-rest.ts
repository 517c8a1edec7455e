import type { IncomingMessage, ServerResponse } from "node:http";
import { createResponseHolds } from "../../fakes/held-responses.ts";

/** One REST call as the fake saw it. `route` is the template (`/channels/:id/messages/:id`), for assertions. */
export interface RestCall {
  method: string;
  path: string;
  route: string;
  body: any;
  status: number;
  /** When the fake answered it (Date.now()). */
  atMs?: number;
}

export interface RestResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type RestHandler = (req: { params: string[]; body: any; query: URLSearchParams }) => RestResult;
export type RestRoute = [method: string, route: string, handler: RestHandler];

/** Discord's JSON error body: `{ code, message }` with a numeric JSON error code. */
export const restError = (status: number, code: number, message: string): RestResult => ({ status, body: { code, message } });
export const restOk = (body: unknown): RestResult => ({ status: 200, body });
export const NO_CONTENT: RestResult = { status: 204 };

const CONTENT_MAX = 2000;

/** Discord's own checks on a message body, as an Invalid Form Body reason. */
export function invalidMessageBody(body: any): string | undefined {
  if (typeof body.content === "string" && body.content.length > CONTENT_MAX) return `content: must be ${CONTENT_MAX} or fewer in length`;
  const rows = body.components ?? [];
  if (rows.length > 5) return "components: must be 5 or fewer in length";
  for (const row of rows) {
    if (row.type !== 1 || !Array.isArray(row.components) || row.components.length === 0 || row.components.length > 5) return "components: an action row holds 1-5 components";
    for (const button of row.components) {
      if (button.type !== 2 || typeof button.custom_id !== "string" || button.custom_id.length > 100) return "components: custom_id must be 100 or fewer in length";
      if (typeof button.label !== "string" || button.label.length > 80) return "components: label must be 80 or fewer in length";
    }
  }
  return undefined;
}

/** A 429 as Discord sends it: the JSON body and the rate-limit headers discord.js's queue reads. */
function rateLimited(seconds: number): RestResult {
  return {
    status: 429,
    body: { message: "You are being rate limited.", retry_after: seconds, global: false },
    headers: {
      "retry-after": String(Math.ceil(seconds)),
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(Date.now() / 1000 + seconds),
      "x-ratelimit-reset-after": String(seconds),
      "x-ratelimit-bucket": "fake-channel-messages",
      "x-ratelimit-scope": "user",
    },
  };
}

/**
 * The REST half of the fake: routes under /api/v10, `Authorization: Bot <token>` on every route but the
 * interaction and webhook ones (which authenticate by their token), queued 429s, and a log of every call.
 */
export function createFakeRest(token: string, routes: () => RestRoute[]) {
  const calls: RestCall[] = [];
  const rateLimits: Array<{ route: string; seconds: number }> = [];
  const holds = createResponseHolds();
  let compiled: Array<{ method: string; route: string; handler: RestHandler; pattern: RegExp }> | undefined;

  function resultFor(method: string, path: string, route: string | undefined, body: any, query: URLSearchParams, auth: string | undefined, handler?: RestHandler, params: string[] = []): RestResult {
    if (!route || !handler) return restError(404, 0, "404: Not Found");
    const tokenAuthenticated = route.startsWith("/webhooks/") || route.startsWith("/interactions/");
    if (!tokenAuthenticated && auth !== `Bot ${token}`) return restError(401, 0, "401: Unauthorized");
    const limited = rateLimits.findIndex((l) => l.route === `${method} ${route}`);
    if (limited >= 0) return rateLimited(rateLimits.splice(limited, 1)[0]!.seconds);
    return handler({ params, body, query });
  }

  return {
    calls,
    /** The next call to `METHOD /route` (e.g. `POST /channels/:id/messages`) gets a 429 with retry_after. */
    rateLimitNext: (route: string, seconds: number) => void rateLimits.push({ route, seconds }),
    /** The next call to `METHOD /route` is carried out at once but answered only on `release()` (a slow network). */
    holdNext: holds.holdNext,
    async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
      compiled ??= routes().map(([method, route, handler]) => ({ method, route, handler, pattern: new RegExp(`^${route.replace(/:id|:token/g, "([^/]+)")}$`) }));
      const url = new URL(req.url ?? "/", "http://fake");
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text && /json/.test(req.headers["content-type"] ?? "") ? JSON.parse(text) : {};
      const path = decodeURIComponent(url.pathname.replace(/^\/api\/v10(?=\/)/, ""));
      const method = req.method ?? "GET";
      const match = url.pathname.startsWith("/api/v10/") ? compiled.find((r) => r.method === method && r.pattern.test(path)) : undefined;
      const result = resultFor(method, path, match?.route, body, url.searchParams, req.headers.authorization, match?.handler, match ? match.pattern.exec(path)!.slice(1) : []);
      calls.push({ method, path, route: match?.route ?? path, body, status: result.status, atMs: Date.now() });
      const gate = match ? holds.take(`${method} ${match.route}`) : undefined;
      if (gate) await gate;
      res.writeHead(result.status, { ...(result.body === undefined ? {} : { "content-type": "application/json" }), ...result.headers });
      res.end(result.body === undefined ? undefined : JSON.stringify(result.body));
    },
  };
}
