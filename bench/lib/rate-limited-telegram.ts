/**
 * The fake Bot API of the tests (test/platforms/telegram/fake-api.ts), behind a proxy that enforces Telegram's flood limits:
 * about `perSecond` messages a second overall and `perChatPerSecond` in any one chat. A call over a limit gets what
 * Telegram answers: HTTP 429, "Too Many Requests: retry after N", `parameters.retry_after`.
 *
 * Each limit is a token bucket whose capacity is one second's worth (30 overall, 1 per chat): a sender that paces
 * itself at the limit passes, a burst beyond it does not. `graceMs` of refill are forgiven as network jitter.
 * The proxy records when each message was accepted, so the benchmark can check the limits were kept.
 */
import { Agent, createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakeTelegram } from "../../test/platforms/telegram/fake-api.ts";

export interface FloodLimits {
  perSecond: number;
  perChatPerSecond: number;
  graceMs?: number;
}

/** The methods Telegram counts as messages sent. */
const LIMITED = new Set(["sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage", "sendPhoto", "sendDocument"]);

function tokenBucket(perSecond: number, capacity: number, graceMs: number) {
  let tokens = capacity;
  let at = performance.now();
  return {
    /** Takes a token and returns 0, or returns the ms until one is free. */
    take(now: number): number {
      tokens = Math.min(capacity, tokens + ((now - at) * perSecond) / 1000);
      at = now;
      const short = 1 - tokens - (graceMs * perSecond) / 1000;
      if (short > 0) return Math.ceil((short * 1000) / perSecond);
      tokens -= 1;
      return 0;
    },
    /** Gives back a token taken by `take` (when the other bucket refused the call). */
    refund(): void {
      tokens += 1;
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startRateLimitedTelegram(limits: FloodLimits) {
  const fake = await startFakeTelegram();
  const upstream = new URL(fake.apiRoot);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const graceMs = limits.graceMs ?? 50;
  const global = tokenBucket(limits.perSecond, limits.perSecond, graceMs);
  const chats = new Map<string, ReturnType<typeof tokenBucket>>();
  /** Accepted messages: method, chat, and when (performance.now(), ms). */
  const accepted: Array<{ method: string; chat: string; atMs: number }> = [];
  let refused = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const method = /\/bot[^/]+\/(\w+)$/.exec(req.url ?? "")?.[1] ?? "";
      if (LIMITED.has(method)) {
        let chat = "";
        try {
          chat = String((JSON.parse(body.toString("utf8") || "{}") as { chat_id?: unknown }).chat_id ?? "");
        } catch {
          // not JSON (multipart): counted against the global limit only
        }
        const now = performance.now();
        let bucket = chats.get(chat);
        if (!bucket) chats.set(chat, (bucket = tokenBucket(limits.perChatPerSecond, 1, graceMs)));
        const globalWait = global.take(now);
        const chatWait = chat === "" ? 0 : bucket.take(now);
        if (globalWait > 0 || chatWait > 0) {
          if (globalWait === 0) global.refund();
          if (chatWait === 0 && chat !== "") bucket.refund();
          refused++;
          const seconds = Math.max(1, Math.ceil(Math.max(globalWait, chatWait) / 1000));
          res.writeHead(429, { "content-type": "application/json" });
          res.end(JSON.stringify({ ok: false, error_code: 429, description: `Too Many Requests: retry after ${seconds}`, parameters: { retry_after: seconds } }));
          return;
        }
        accepted.push({ method, chat, atMs: now });
      }
      const forward = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: false, error_code: 502, description: String(error) }));
      });
      forward.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    fake,
    apiRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepted,
    refused: () => refused,
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      agent.destroy();
      await fake.close();
    },
  };
}
