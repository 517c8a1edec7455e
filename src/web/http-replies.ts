/**
 * What the gateway's own pages (the Control UI, its sign-in form, the answer links' page) send with every reply, and
 * how they read a form: one place, so every page keeps the same locks.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { readCappedBody } from "../kernel/capped-body.ts";

/** Nothing loads from elsewhere, no inline script runs, and Trusted Types forbid every HTML string sink. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** `send(res, status, headers, body, head)` with `base` under the reply's own headers; `head` sends no body. */
export function sendWith(base: Record<string, string>) {
  return (res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer, head = false): void => {
    res.writeHead(status, { ...base, ...headers });
    res.end(head ? undefined : body);
  };
}

/** A request's body as UTF-8 text, or undefined when it is larger than `maxBytes` (the rest is read and dropped). */
export const readBody = async (req: IncomingMessage, maxBytes: number): Promise<string | undefined> => (await readCappedBody(req, maxBytes))?.toString("utf8");
