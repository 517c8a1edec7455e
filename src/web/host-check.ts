import type { IncomingMessage } from "node:http";
import { boundPort } from "./session.ts";

/**
 * The Host names the cookie-authenticated Control UI answers to: `localhost`, `127.0.0.1` and `[::1]` at the port
 * the gateway is bound to, and the host of GATEWAY_PUBLIC_URL (`publicUrl`) when there is one. Anything else is a
 * DNS-rebinding page (a name the attacker controls, pointed at this machine) or a misconfigured proxy, so it gets
 * no session. Requests that carry the gateway token (Authorization: Bearer) are not asked.
 */
export function createHostCheck(publicUrl?: string): (req: IncomingMessage) => boolean {
  const fixed = publicUrl ? publicHostForms(publicUrl) : [];
  return (req) => {
    const host = req.headers.host?.trim().toLowerCase();
    if (!host) return false;
    return fixed.includes(host) || localHostForms(boundPort(req)).includes(host);
  };
}

/**
 * The port a request's session cookie is named after: GATEWAY_PUBLIC_URL's (its explicit port, or the scheme's) when
 * the request came to that host, so every instance behind one address (a load balancer, whatever port each listens
 * on) reads the same cookie; otherwise the port the gateway is bound to.
 */
export function createCookiePort(publicUrl?: string): (req: IncomingMessage) => number | undefined {
  const forms = publicUrl ? publicHostForms(publicUrl) : [];
  const port = publicUrl ? publicPort(publicUrl) : undefined;
  return (req) => {
    const host = req.headers.host?.trim().toLowerCase();
    return host !== undefined && forms.includes(host) ? port : boundPort(req);
  };
}

/** GATEWAY_PUBLIC_URL's port: the one it names, or its scheme's. */
export function publicPort(publicUrl: string): number {
  const url = new URL(publicUrl);
  return Number(url.port || (url.protocol === "https:" ? 443 : 80));
}

/** What to tell someone whose Host was refused (plain text; the refused name is never echoed). */
export function hostRefusal(publicUrl: string | undefined, port: number | undefined): string {
  const names = [...localHostForms(port).slice(0, 2), ...(publicUrl ? [publicHostForms(publicUrl)[0]!] : [])];
  return (
    `Misdirected request: this gateway's Control UI answers only as ${names.join(", ")}. ` +
    "If you reach it under another name (a proxy, a LAN address), set GATEWAY_PUBLIC_URL to that address.\n"
  );
}

function localHostForms(port: number | undefined): string[] {
  if (port === undefined) return [];
  const names = ["localhost", "127.0.0.1", "[::1]"];
  // A browser leaves out the port when it is the scheme's default.
  return [...names.map((name) => `${name}:${port}`), ...(port === 80 ? names : [])];
}

function publicHostForms(publicUrl: string): string[] {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new Error(`the Control UI's publicUrl is not a URL: ${publicUrl}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`the Control UI's publicUrl must be http(s): ${publicUrl}`);
  // URL.host leaves out a default port; a proxy may still send it.
  return url.port ? [url.host] : [url.host, `${url.host}:${url.protocol === "https:" ? 443 : 80}`];
}
