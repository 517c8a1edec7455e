import type { IncomingMessage } from "node:http";

/**
 * True when a request comes from a web page on another origin than the gateway's own. Browsers send `Origin` on
 * every WebSocket upgrade, and any page may open a WebSocket to any address, cookies included; agents, bots and the
 * CLI (Node) send no Origin at all. The gateway's own origin is the request's Host with http or https (TLS may end
 * at a proxy that passes Host on), so the Control UI's own page is never refused. An Origin of `null` (a sandboxed
 * frame, a file) or one that is not an http(s) URL counts as foreign.
 */
export function isCrossOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  const host = req.headers.host;
  if (!host) return true;
  let from: URL;
  let own: URL;
  try {
    from = new URL(origin);
    if (from.protocol !== "http:" && from.protocol !== "https:") return true;
    // Parsed with the page's scheme, so that a default port written out in Host (example.com:443) still matches.
    own = new URL(`${from.protocol}//${host}`);
  } catch {
    return true;
  }
  return from.host !== own.host;
}
