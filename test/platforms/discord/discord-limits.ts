/**
 * Discord's rate limits, enforced on the fake's REST API through the proxy (api-proxy.ts):
 * - per channel, `POST /channels/:id/messages` is a bucket of `perChannel` (5) messages per `windowMs` (5 s);
 * - globally, at most `globalPerSecond` (50) requests a second (interaction callbacks are exempt, as on Discord): a
 *   token bucket of one second's worth.
 * Every accepted message carries the bucket's `X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket` headers, as
 * Discord sends them, so discord.js's queue can wait before it is refused. A call over a limit gets HTTP 429 with
 * `retry_after` (seconds) and `global` in the JSON body and the same headers (`X-RateLimit-Global`, `-Scope`,
 * `Retry-After`). A channel's bucket is a fixed window that opens with its first message; `graceMs` forgives jitter.
 */
import type { ApiProxy, ProxiedCall, ProxyVerdict } from "../../fakes/api-proxy.ts";

export interface DiscordLimits {
  perChannel: number;
  windowMs: number;
  globalPerSecond: number;
  graceMs?: number;
}

export const DISCORD_LIMITS: DiscordLimits = { perChannel: 5, windowMs: 5_000, globalPerSecond: 50, graceMs: 50 };

const MESSAGE_POST = /^\/api\/v10\/channels\/(\d+)\/messages$/;

export function enforceDiscordLimits(proxy: ApiProxy, limits: DiscordLimits = DISCORD_LIMITS) {
  const graceMs = limits.graceMs ?? 50;
  const global = { tokens: limits.globalPerSecond, atMs: performance.now() };
  const channels = new Map<string, { startMs: number; count: number }>();
  /** Messages accepted: channel and performance.now(). */
  const accepted: Array<{ channel: string; atMs: number }> = [];
  let refused = 0;
  let refusedGlobal = 0;

  const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);
  const bucketHeaders = (channel: string, remaining: number, resetAfterMs: number) => ({
    "x-ratelimit-limit": String(limits.perChannel),
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": ((Date.now() + resetAfterMs) / 1000).toFixed(3),
    "x-ratelimit-reset-after": seconds(resetAfterMs),
    "x-ratelimit-bucket": `fake-messages-${channel.slice(-6)}`,
  });
  const tooMany = (retryAfterMs: number, isGlobal: boolean, headers: Record<string, string>): ProxyVerdict => ({
    answer: {
      status: 429,
      body: { message: "You are being rate limited.", retry_after: Number(seconds(retryAfterMs)), global: isGlobal, ...(isGlobal ? {} : { code: 0 }) },
      headers: {
        ...headers,
        "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
        "x-ratelimit-scope": isGlobal ? "global" : "user",
        ...(isGlobal ? { "x-ratelimit-global": "true" } : {}),
      },
    },
  });

  proxy.use((call: ProxiedCall) => {
    if (!call.path.startsWith("/api/v10/") || call.path.startsWith("/api/v10/interactions/")) return undefined;
    const now = call.atMs;
    global.tokens = Math.min(limits.globalPerSecond, global.tokens + ((now - global.atMs) * limits.globalPerSecond) / 1000);
    global.atMs = now;
    const short = 1 - global.tokens - (graceMs * limits.globalPerSecond) / 1000;
    if (short > 0) {
      refused++;
      refusedGlobal++;
      return tooMany((short * 1000) / limits.globalPerSecond, true, {});
    }
    const channel = call.method === "POST" ? MESSAGE_POST.exec(call.path)?.[1] : undefined;
    if (!channel) {
      global.tokens -= 1;
      return undefined;
    }
    let bucket = channels.get(channel);
    if (!bucket || now - bucket.startMs >= limits.windowMs - graceMs) channels.set(channel, (bucket = { startMs: now, count: 0 }));
    const resetAfterMs = bucket.startMs + limits.windowMs - now;
    if (bucket.count >= limits.perChannel) {
      refused++;
      return tooMany(resetAfterMs, false, bucketHeaders(channel, 0, resetAfterMs));
    }
    bucket.count++;
    global.tokens -= 1;
    accepted.push({ channel, atMs: now });
    return { forward: true, headers: bucketHeaders(channel, limits.perChannel - bucket.count, resetAfterMs) };
  });

  return { accepted, refused: () => refused, refusedGlobal: () => refusedGlobal };
}
