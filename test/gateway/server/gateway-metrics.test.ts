/**
 * /healthz, /readyz and /metrics (issue #19 §3): a scenario runs against an in-process gateway, then /metrics is
 * scraped and every counter must have moved by exactly what the scenario did.
 */
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/runtime/config.ts";
import { hashToken, newScopedToken } from "../../../src/gateway/auth/principal.ts";
import { cleanup, oneQuestion, RawWs, rpcOk, sleep, startTestGateway, TOKEN, type TestGateway } from "../../helpers/gateway.ts";

const METRICS_TOKEN = "m".repeat(32);

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The Prometheus text format's samples (comments and blank lines skipped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name whose labels are exactly `labels`; 0 when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples match ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

async function scrape(gateway: TestGateway, token: string | null = TOKEN): Promise<{ status: number; text: string; contentType: string | null }> {
  const res = await fetch(`${gateway.url}/metrics`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text(), contentType: res.headers.get("content-type") };
}

/** A scoped bot credential for `surface`, added to the running gateway's own credential store. */
async function botToken(gateway: TestGateway, surface: string): Promise<string> {
  const { id, token } = newScopedToken();
  await gateway.credentials.add({ id, name: `${surface}-bot`, role: `bot:${surface}` as never, createdAtMs: Date.now() }, hashToken(token));
  return token;
}

async function settled(gateway: TestGateway, id: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const record = await rpcOk(gateway.url, "question.get", { id });
    if (record.status !== "pending") return record;
    await sleep(50);
  }
  throw new Error(`question ${id} never settled`);
}

const P = "ask_user_bridge_";

afterAll(cleanup);

describe("/metrics after a scenario", () => {
  it("counts questions asked, resolved, delivered and failed; times answers, deliveries and store calls", async () => {
    const gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 1, METRICS_TOKEN });
    const bot = await RawWs.connect(gateway.wsUrl, await botToken(gateway, "telegram"));
    try {
      const before = parseMetrics((await scrape(gateway)).text);
      expect(value(before, `${P}questions_pending`)).toBe(0);

      const answered = await rpcOk(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "123" }, { surface: "web" }] }));
      const cancelled = await rpcOk(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "web" }] }));
      const undelivered = await rpcOk(gateway.url, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "456" }] }));

      const midway = parseMetrics((await scrape(gateway)).text);
      expect(value(midway, `${P}questions_pending`)).toBe(3);

      await bot.ok("question.delivered", { id: answered.id, surface: "telegram", chat: "123", messageRef: "m1" });
      // A repeated report keeps the first copy, and is not timed twice.
      await bot.ok("question.delivered", { id: answered.id, surface: "telegram", chat: "123", messageRef: "m1" });
      await rpcOk(gateway.url, "question.resolve", { id: answered.id, answers: { deploy_target: ["Production"] } });
      await rpcOk(gateway.url, "question.resolve", { id: cancelled.id, cancel: true });
      expect((await settled(gateway, undelivered.id)).reason).toBe("delivery_failed");

      const { status, text, contentType } = await scrape(gateway);
      expect(status).toBe(200);
      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      const after = parseMetrics(text);

      expect(value(after, `${P}questions_asked_total`, { surface: "telegram" })).toBe(2);
      expect(value(after, `${P}questions_asked_total`, { surface: "web" })).toBe(2);
      expect(value(after, `${P}questions_resolved_total`, { status: "answered", reason: "answered" })).toBe(1);
      expect(value(after, `${P}questions_resolved_total`, { status: "cancelled", reason: "cancelled" })).toBe(1);
      expect(value(after, `${P}questions_resolved_total`, { status: "cancelled", reason: "delivery_failed" })).toBe(1);
      expect(value(after, `${P}questions_resolved_total`, { status: "expired", reason: "expired" })).toBe(0);
      expect(value(after, `${P}questions_pending`)).toBe(0);

      expect(value(after, `${P}time_to_answer_seconds_count`)).toBe(1);
      expect(value(after, `${P}time_to_answer_seconds_bucket`, { le: "+Inf" })).toBe(1);
      expect(value(after, `${P}delivery_latency_seconds_count`, { surface: "telegram" })).toBe(1);
      expect(value(after, `${P}delivery_failures_total`, { surface: "telegram" })).toBe(1);
      expect(value(after, `${P}delivery_failures_total`, { surface: "web" })).toBe(0);

      expect(value(after, `${P}connections`, { role: "bot", surface: "telegram" })).toBe(1);
      // Three creates, each committed; three resolutions (the answer, the cancel, the delivery failure); one copy
      // recorded per report.
      expect(value(after, `${P}store_operation_seconds_count`, { operation: "create", outcome: "ok" })).toBe(3);
      expect(value(after, `${P}store_operation_seconds_count`, { operation: "resolve", outcome: "ok" })).toBe(3);
      expect(value(after, `${P}store_operation_seconds_count`, { operation: "addDelivery", outcome: "ok" })).toBe(2);

      // prom-client's process metrics.
      expect(after.some((s) => s.name === "process_cpu_user_seconds_total")).toBe(true);
      expect(after.some((s) => s.name === "nodejs_heap_size_used_bytes")).toBe(true);
    } finally {
      bot.close();
      await gateway.close();
    }
  });
});

