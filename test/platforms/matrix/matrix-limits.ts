/**
 * A homeserver's limit on one account's sends (Synapse's `rc_message`: a token bucket of `burst` events refilled at
 * `perSecond`, per sender, across all rooms), enforced on the fake through the proxy (api-proxy.ts). Over it, the
 * homeserver answers HTTP 429 `{"errcode": "M_LIMIT_EXCEEDED", "retry_after_ms": …}` with the time until a token is
 * free. `graceMs` of refill are forgiven as network jitter.
 */
import type { ApiProxy, ProxiedCall } from "../../fakes/api-proxy.ts";

export interface MatrixLimits {
  perSecond: number;
  burst: number;
  graceMs?: number;
}

/**
 * Synapse's default `rc_message` is 0.2 a second with a burst of 10, which a bot account serving many people would
 * never live with: an admin raises it for the bot (the admin API's per-user `override_ratelimit`). These figures are
 * such a raised limit.
 */
export const MATRIX_LIMITS: MatrixLimits = { perSecond: 20, burst: 20, graceMs: 50 };

const SEND = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/(send|redact)\/([^/]+)\/[^/]+$/;

export function enforceMatrixLimits(proxy: ApiProxy, limits: MatrixLimits = MATRIX_LIMITS) {
  const graceMs = limits.graceMs ?? 50;
  const bucket = { tokens: limits.burst, atMs: -1 };
  /** Prompts accepted (a poll or numbered text with no relation): room and performance.now(). */
  const accepted: Array<{ channel: string; atMs: number }> = [];
  let refused = 0;
  proxy.use((call: ProxiedCall) => {
    const m = call.method === "PUT" ? SEND.exec(call.path) : null;
    if (!m) return undefined;
    const now = call.atMs;
    if (bucket.atMs < 0) bucket.atMs = now;
    bucket.tokens = Math.min(limits.burst, bucket.tokens + ((now - bucket.atMs) * limits.perSecond) / 1000);
    bucket.atMs = now;
    const short = 1 - bucket.tokens - (graceMs * limits.perSecond) / 1000;
    if (short > 0) {
      refused++;
      const retry_after_ms = Math.max(1, Math.ceil((short * 1000) / limits.perSecond));
      return { answer: { status: 429, body: { errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms } } };
    }
    bucket.tokens -= 1;
    const type = decodeURIComponent(m[3]!);
    if (m[2] === "send" && !call.params["m.relates_to"] && (type === "org.matrix.msc3381.poll.start" || call.params.msgtype === "m.text")) {
      accepted.push({ channel: decodeURIComponent(m[1]!), atMs: now });
    }
    return { forward: true };
  });
  return { accepted, refused: () => refused };
}

/** The least time `questions` prompts can take under `limits`: the burst at once, the rest at the rate. */
export function matrixMinimumMs(questions: number, limits: MatrixLimits = MATRIX_LIMITS): number {
  return (Math.max(0, questions - limits.burst) / limits.perSecond) * 1000;
}
