/**
 * Teams' limits on a bot, enforced on the fake Bot Connector through the proxy (api-proxy.ts): per conversation at
 * most `windows` (7 in 1 s, 8 in 2 s, 60 in 30 s), and for the app `perSecond` requests a second overall (a token
 * bucket of one second's worth). Over them the connector answers HTTP 429 with a `Retry-After` in whole seconds.
 * `graceMs` is forgiven as jitter (arrivals are stamped in the proxy, not on the wire).
 */
import type { ApiProxy, ProxiedCall } from "../../fakes/api-proxy.ts";

export interface TeamsLimits {
  windows: ReadonlyArray<{ windowMs: number; max: number }>;
  perSecond: number;
  graceMs?: number;
}

export const TEAMS_LIMITS: TeamsLimits = {
  windows: [
    { windowMs: 1_000, max: 7 },
    { windowMs: 2_000, max: 8 },
    { windowMs: 30_000, max: 60 },
  ],
  perSecond: 50,
  graceMs: 50,
};

const conversationOf = (path: string) => /^\/v3\/conversations\/([^/;]+)/.exec(decodeURIComponent(path))?.[1];

export function enforceTeamsLimits(proxy: ApiProxy, limits: TeamsLimits = TEAMS_LIMITS) {
  const graceMs = limits.graceMs ?? 50;
  const sent = new Map<string, number[]>();
  let tokens = limits.perSecond;
  let tokensAtMs = -1;
  /** Prompt posts accepted: conversation and performance.now(). */
  const accepted: Array<{ channel: string; atMs: number }> = [];
  let refused = 0;
  const refuse = (seconds: number) => {
    refused++;
    return { answer: { status: 429, body: { error: { code: "Throttled", message: "Too many requests" } }, headers: { "retry-after": String(Math.max(1, Math.ceil(seconds))) } } };
  };

  proxy.use((call: ProxiedCall) => {
    const conversation = conversationOf(call.path);
    if (!conversation) return undefined;
    const at = call.atMs;
    if (tokensAtMs < 0) tokensAtMs = at;
    tokens = Math.min(limits.perSecond, tokens + ((at - tokensAtMs) * limits.perSecond) / 1000);
    tokensAtMs = at;
    if (tokens + (graceMs * limits.perSecond) / 1000 < 1) return refuse((1 - tokens) / limits.perSecond);
    const log = sent.get(conversation) ?? [];
    for (const { windowMs, max } of limits.windows) {
      const inWindow = log.filter((t) => t > at - windowMs + graceMs);
      if (inWindow.length >= max) return refuse((inWindow[inWindow.length - max]! + windowMs - at) / 1000);
    }
    tokens -= 1;
    log.push(at);
    sent.set(conversation, log);
    if (call.method === "POST" && /\/activities$/.test(call.path) && call.params.attachments !== undefined) accepted.push({ channel: conversation, atMs: at });
    return { forward: true };
  });

  return { accepted, refused: () => refused };
}
