/**
 * A proxy in front of one of the fake platform APIs: it sees every call the bot makes, and may answer it itself
 * (a platform's 429, a 502, a refusal) or forward it and add headers to the fake's answer (Discord's
 * `X-RateLimit-*`). The rate-limit enforcers (discord-limits.ts, slack-limits.ts) and the delivery scenarios' failure
 * knobs are decisions made here, so the fakes themselves stay as they are. WebSockets (Discord's gateway, Slack's
 * Socket Mode) go straight to the fake: the URLs it hands out point at itself.
 */
import { Agent, createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One call as the proxy saw it. `params` is the JSON or form body, parsed (empty when neither). */
export interface ProxiedCall {
  method: string;
  path: string;
  params: Record<string, any>;
  /** performance.now() when it arrived. */
  atMs: number;
}

/** What to do with a call: answer it here, or forward it (adding these headers to the answer). */
export type ProxyVerdict = { answer: { status: number; body: unknown; headers?: Record<string, string> } } | { forward: true; headers?: Record<string, string> };

export type ProxyDecide = (call: ProxiedCall) => ProxyVerdict | undefined;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function parseParams(body: Buffer, contentType: string): Record<string, any> {
  const text = body.toString("utf8");
  if (!text) return {};
  try {
    if (contentType.includes("json")) return JSON.parse(text) as Record<string, any>;
    if (contentType.includes("x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  } catch {
    // not what it says: no params
  }
  return {};
}

/**
 * Starts the proxy for `upstream` (an origin, e.g. `http://127.0.0.1:PORT`). Every `decide` in `decisions` is asked
 * in turn; the first verdict wins, and no verdict forwards the call unchanged. `decisions` may change at any time.
 */
export async function startApiProxy(upstream: string) {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const decisions: ProxyDecide[] = [];
  /** Every call, answered here or forwarded, in arrival order. */
  const calls: Array<ProxiedCall & { status?: number; answeredHere?: boolean }> = [];

  const server = createServer((req, res) => {
    const arrivedAtMs = performance.now(); // before the body is read: as close to the socket as this process gets
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? "/", "http://proxy");
      const call: ProxiedCall & { status?: number; answeredHere?: boolean } = {
        method: req.method ?? "GET",
        path: decodeURIComponent(url.pathname),
        params: parseParams(body, String(req.headers["content-type"] ?? "")),
        atMs: arrivedAtMs,
      };
      calls.push(call);
      let verdict: ProxyVerdict | undefined;
      for (const decide of decisions) if ((verdict = decide(call))) break;
      if (verdict && "answer" in verdict) {
        const { status, body: answer, headers = {} } = verdict.answer;
        call.status = status;
        call.answeredHere = true;
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(answer));
        return;
      }
      const extra = verdict?.headers ?? {};
      const forward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
        call.status = answer.statusCode ?? 502;
        res.writeHead(call.status, { ...answer.headers, ...extra });
        answer.pipe(res);
      });
      forward.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: false, error: String(error) }));
      });
      forward.end(body);
    })().catch((error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: false, error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    /** The proxy's origin: use it where the fake's origin would go. */
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    /** Adds a decision; returns a function that removes it. */
    use(decide: ProxyDecide): () => void {
      decisions.push(decide);
      return () => {
        const at = decisions.indexOf(decide);
        if (at >= 0) decisions.splice(at, 1);
      };
    },
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      agent.destroy();
    },
  };
}

export type ApiProxy = Awaited<ReturnType<typeof startApiProxy>>;

/** Answers every call `matches` picks with `status` and `body` (a platform's failure) until the returned function is called. */
export function failCalls(proxy: ApiProxy, matches: (call: ProxiedCall) => boolean, status: number, body: unknown): () => void {
  return proxy.use((call) => (matches(call) ? { answer: { status, body } } : undefined));
}
