/**
 * Webhooks across processes (issue 29 §4), with `ask-user-bridge gateway` as real child processes: the outbox row is
 * committed with the resolution, so a SIGKILL right after the commit (the receiver down, or holding the try open)
 * still delivers once after a restart, with the same webhook-id; and two instances on one PostgreSQL send each event
 * exactly once.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, freePort, oneQuestion, rpcOk, sleep, spawnCli, spawnGateway, tempDir, type ChildGateway } from "../../helpers/gateway.ts";
import { createTestDatabase } from "../../helpers/postgres.ts";
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from "../../fakes/webhook-receiver.ts";

const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
  await cleanup();
});

async function gatewayProcess(env: Record<string, string>): Promise<ChildGateway> {
  return spawnGateway({ GATEWAY_PORT: String(await freePort()), LOG_LEVEL: "info", ...env });
}

const resolvedIdsOf = (receiver: WebhookReceiver, questionId: string) =>
  receiver.received.filter((r) => (r.verified as { data?: { record?: { id?: string } } } | undefined)?.data?.record?.id === questionId).map((r) => r.id);

describe("webhooks across a SIGKILL", () => {
  it("delivers once after a restart what was committed while the receiver was down", async () => {
    const secret = newWebhookSecret();
    const port = await freePort(); // nothing listens there yet: every try fails to connect
    const env = { DATA_DIR: tempDir("aub-webhooks-"), WEBHOOK_URLS: `http://127.0.0.1:${port}/hook`, WEBHOOK_SECRET: secret };
    const first = await gatewayProcess(env);
    const { id } = await rpcOk(first.url, "question.request", oneQuestion());
    await rpcOk(first.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    await first.kill("SIGKILL"); // right after the commit was acknowledged
    const receiver = await startWebhookReceiver(secret, { port });
    receivers.push(receiver);
    const second = await gatewayProcess(env);
    await receiver.waitFor((r) => r.length > 0 && r, 30_000);
    await sleep(1_000);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.verifyError).toBeUndefined();
    expect(resolvedIdsOf(receiver, id)).toHaveLength(1);
    const logs = first.run.stdout() + first.run.stderr() + second.run.stdout() + second.run.stderr();
    expect(logs).not.toContain(secret.slice("whsec_".length));
    await second.kill("SIGTERM");
  });

  it("tries again, with the same webhook-id, a try that was in flight when the gateway was killed", async () => {
    const secret = newWebhookSecret();
    let hold = true;
    const receiver = await startWebhookReceiver(secret, { answer: () => (hold ? "hang" : 200) });
    receivers.push(receiver);
    // A 5 s timeout: the claim's lease (twice the timeout and 5 s) ends 15 s after the try began.
    const env = { DATA_DIR: tempDir("aub-webhooks-"), WEBHOOK_URLS: receiver.url, WEBHOOK_SECRET: secret, WEBHOOK_TIMEOUT_SECONDS: "5" };
    const first = await gatewayProcess(env);
    const { id } = await rpcOk(first.url, "question.request", oneQuestion());
    await rpcOk(first.url, "question.resolve", { id, answers: { deploy_target: "Production" } });
    const held = await receiver.waitFor((r) => r[0]);
    await first.kill("SIGKILL");
    hold = false;
    const second = await gatewayProcess(env);
    // The killed process's lease holds it for up to 15 s; then the restarted one sends it again.
    await receiver.waitFor((r) => receiver.acceptedIds().size === 1 && r, 60_000, "the retry after the lease");
    expect(receiver.acceptedIds()).toEqual(new Map([[held.id, 1]]));
    expect(resolvedIdsOf(receiver, id)).toEqual([held.id, held.id]);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    await second.kill("SIGTERM");
  }, 120_000);
});

describe("webhooks: a bad configuration stops the start", () => {
  it.each([
    ["URLs without a secret", { WEBHOOK_URLS: "https://hooks.example.com/a" }, "WEBHOOK_SECRET: is required when WEBHOOK_URLS is set"],
    ["a URL without a scheme", { WEBHOOK_URLS: "https://hooks.example.com/a,hooks.example.com/b", WEBHOOK_SECRET: newWebhookSecret() }, `WEBHOOK_URLS: "hooks.example.com/b" is not an http:// or https:// URL`],
    ["a secret not in the whsec_ form", { WEBHOOK_URLS: "https://hooks.example.com/a", WEBHOOK_SECRET: "hunter2" }, "WEBHOOK_SECRET: must be whsec_"],
  ])("%s", async (_case, env, message) => {
    const run = spawnCli(["gateway"], { DATA_DIR: tempDir("aub-webhooks-"), GATEWAY_PORT: String(await freePort()), ...env });
    const { code, stdout, stderr } = await run.exited;
    expect(code).not.toBe(0);
    expect(stdout + stderr).toContain(message);
    expect(stdout + stderr).not.toContain("listening on");
  });
});

describe("webhooks on PostgreSQL", () => {
  it("sends each event exactly once from two gateway instances sharing the database", async () => {
    const db = await createTestDatabase();
    try {
      const secret = newWebhookSecret();
      const receiver = await startWebhookReceiver(secret);
      receivers.push(receiver);
      const env = { DATABASE_URL: db.url, WEBHOOK_URLS: receiver.url, WEBHOOK_SECRET: secret };
      const instances = [await gatewayProcess(env), await gatewayProcess(env)];
      const ids: string[] = [];
      for (let i = 0; i < 24; i++) {
        const { id } = await rpcOk(instances[i % 2]!.url, "question.request", oneQuestion());
        ids.push(id);
      }
      // Resolved on the other instance than asked; a few expire instead (cancelled here: any ending is one event).
      await Promise.all(
        ids.map((id, i) =>
          i % 6 === 5
            ? rpcOk(instances[i % 2]!.url, "question.resolve", { id, cancel: true, reason: "skipped" })
            : rpcOk(instances[(i + 1) % 2]!.url, "question.resolve", { id, answers: { deploy_target: "Production" } }),
        ),
      );
      await receiver.waitFor((r) => receiver.acceptedIds().size === ids.length && r, 60_000, "every question's webhook");
      await sleep(2_000); // room for a duplicate to show up
      expect(receiver.received).toHaveLength(ids.length);
      expect([...receiver.acceptedIds().values()].every((n) => n === 1)).toBe(true);
      for (const id of ids) expect(resolvedIdsOf(receiver, id)).toHaveLength(1);
      await Promise.all(instances.map((gateway) => gateway.kill("SIGTERM")));
    } finally {
      await db.drop();
    }
  }, 120_000);
});
