import { createHmac } from "node:crypto";

/** Slack's request signature: `v0=` + HMAC-SHA256(secret, `v0:${timestamp}:${rawBody}`). */
export function slackSignature(secret: string, timestampSec: number, rawBody: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestampSec}:${rawBody}`).digest("hex")}`;
}

export interface SignedPostOptions {
  /** Seconds since the epoch; defaults to now. */
  timestampSec?: number;
  /** Replaces the computed signature (a forgery). */
  signature?: string;
}

/** POSTs a body to a Bolt HTTP endpoint the way Slack does, signed with `secret`. */
export async function postSigned(url: string, secret: string, body: string, contentType: string, options: SignedPostOptions = {}) {
  const timestampSec = options.timestampSec ?? Math.floor(Date.now() / 1000);
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": contentType,
      "x-slack-request-timestamp": String(timestampSec),
      "x-slack-signature": options.signature ?? slackSignature(secret, timestampSec, body),
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** The two shapes Slack posts: interactivity form-encoded as `payload=<json>`, events as JSON. */
export function slackRequestBody(kind: "events_api" | "interactive", payload: unknown): { body: string; contentType: string } {
  return kind === "interactive"
    ? { body: `payload=${encodeURIComponent(JSON.stringify(payload))}`, contentType: "application/x-www-form-urlencoded" }
    : { body: JSON.stringify(payload), contentType: "application/json" };
}
