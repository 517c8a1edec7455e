import type { IncomingMessage } from "node:http";

/**
 * The Control UI's session cookie is named after the gateway's port: cookies are kept per host, not per port, so two
 * gateways on one machine (8787 and 8797) would otherwise share one cookie and sign each other out.
 */
export function sessionCookieName(port: number | undefined): string {
  return `aub_session_${port ?? 0}`;
}

/** The port the request came in on: the one the gateway is bound to, also behind a proxy that forwards to it. */
export function boundPort(req: IncomingMessage): number | undefined {
  return req.socket.localPort;
}

/** One cookie's value from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** True when the request came in over HTTPS (directly or through a proxy that says so). */
export function isSecureRequest(req: IncomingMessage): boolean {
  const forwarded = req.headers["x-forwarded-proto"];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
  return proto === "https" || (req.socket as { encrypted?: boolean }).encrypted === true;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it), Secure over HTTPS. */
export function sessionCookieHeader(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Tells the browser to drop the cookie (sign-out). */
export function clearedCookieHeader(name: string, secure: boolean): string {
  return sessionCookieHeader(name, "", 0, secure);
}

/**
 * A browser request from another site is refused even if it carries the cookie (SameSite=Strict already keeps
 * the cookie off such requests; this is the second lock). Browsers say where a request comes from in
 * Sec-Fetch-Site (kept under Referrer-Policy: no-referrer, which turns a form's Origin into "null"), or in Origin.
 * A request with neither is not from a web page.
 */
export function isSameOrigin(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string") return site === "same-origin" || site === "none";
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}
