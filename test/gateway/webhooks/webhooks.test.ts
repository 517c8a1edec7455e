/**
 * Webhooks (issue 29 §4) through the real gateway in this process: each question's question.resolved and
 * question.lateAnswered reach every WEBHOOK_URLS receiver signed per Standard Webhooks (verified here with the
 * `standardwebhooks` package, as a receiver would), and failed tries are retried with the same webhook-id until the
 * window closes. Restarts, SIGKILL and several instances are in test/gateway/webhooks/webhooks-processes.test.ts.
 */
import { createServer } from "node:http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { startGateway, type RunningGateway } from "../../../src/gateway/run.ts";
import { ConfigError, deploymentSecrets, loadConfig } from "../../../src/runtime/config.ts";
import { cleanup, freePort, gatewayConfig, oneQuestion, rpcOk, tempDir, TOKEN, type GatewayConfig } from "../../helpers/gateway.ts";
import { newWebhookSecret, startWebhookReceiver, type Answer, type ReceivedWebhook, type WebhookReceiver } from "../../fakes/webhook-receiver.ts";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});
afterAll(cleanup);

async function receiver(secret: string, answer?: Answer): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(secret, answer ? { answer } : {});
  open.push(started);
  return started;
}

async function gateway(urls: string[], secret: string, options: { config?: Partial<GatewayConfig>; webhooks?: NonNullable<Parameters<typeof startGateway>[1]>["webhooks"] } = {}) {
  const lines: string[] = [];
  const started: RunningGateway = await startGateway(
    gatewayConfig(tempDir(), { WEBHOOK_URLS: urls, WEBHOOK_SECRET: secret, WEBHOOK_TIMEOUT_SECONDS: 10, ...options.config }),
    { log: (message) => lines.push(message), webhooks: { retryBaseMs: 200, ...options.webhooks } },
  );
  open.push(started);
  return { ...started, lines };
}

async function metric(url: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? Number.NaN : Number(line.split(" ")[1]);
}
const deliveries = (url: string, outcome: string) => metric(url, "ask_user_bridge_webhook_deliveries_total", `{outcome="${outcome}"}`);

const payloadOf = (r: ReceivedWebhook) => r.verified as { type: string; timestamp: string; data: { record: any; result: any } };

