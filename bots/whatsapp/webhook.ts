/**
 * The webhook Meta calls (one URL, GET and POST): the GET verification handshake (`hub.mode=subscribe`,
 * `hub.verify_token`, answered with `hub.challenge`), and POSTs of events, each checked against X-Hub-Signature-256
 * (HMAC-SHA256 of the raw body with the app secret, compared in constant time) before anything in it is read. A bad
 * signature is refused (401) and logged. A signed body that is not JSON is refused (400); a signed body is answered
 * 200 at once and its entries handled one by one afterwards, so a malformed entry is logged and skipped without
 * losing the others (Meta retries only what was not answered 200).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Log } from "../shared.ts";
import { hmacOf, sameSecret } from "../kit/signature.ts";
import { readBodyOr413, startListener, type Listener } from "../kit/listener.ts";

/** Meta's events are small; anything larger is not one of them. */
const BODY_MAX_BYTES = 1024 * 1024;

export interface WebhookOptions {
  appSecret: string;
  verifyToken: string;
  log: Log;
  /** One signed, parsed POST body: its entries are handled in the background. */
  onEvent(body: unknown): void;
}

/** `sha256=<hex>` of the raw body with the app secret. */
export function signatureOf(body: Buffer | string, appSecret: string): string {
  return `sha256=${hmacOf(appSecret, body)}`;
}

const signatureMatches = (header: string | string[] | undefined, body: Buffer, appSecret: string): boolean =>
  typeof header === "string" && sameSecret(header.trim(), signatureOf(body, appSecret));

function answer(res: ServerResponse, status: number, text = ""): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(text);
}

export function createWebhookHandler({ appSecret, verifyToken, log, onEvent }: WebhookOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/webhook" && url.pathname !== "/") return answer(res, 404);
    if (req.method === "GET") {
      const mode = url.searchParams.get("hub.mode");
      const token = url.searchParams.get("hub.verify_token") ?? "";
      const challenge = url.searchParams.get("hub.challenge") ?? "";
      const ok = mode === "subscribe" && sameSecret(token, verifyToken);
      if (!ok) {
        log(`refused a webhook verification (hub.mode ${JSON.stringify(mode)}): the verify token does not match`);
        return answer(res, 403);
      }
      log("webhook verified");
      return answer(res, 200, challenge);
    }
    if (req.method !== "POST") return answer(res, 405);
    let body: Buffer | undefined;
    try {
      body = await readBodyOr413(req, res, BODY_MAX_BYTES, (r) => answer(r, 413));
    } catch {
      return answer(res, 400);
    }
    if (body === undefined) return;
    if (!signatureMatches(req.headers["x-hub-signature-256"], body, appSecret)) {
      log(`refused a webhook POST from ${req.socket.remoteAddress ?? "?"}: ${req.headers["x-hub-signature-256"] ? "bad" : "no"} X-Hub-Signature-256`);
      return answer(res, 401);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      log("a signed webhook POST is not JSON");
      return answer(res, 400);
    }
    answer(res, 200);
    try {
      onEvent(parsed);
    } catch (error) {
      log("could not handle a webhook event", error);
    }
  };
}

/** Listens on host:port; a taken port (named by WHATSAPP_WEBHOOK_PORT) or a missing address fails the start. */
export function listenWebhook(handler: ReturnType<typeof createWebhookHandler>, port: number, host: string): Promise<Listener> {
  return startListener({ host, port, portVariable: "WHATSAPP_WEBHOOK_PORT", handle: (req, res) => void handler(req, res) });
}
