/**
 * A webhook receiver as a user would write one (node:http): it verifies every request with the `standardwebhooks`
 * package's Webhook.verify over the raw body, records what came, and answers as the test says (a status, or hang).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** A fresh secret in the Standard Webhooks form: `whsec_` and the base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  path: string;
  body: string;
  /** The parsed body when the signature verified; undefined when it did not. */
  verified: unknown;
  verifyError?: string;
  receivedAtMs: number;
  /** What this receiver answered (`hang`: nothing, until released or the sender gave up). */
  answered: number | "hang";
}

/** How to answer the n-th request (0-based, counted over all requests). */
export type Answer = (request: { n: number; id: string; path: string }) => number | "hang";

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Requests held open (`hang`) right now. */
  held: () => number;
  answer: Answer;
  /** Each webhook-id answered 2xx, with how many times. */
  acceptedIds(): Map<string, number>;
  waitFor<T>(pick: (received: ReceivedWebhook[]) => T | undefined | false, timeoutMs?: number, what?: string): Promise<T>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string, options: { port?: number; answer?: Answer } = {}): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const received: ReceivedWebhook[] = [];
  const holding = new Set<ServerResponse>();
  const watchers = new Set<() => void>();
  let n = 0;

  const receiver = {
    answer: options.answer ?? (() => 200),
  } as WebhookReceiver;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const header = (name: string) => (Array.isArray(req.headers[name]) ? req.headers[name][0] : req.headers[name]) ?? "";
      const id = header("webhook-id");
      const path = req.url ?? "/";
      let verified: unknown;
      let verifyError: string | undefined;
      try {
        verified = verifier.verify(body, { "webhook-id": id, "webhook-timestamp": header("webhook-timestamp"), "webhook-signature": header("webhook-signature") });
      } catch (error) {
        verifyError = (error as Error).message;
      }
      const answered = verifyError ? 401 : receiver.answer({ n: n++, id, path });
      received.push({ id, timestamp: header("webhook-timestamp"), signature: header("webhook-signature"), contentType: req.headers["content-type"], path, body, verified, ...(verifyError ? { verifyError } : {}), receivedAtMs: Date.now(), answered });
      for (const watch of watchers) watch();
      if (answered === "hang") {
        holding.add(res);
        res.on("close", () => holding.delete(res));
        return;
      }
      res.writeHead(answered, answered >= 300 && answered < 400 ? { location: `${receiver.url}/redirected` } : {}).end("ok");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    held: () => holding.size,
    acceptedIds() {
      const ids = new Map<string, number>();
      for (const r of received) if (typeof r.answered === "number" && r.answered < 300) ids.set(r.id, (ids.get(r.id) ?? 0) + 1);
      return ids;
    },
    waitFor<T>(pick: (received: ReceivedWebhook[]) => T | undefined | false, timeoutMs = 30_000, what = "a webhook"): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const check = () => {
          const found = pick(received);
          if (found === undefined || found === false) return false;
          watchers.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${JSON.stringify(received.map((r) => [r.id, r.path, r.answered]))}`));
        }, timeoutMs);
        if (!check()) watchers.add(check);
      });
    },
    async close() {
      for (const res of holding) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
