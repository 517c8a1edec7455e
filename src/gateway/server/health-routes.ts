import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, createTokenCheck } from "../auth/auth.ts";
import { createGuardedTokenCheck, retryAfterSeconds, type AuthBackoff } from "../auth/auth-backoff.ts";
import type { ClientAddress } from "./client-address.ts";
import type { ConnectionSnapshot } from "./metrics.ts";

/** A readiness probe waits this long for the store before calling it down. */
export const READY_STORE_TIMEOUT_MS = 5_000;

export interface HealthOptions {
  /** Renders /metrics; without it /metrics is not served. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** The tokens /metrics accepts (the gateway token, METRICS_TOKEN). */
  metricsTokens?: string[];
  /** METRICS_PUBLIC: /metrics needs no token. */
  metricsPublic?: boolean;
  /** One real store query; throws when the store cannot answer. */
  checkStore?: () => Promise<unknown>;
  connections: () => ConnectionSnapshot[];
  /** The surfaces whose bots this deployment runs (`start`): /readyz is not ready while one of them is not connected. */
  expectedBots?: readonly string[];
  backoff: AuthBackoff;
  /** The address the backoff counts a request under (GATEWAY_TRUSTED_PROXIES). */
  clientAddress: ClientAddress;
}

/** A JSON response that no cache keeps (the server's protocol answers use it too). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `/healthz` (liveness: the process answers), `/readyz` (readiness: the store answers a real query, every bot this
 * deployment runs is connected, and none says it cannot reach its platform's API; the connected bots, by surface, with
 * how long ago each was last heard from and what it says of its platform) and `/metrics` (Prometheus text format, behind the
 * gateway token or METRICS_TOKEN unless METRICS_PUBLIC). /healthz and /readyz are public and hold no secret.
 */
export function createHealthRoutes(options: HealthOptions) {
  const checks = (options.metricsTokens ?? []).map((token) => createTokenCheck(token));
  const checkMetricsToken = createGuardedTokenCheck((presented) => checks.some((check) => check(presented)), options.backoff);

  async function ready(res: ServerResponse): Promise<void> {
    const started = performance.now();
    let store: { ok: boolean; ms: number; error?: string };
    try {
      if (options.checkStore) await withTimeout(options.checkStore(), READY_STORE_TIMEOUT_MS);
      store = { ok: true, ms: Math.round(performance.now() - started) };
    } catch {
      // The error's text may name the database's address: only that it failed goes out.
      store = { ok: false, ms: Math.round(performance.now() - started), error: "the store did not answer" };
    }
    const now = Date.now();
    const connected = options.connections().filter((connection) => connection.bot);
    const bots = connected.map(({ surface, connectedAtMs, lastSeenMs, platform }) => ({
      surface,
      connectedForMs: now - connectedAtMs,
      lastSeenMsAgo: now - lastSeenMs,
      // Whether it reaches its platform's API (null: it cannot tell), as the bot last said, and for how long.
      ...(platform ? { platform: { reachable: platform.reachable, ...(platform.detail ? { detail: platform.detail } : {}), forMs: now - platform.sinceMs } } : {}),
    }));
    // A bot this deployment runs that is not connected yet (starting, restarting, or stopped on a rejected token).
    const missing = (options.expectedBots ?? []).filter((surface) => !connected.some((connection) => connection.surface === surface));
    // Not ready while a bot cannot reach its platform: questions for it would wait. One of several copies of the same
    // bot that does reach it is enough.
    const unreachable = [...new Set(connected.filter((c) => c.platform?.reachable === false).map((c) => c.surface))].filter(
      (surface) => !connected.some((c) => c.surface === surface && c.platform?.reachable !== false),
    );
    const isReady = store.ok && missing.length === 0 && unreachable.length === 0;
    sendJson(res, isReady ? 200 : 503, {
      ready: isReady,
      store,
      bots: [...bots, ...missing.map((surface) => ({ surface, connected: false }))],
      ...(isReady ? {} : { notReady: [...(store.ok ? [] : ["the store does not answer"]), ...missing.map((s) => `the ${s} bot is not connected`), ...unreachable.map((s) => `the ${s} bot cannot reach its platform's API`)] }),
    });
  }

  async function metrics(req: IncomingMessage, res: ServerResponse, render: NonNullable<HealthOptions["metrics"]>): Promise<void> {
    if (!options.metricsPublic) {
      const verdict = checkMetricsToken(options.clientAddress(req), bearerToken(req.headers.authorization));
      if (!verdict.ok) {
        if (verdict.retryAfterMs > 0) res.setHeader("retry-after", String(retryAfterSeconds(verdict.retryAfterMs)));
        res.writeHead(verdict.retryAfterMs > 0 ? 429 : 401, { "content-type": "text/plain; charset=utf-8", "www-authenticate": "Bearer" });
        res.end("send the gateway token or METRICS_TOKEN as Authorization: Bearer <token>\n");
        return;
      }
    }
    const { contentType, body } = await render();
    res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
    res.end(body);
  }

  /** Serves the request when it is one of these routes; returns whether it was. */
  return async (req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> => {
    if (pathname === "/healthz") sendJson(res, 200, { ok: true });
    else if (pathname === "/readyz") await ready(res);
    else if (pathname === "/metrics" && options.metrics) await metrics(req, res, options.metrics);
    else return false;
    return true;
  };
}