describe("webhooks: what is sent", () => {
  it("posts question.resolved with the record and the ask_user result, signed, to every URL", async () => {
    const secret = newWebhookSecret();
    const a = await receiver(secret);
    const b = await receiver(secret);
    const gw = await gateway([`${a.url}/hook-a`, `${b.url}/hook-b`], secret);
    const { id } = await rpcOk(gw.url, "question.request", oneQuestion({ runId: "run-7", sessionKey: "s-7" }));
    await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" }, by: { surface: "web", user: "ada", via: "web" } });
    const [got] = await Promise.all([a.waitFor((r) => r[0]), b.waitFor((r) => r[0])]);
    expect(b.received[0]!.path).toBe("/hook-b");
    expect(got!.path).toBe("/hook-a");
    expect(got!.contentType).toBe("application/json");
    expect(got!.verifyError).toBeUndefined();
    expect(got!.id).toMatch(/^msg_/);
    expect(b.received[0]!.id).not.toBe(got!.id);
    const payload = payloadOf(got!);
    expect(payload.type).toBe("question.resolved");
    expect(payload.data.record).toMatchObject({ id, runId: "run-7", sessionKey: "s-7", status: "answered", answers: { deploy_target: ["Production"] } });
    expect(payload.timestamp).toBe(new Date(payload.data.record.resolvedAtMs).toISOString());
    expect(payload.data.result).toEqual({ status: "answered", answers: { answers: { deploy_target: ["Production"] } }, answeredBy: { surface: "web", user: "ada", via: "web" } });
    expect(Math.abs(Number(got!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    await expect.poll(() => deliveries(gw.url, "sent")).toBe(2);
    await expect.poll(() => metric(gw.url, "ask_user_bridge_webhooks_pending")).toBe(0);
  });

  it("posts each way a question ends (skipped, cancelled, expired) and a late answer with its own result", async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(secret);
    const gw = await gateway([hook.url], secret);
    const skipped = await rpcOk(gw.url, "question.request", oneQuestion());
    await rpcOk(gw.url, "question.resolve", { id: skipped.id, cancel: true, reason: "skipped" });
    const cancelled = await rpcOk(gw.url, "question.request", oneQuestion());
    await rpcOk(gw.url, "question.resolve", { id: cancelled.id, cancel: true });
    const late = await rpcOk(gw.url, "question.request", oneQuestion({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 600 }));
    const typeOf = (id: string, type: string) => (r: ReceivedWebhook[]) => r.find((w) => payloadOf(w)?.type === type && payloadOf(w).data.record.id === id);
    expect(payloadOf(await hook.waitFor(typeOf(skipped.id, "question.resolved"))).data.result).toEqual({ status: "no_answer", reason: "skipped" });
    expect(payloadOf(await hook.waitFor(typeOf(cancelled.id, "question.resolved"))).data).toMatchObject({ record: { status: "cancelled" }, result: { status: "no_answer", reason: "cancelled" } });
    const expired = payloadOf(await hook.waitFor(typeOf(late.id, "question.resolved")));
    expect(expired.data).toMatchObject({ record: { status: "expired" }, result: { status: "no_answer", reason: "expired" } });
    await rpcOk(gw.url, "question.resolve", { id: late.id, answers: { deploy_target: "Staging (Recommended)" }, by: { surface: "web", user: "bo", via: "web" } });
    const lateAnswered = payloadOf(await hook.waitFor(typeOf(late.id, "question.lateAnswered")));
    expect(lateAnswered.data.record).toMatchObject({ status: "expired", lateAnswer: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    expect(lateAnswered.data.result).toEqual({ status: "answered", answers: { answers: { deploy_target: ["Staging (Recommended)"] } }, answeredBy: { surface: "web", user: "bo", via: "web" } });
    expect(lateAnswered.timestamp).toBe(new Date(lateAnswered.data.record.lateAnswer.atMs).toISOString());
    expect(hook.received.every((r) => r.verifyError === undefined)).toBe(true);
    expect(hook.received).toHaveLength(4);
  });

  it("is refused by a receiver when the body, the signature, the timestamp or the secret is not the gateway's", async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(secret);
    const gw = await gateway([hook.url], secret);
    const { id } = await rpcOk(gw.url, "question.request", oneQuestion());
    await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    const got = await hook.waitFor((r) => r[0]);
    const headers = { "webhook-id": got.id, "webhook-timestamp": got.timestamp, "webhook-signature": got.signature };
    const verifier = new Webhook(secret);
    expect(verifier.verify(got.body, headers)).toMatchObject({ type: "question.resolved" });
    const tamperedBody = got.body.replace('"Production"', '"Staging (Recommended)"');
    expect(tamperedBody).not.toBe(got.body);
    expect(() => verifier.verify(tamperedBody, headers)).toThrow(WebhookVerificationError);
    const [version, mac] = got.signature.split(",");
    const flipped = `${version},${mac!.startsWith("A") ? "B" : "A"}${mac!.slice(1)}`;
    expect(() => verifier.verify(got.body, { ...headers, "webhook-signature": flipped })).toThrow("No matching signature found");
    expect(() => verifier.verify(got.body, { ...headers, "webhook-id": "msg_someone_else" })).toThrow(WebhookVerificationError);
    // A replay: the same message with an older timestamp no longer matches; re-signed at the old time it is too old.
    const old = new Date(Date.now() - 10 * 60 * 1000);
    expect(() => verifier.verify(got.body, { ...headers, "webhook-timestamp": String(Math.floor(old.getTime() / 1000)) })).toThrow(WebhookVerificationError);
    const oldSigned = { ...headers, "webhook-timestamp": String(Math.floor(old.getTime() / 1000)), "webhook-signature": verifier.sign(got.id, old, got.body) };
    expect(() => verifier.verify(got.body, oldSigned)).toThrow("Message timestamp too old");
    expect(() => new Webhook(newWebhookSecret()).verify(got.body, headers)).toThrow(WebhookVerificationError);
    // And a forged request to the receiver itself is refused (it answers 401) and recorded as unverified.
    const forged = await fetch(hook.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: tamperedBody });
    expect(forged.status).toBe(401);
    expect(hook.received.at(-1)!.verifyError).toBe("No matching signature found");
  });

  it("never logs the secret or the body", async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(secret, () => 500);
    const gw = await gateway([hook.url], secret, { webhooks: { retryWindowMs: 1_000, retryBaseMs: 100 } });
    const { id } = await rpcOk(gw.url, "question.request", oneQuestion());
    await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    await expect.poll(() => deliveries(gw.url, "given_up"), { timeout: 20_000 }).toBe(1);
    const text = gw.lines.join("\n");
    expect(text).toContain("given up");
    expect(text).not.toContain(secret.slice("whsec_".length));
    expect(text).not.toContain("deploy_target");
  });
});

describe("webhooks: the README's receiver", () => {
  it("verifies the gateway's webhooks, refuses forged ones and handles a retried webhook-id once", async () => {
    const secret = newWebhookSecret();
    const port = await freePort();
    const saved = { secret: process.env.WEBHOOK_SECRET, port: process.env.PORT };
    process.env.WEBHOOK_SECRET = secret;
    process.env.PORT = String(port);
    const events: Array<{ type: string; data: { record: { id: string; runId?: string }; result: unknown } }> = [];
    const handle = (event: (typeof events)[number]) => events.push(event);
    try {
      // README: "Verifying the signature"
      const webhook = new Webhook(process.env.WEBHOOK_SECRET!);
      const handled = new Set<string>();
      const server = createServer((req, res) => {
        let body = "";
        req.setEncoding("utf8");
        req.on("data", (chunk: string) => (body += chunk));
        req.on("end", () => {
          let event: { type: string; data: { record: { id: string; runId?: string }; result: unknown } };
          try {
            event = webhook.verify(body, req.headers as Record<string, string>) as typeof event;
          } catch {
            res.writeHead(401).end(); // forged, changed or replayed: never act on it
            return;
          }
          res.writeHead(204).end();
          const id = req.headers["webhook-id"] as string;
          if (handled.has(id)) return; // a retry of one already handled
          handled.add(id);
          handle(event);
        });
      });
      server.listen(Number(process.env.PORT ?? 3000));
      // end README
      open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
      await new Promise<void>((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())));
      const gw = await gateway([`http://127.0.0.1:${port}/`], secret);
      const { id } = await rpcOk(gw.url, "question.request", oneQuestion({ runId: "n8n-execution-81" }));
      await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
      await expect.poll(() => events.length).toBe(1);
      expect(events[0]).toMatchObject({ type: "question.resolved", data: { record: { id, runId: "n8n-execution-81" }, result: { status: "answered" } } });
      await expect.poll(() => deliveries(gw.url, "sent")).toBe(1);

      // A retry: the same webhook-id again, signed for this try, is answered but not handled twice.
      const body = JSON.stringify({ type: "question.resolved", timestamp: new Date().toISOString(), data: { record: { id: "q-x" }, result: null } });
      const post = (msgId: string, signWith: string, text = body) => {
        const at = new Date();
        const headers = { "webhook-id": msgId, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(signWith).sign(msgId, at, text) };
        return fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: text });
      };
      expect((await post("msg_retry", secret)).status).toBe(204);
      expect((await post("msg_retry", secret)).status).toBe(204);
      expect((await post("msg_forged", newWebhookSecret())).status).toBe(401);
      expect(events.map((e) => e.data.record.id)).toEqual([id, "q-x"]);
    } finally {
      process.env.WEBHOOK_SECRET = saved.secret;
      process.env.PORT = saved.port;
      if (saved.secret === undefined) delete process.env.WEBHOOK_SECRET;
      if (saved.port === undefined) delete process.env.PORT;
    }
  });
});

