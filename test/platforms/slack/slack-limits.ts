/**
 * Slack's limit on `chat.postMessage`, enforced on the fake's Web API through the proxy (api-proxy.ts): about one
 * message a second per channel, with short bursts allowed (a token bucket of `burst` messages refilled at
 * `perChannelPerSecond`). Over it, Slack answers HTTP 429 with `Retry-After` (whole seconds) and
 * `{"ok": false, "error": "ratelimited"}`. `graceMs` of refill are forgiven as network jitter.
 */
import type { ApiProxy, ProxiedCall } from "../../fakes/api-proxy.ts";

export interface SlackLimits {
  perChannelPerSecond: number;
  burst: number;
  graceMs?: number;
}

/** Slack documents "1 per second per channel, short bursts above that allowed"; the burst size here is a guess. */
export const SLACK_LIMITS: SlackLimits = { perChannelPerSecond: 1, burst: 3, graceMs: 50 };

export function enforceSlackLimits(proxy: ApiProxy, limits: SlackLimits = SLACK_LIMITS) {
  const graceMs = limits.graceMs ?? 50;
  const buckets = new Map<string, { tokens: number; atMs: number }>();
  /** Messages accepted: channel and performance.now(). */
  const accepted: Array<{ channel: string; atMs: number }> = [];
  let refused = 0;

  proxy.use((call: ProxiedCall) => {
    if (call.path !== "/api/chat.postMessage") return undefined;
    const channel = String(call.params.channel ?? "");
    const now = call.atMs;
    let bucket = buckets.get(channel);
    if (!bucket) buckets.set(channel, (bucket = { tokens: limits.burst, atMs: now }));
    bucket.tokens = Math.min(limits.burst, bucket.tokens + ((now - bucket.atMs) * limits.perChannelPerSecond) / 1000);
    bucket.atMs = now;
    const short = 1 - bucket.tokens - (graceMs * limits.perChannelPerSecond) / 1000;
    if (short > 0) {
      refused++;
      const retryAfter = Math.max(1, Math.ceil(short / limits.perChannelPerSecond));
      return { answer: { status: 429, body: { ok: false, error: "ratelimited" }, headers: { "retry-after": String(retryAfter) } } };
    }
    bucket.tokens -= 1;
    accepted.push({ channel, atMs: now });
    return { forward: true };
  });

  return { accepted, refused: () => refused };
}
