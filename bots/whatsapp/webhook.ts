/**
 * The webhook Meta calls (one URL, GET and POST): the GET verification handshake (`hub.mode=subscribe`,
 * `hub.verify_token`, answered with `hub.challenge`), and POSTs of events, each checked against X-Hub-Signature-256
 * (HMAC-SHA256 of the raw body with the app secret, compared in constant time) before anything in it is read. A bad
 * signature is refused (401) and logged. A signed body that is not JSON is refused (400); a signed body is answered
 * 200 at once and its entries handled one by one afterwards, so a malformed entry is logged and skipped without
 * losing the others (Meta retries only what was not answered 200).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Log } from "../shared.ts";

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
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}

function signatureMatches(header: string | string[] | undefined, body: Buffer, appSecret: string): boolean {
  if (typeof header !== "string") return false;
  const expected = Buffer.from(signatureOf(body, appSecret));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_MAX_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

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
      const expected = Buffer.from(verifyToken);
      const ok = mode === "subscribe" && Buffer.byteLength(token) === expected.length && timingSafeEqual(Buffer.from(token), expected);
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
      body = await readBody(req);
    } catch {
      return answer(res, 400);
    }
    if (body === undefined) return answer(res, 413);
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

/** Listens on host:port; a taken port or a missing address fails the start (the CLI names it). */
export async function listenWebhook(handler: ReturnType<typeof createWebhookHandler>, port: number, host: string): Promise<{ server: Server; stop(): Promise<void> }> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