describe("webhooks: retries", () => {
  it("retries a receiver that answers 500 with the same webhook-id and body, and counts retried and sent", async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(secret, ({ n }) => (n < 2 ? 500 : 200));
    const gw = await gateway([hook.url], secret);
    const { id } = await rpcOk(gw.url, "question.request", oneQuestion());
    await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    await hook.waitFor((r) => r.length >= 3 && r);
    expect(hook.received.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(new Set(hook.received.map((r) => r.id)).size).toBe(1);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    expect(hook.received.every((r) => r.verifyError === undefined)).toBe(true);
    await expect.poll(() => deliveries(gw.url, "sent")).toBe(1);
    expect(await deliveries(gw.url, "retried")).toBe(2);
    expect(await deliveries(gw.url, "given_up")).toBe(0);
    expect(gw.lines.some((l) => l.includes("given up"))).toBe(false);
  });

  it("times out a receiver that hangs and retries it, while the others' webhooks go out meanwhile", async () => {
    const secret = newWebhookSecret();
    let hang = true;
    const slow = await receiver(secret, () => (hang ? "hang" : 200));
    const fast = await receiver(secret);
    const gw = await gateway([slow.url, fast.url], secret, { config: { WEBHOOK_TIMEOUT_SECONDS: 2 } });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { id } = await rpcOk(gw.url, "question.request", oneQuestion());
      await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
      ids.push(id);
    }
    // All six reach the fast receiver while the slow one still holds its first tries open.
    await fast.waitFor((r) => r.length === 6 && r);
    expect(slow.held()).toBeGreaterThan(0);
    await expect.poll(() => deliveries(gw.url, "retried"), { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    hang = false;
    await slow.waitFor((r) => slow.acceptedIds().size === 6 && r, 60_000, "the slow receiver to take all six");
    const firstTries = new Map<string, number>();
    for (const r of slow.received) firstTries.set(r.id, (firstTries.get(r.id) ?? 0) + 1);
    expect([...firstTries.values()].some((n) => n >= 2)).toBe(true);
    expect([...slow.acceptedIds().values()]).toEqual([1, 1, 1, 1, 1, 1]);
    expect(fast.received.map((r) => payloadOf(r).data.record.id).sort()).toEqual([...ids].sort());
  });

  it("on a graceful stop leaves a try in flight to its lease: the next start sends it again with the same id", async () => {
    const secret = newWebhookSecret();
    let hold = true;
    const hook = await receiver(secret, () => (hold ? "hang" : 200));
    const dataDir = tempDir();
    const first = await gateway([hook.url], secret, { config: { DATA_DIR: dataDir }, webhooks: { leaseMs: 1_500 } });
    const { id } = await rpcOk(first.url, "question.request", oneQuestion());
    await rpcOk(first.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    const held = await hook.waitFor((r) => r[0]);
    await first.close();
    hold = false;
    const second = await gateway([hook.url], secret, { config: { DATA_DIR: dataDir }, webhooks: { leaseMs: 1_500 } });
    await hook.waitFor((r) => hook.acceptedIds().size === 1 && r, 20_000);
    expect([...hook.acceptedIds()]).toEqual([[held.id, 1]]);
    expect(hook.received.map((r) => r.id)).toEqual([held.id, held.id]);
    await expect.poll(() => deliveries(second.url, "sent")).toBe(1);
    expect(await metric(second.url, "ask_user_bridge_webhooks_pending")).toBe(0);
  });

  it("gives up, unsent, what is left for a URL taken out of WEBHOOK_URLS", async () => {
    const secret = newWebhookSecret();
    const removed = await receiver(secret, () => 500);
    const kept = await receiver(secret);
    const dataDir = tempDir();
    const quick = { retryBaseMs: 100, leaseMs: 500 };
    const first = await gateway([removed.url], secret, { config: { DATA_DIR: dataDir }, webhooks: quick });
    const { id } = await rpcOk(first.url, "question.request", oneQuestion());
    await rpcOk(first.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    await removed.waitFor((r) => r[0]);
    await first.close();
    const triedBefore = removed.received.length;
    const second = await gateway([kept.url], secret, { config: { DATA_DIR: dataDir }, webhooks: quick });
    await expect.poll(() => deliveries(second.url, "given_up"), { timeout: 20_000 }).toBe(1);
    expect(await metric(second.url, "ask_user_bridge_webhooks_pending")).toBe(0);
    expect(second.lines.find((l) => l.includes("given up"))).toContain("its URL is no longer in WEBHOOK_URLS");
    expect(removed.received).toHaveLength(triedBefore);
    expect(kept.received).toEqual([]);
  });

  it("does not follow a redirect: it is a failed try, retried at the same URL", async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(secret, ({ n, path }) => (path === "/redirected" ? 200 : n === 0 ? 307 : 200));
    const gw = await gateway([`${hook.url}/hook`], secret);
    const { id } = await rpcOk(gw.url, "question.request", oneQuestion());
    await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    await hook.waitFor((r) => r.length >= 2 && r);
    expect(hook.received.map((r) => [r.path, r.answered])).toEqual([["/hook", 307], ["/hook", 200]]);
    await expect.poll(() => deliveries(gw.url, "sent")).toBe(1);
    expect(await deliveries(gw.url, "retried")).toBe(1);
  });

  it("gives up once the retry window after the event has closed, logs it at warn, and counts it", async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(secret, () => 503);
    const gw = await gateway([hook.url], secret, { webhooks: { retryWindowMs: 2_000, retryBaseMs: 200 } });
    const { id } = await rpcOk(gw.url, "question.request", oneQuestion());
    await rpcOk(gw.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    await expect.poll(() => deliveries(gw.url, "given_up"), { timeout: 20_000 }).toBe(1);
    const tries = hook.received.length;
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(new Set(hook.received.map((r) => r.id)).size).toBe(1);
    expect(await deliveries(gw.url, "retried")).toBe(tries - 1);
    expect(await metric(gw.url, "ask_user_bridge_webhooks_pending")).toBe(0);
    expect(gw.lines.find((l) => l.includes("given up"))).toMatch(new RegExp(`webhook msg_\\S+ \\(question.resolved of question ${id}\\) to http://127.0.0.1:\\d+: given up after ${tries} tries .*HTTP 503`));
    // Given up is final: no more tries.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(hook.received).toHaveLength(tries);
  });
});

describe("webhooks: configuration", () => {
  const secret = newWebhookSecret();
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error.problems;
    }
  };

  it("takes comma-separated http(s) URLs and a whsec_ secret, or the base64 alone", () => {
    const config = loadConfig({ WEBHOOK_URLS: " https://n8n.example.com/webhook/a , http://127.0.0.1:5678/b,https://n8n.example.com/webhook/a", WEBHOOK_SECRET: secret });
    expect(config.WEBHOOK_URLS).toEqual(["https://n8n.example.com/webhook/a", "http://127.0.0.1:5678/b"]);
    expect(config.WEBHOOK_TIMEOUT_SECONDS).toBe(10);
    expect(loadConfig({ WEBHOOK_URLS: "https://x.example/h", WEBHOOK_SECRET: secret.slice(6) }).WEBHOOK_SECRET).toBe(secret.slice(6));
    expect(loadConfig({}).WEBHOOK_URLS).toEqual([]);
  });

  it.each([
    [{ WEBHOOK_URLS: "https://x.example/h" }, "WEBHOOK_SECRET: is required when WEBHOOK_URLS is set"],
    [{ WEBHOOK_SECRET: secret }, "WEBHOOK_URLS: is required when WEBHOOK_SECRET is set"],
    [{ WEBHOOK_URLS: "https://x.example/h,ftp://files.example/drop", WEBHOOK_SECRET: secret }, `WEBHOOK_URLS: "ftp://files.example/drop" is not an http:// or https:// URL`],
    [{ WEBHOOK_URLS: "not a url", WEBHOOK_SECRET: secret }, `WEBHOOK_URLS: "not a url" is not an http:// or https:// URL`],
    [{ WEBHOOK_URLS: "https://user:pw@x.example/h", WEBHOOK_SECRET: secret }, "WEBHOOK_URLS: \"x.example…\" holds a user name or password"],
    [{ WEBHOOK_URLS: "https://x.example/h", WEBHOOK_SECRET: "whsec_c2hvcnQ=" }, "WEBHOOK_SECRET: must be whsec_ and the base64 of 24 to 64 random bytes"],
    [{ WEBHOOK_URLS: "https://x.example/h", WEBHOOK_SECRET: "whsec_not base64 at all!!" }, "WEBHOOK_SECRET: must be whsec_"],
    [{ WEBHOOK_URLS: "https://x.example/h", WEBHOOK_SECRET: secret, WEBHOOK_TIMEOUT_SECONDS: "0" }, "WEBHOOK_TIMEOUT_SECONDS:"],
  ])("refuses %j", (env, message) => {
    const found = problems(env as Record<string, string>);
    expect(found.join("\n")).toContain(message);
    expect(found.join("\n")).not.toContain(secret.slice(6));
  });

  it("counts the secret, in both forms, among the deployment's secrets (log redaction, the credential filter)", () => {
    const config = loadConfig({ WEBHOOK_URLS: "https://x.example/h", WEBHOOK_SECRET: secret });
    expect(deploymentSecrets(config)).toEqual(expect.arrayContaining([secret, secret.slice(6)]));
  });

  it("refuses an answer holding the webhook secret", async () => {
    const gw = await gateway(["http://127.0.0.1:9/never"], secret);
    const { id } = await rpcOk(gw.url, "question.request", oneQuestion());
    const res = await fetch(`${gw.url}/rpc/question.resolve`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ id, answers: { deploy_target: `here it is ${secret.slice(6)}` } }),
    });
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("CREDENTIAL_REFUSED");
  });
});