describe("/metrics for when nobody answers (issue 20)", () => {
  it("counts reminders fired, escalation steps taken and late answers taken", async () => {
    const gateway = await startTestGateway({ METRICS_TOKEN });
    try {
      const { id } = await rpcOk(gateway.url, "question.request", oneQuestion({ timeoutSeconds: 2, reminders: [1], lateAnswerSeconds: 30, escalate: [{ afterSeconds: 1, targets: [{ surface: "web" }] }] }));
      expect((await settled(gateway, id)).status).toBe("expired");
      await rpcOk(gateway.url, "question.resolve", { id, answers: { deploy_target: ["Production"] } });
      const after = parseMetrics((await scrape(gateway)).text);
      expect(value(after, `${P}follow_ups_total`, { kind: "reminder" })).toBe(1);
      expect(value(after, `${P}follow_ups_total`, { kind: "escalation" })).toBe(1);
      expect(value(after, `${P}follow_ups_total`, { kind: "late_answer" })).toBe(1);
    } finally {
      await gateway.close();
    }
  });
});

describe("/metrics authentication", () => {
  it("needs the gateway token or METRICS_TOKEN, unless METRICS_PUBLIC", async () => {
    const gateway = await startTestGateway({ STORE: "memory", METRICS_TOKEN });
    try {
      const refused = await scrape(gateway, null);
      expect(refused.status).toBe(401);
      expect(refused.text).not.toContain(P);
      expect((await scrape(gateway, "z".repeat(32))).status).toBe(401);
      expect((await scrape(gateway, TOKEN)).status).toBe(200);
      const viaMetricsToken = await scrape(gateway, METRICS_TOKEN);
      expect(viaMetricsToken.status).toBe(200);
      expect(viaMetricsToken.text).toContain(`${P}questions_asked_total`);
    } finally {
      await gateway.close();
    }
    const open = await startTestGateway({ STORE: "memory", METRICS_PUBLIC: true });
    try {
      expect((await scrape(open, null)).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it("a scoped bot token does not read /metrics", async () => {
    const gateway = await startTestGateway({ STORE: "memory" });
    try {
      expect((await scrape(gateway, await botToken(gateway, "slack"))).status).toBe(401);
    } finally {
      await gateway.close();
    }
  });
});

describe("/healthz and /readyz", () => {
  it("/healthz answers; /readyz lists each connected bot by surface with its last heartbeat's age", async () => {
    const gateway = await startTestGateway();
    const bot = await RawWs.connect(gateway.wsUrl, await botToken(gateway, "discord"));
    const admin = await RawWs.connect(gateway.wsUrl);
    try {
      const health = await fetch(`${gateway.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true });

      await sleep(50);
      await bot.ok("question.list", {}).catch(() => undefined); // a frame: the bot was just heard from
      const res = await fetch(`${gateway.url}/readyz`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.ready).toBe(true);
      expect(body.store.ok).toBe(true);
      expect(typeof body.store.ms).toBe("number");
      expect(body.bots).toHaveLength(1);
      expect(body.bots[0].surface).toBe("discord");
      expect(body.bots[0].connectedForMs).toBeGreaterThanOrEqual(50);
      expect(body.bots[0].lastSeenMsAgo).toBeLessThan(body.bots[0].connectedForMs);
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    } finally {
      bot.close();
      admin.close();
      await gateway.close();
    }
  });

  it("a bot on the admin token that declares its surface is a bot in /readyz and in the connections gauge", async () => {
    const gateway = await startTestGateway();
    const bot = await RawWs.open(gateway.wsUrl);
    const agent = await RawWs.connect(gateway.wsUrl);
    try {
      expect((await bot.request("connect", { token: TOKEN, surface: "slack" })).ok).toBe(true);
      const body = (await (await fetch(`${gateway.url}/readyz`)).json()) as any;
      expect(body.bots).toEqual([expect.objectContaining({ surface: "slack" })]);
      const { text } = await scrape(gateway);
      expect(text).toContain('ask_user_bridge_connections{role="admin",surface="slack"} 1');
      expect(text).toContain('ask_user_bridge_connections{role="admin",surface="admin"} 1');
    } finally {
      bot.close();
      agent.close();
      await gateway.close();
    }
  });

  it("/readyz counts a bot's heartbeat ping as hearing from it, though it sends no frame while idle", async () => {
    const gateway = await startTestGateway();
    const bot = await RawWs.connect(gateway.wsUrl, await botToken(gateway, "telegram"));
    try {
      await sleep(400);
      const readBot = async () => ((await (await fetch(`${gateway.url}/readyz`)).json()) as any).bots[0];
      expect((await readBot()).lastSeenMsAgo).toBeGreaterThanOrEqual(350);
      bot.socket.ping(); // what the client does every 15 s
      await sleep(50);
      expect((await readBot()).lastSeenMsAgo).toBeLessThan(200);
    } finally {
      bot.close();
      await gateway.close();
    }
  });

  it("/readyz is 503 when the store cannot answer", async () => {
    const gateway = await startTestGateway();
    try {
      await gateway.store.close();
      const res = await fetch(`${gateway.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as any;
      expect(body.ready).toBe(false);
      expect(body.store.ok).toBe(false);
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    } finally {
      await gateway.close().catch(() => undefined);
    }
  });
});

describe("METRICS_TOKEN and METRICS_PUBLIC", () => {
  it.each([
    [{}, undefined, false],
    [{ METRICS_TOKEN: METRICS_TOKEN, METRICS_PUBLIC: "1" }, METRICS_TOKEN, true],
    [{ METRICS_PUBLIC: "true" }, undefined, true],
    [{ METRICS_PUBLIC: "0" }, undefined, false],
    [{ METRICS_PUBLIC: "false" }, undefined, false],
  ])("%j", (env, token, open) => {
    const config = loadConfig(env);
    expect(config.METRICS_TOKEN).toBe(token);
    expect(config.METRICS_PUBLIC).toBe(open);
  });

  it.each([
    [{ METRICS_TOKEN: "short" }, /METRICS_TOKEN: must be at least 32 characters/],
    [{ METRICS_PUBLIC: "yes please" }, /METRICS_PUBLIC: must be "1" or "true"/],
  ])("refuses %j", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
