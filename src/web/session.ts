import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The Control UI's session cookie. Its value is `v1.<expiry seconds>.<HMAC>`, never the token itself. */
export const SESSION_COOKIE = "aub_session";
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

const PREFIX = "v1";

/**
 * Stateless sessions: the cookie carries its own expiry, signed with HMAC-SHA256 keyed by the gateway token.
 * Sessions survive a gateway restart (the page reconnects on its own) and all end when the token changes.
 */
export function createSessionSigner(token: string, maxAgeSeconds = SESSION_MAX_AGE_SECONDS) {
  const mac = (expiry: string) => createHmac("sha256", token).update(`ask-user-bridge control-ui session ${PREFIX} ${expiry}`).digest();

  return {
    maxAgeSeconds,
    /** A fresh cookie value valid for maxAgeSeconds from nowMs. */
    issue(nowMs: number): string {
      const expiry = String(Math.floor(nowMs / 1000) + maxAgeSeconds);
      return `${PREFIX}.${expiry}.${mac(expiry).toString("base64url")}`;
    },
    verify(value: string | undefined, nowMs: number): boolean {
      const match = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? "");
      if (!match) return false;
      const [, expiry = "", signature = ""] = match;
      if (Number(expiry) * 1000 <= nowMs) return false;
      const presented = Buffer.from(signature, "base64url");
      const expected = mac(expiry);
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    },
  };
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

export function sessionCookieHeader(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
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
