/**
 * Reminders across bot processes (issue 20 §1): several delivery loops for one platform, each with its own gateway
 * connection, against one real gateway. Each copy gets exactly one reminder per offset; a bot that dies mid-send
 * lets its claim lapse and another bot sends it; after the answer every reminder is deleted, or edited to the
 * answered line where the platform refuses the delete.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDeliveryLoop, type SurfaceAdapter } from "../../../src/bridge/delivery.ts";
import { renderedFingerprint } from "../../../src/bridge/copy-fingerprint.ts";
import { createRecordCache } from "../../../src/bridge/record-cache.ts";
import { reminderStillUseful } from "../../../src/record/reminder-timing.ts";
import { connectGateway, type GatewayClient } from "../../../src/client/index.ts";
import { oneQuestion, TOKEN, useTestGateway } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

const gateway = useTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
const clients: GatewayClient[] = [];
const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const client of clients.splice(0)) client.close();
});

/** A bot process whose adapter records every prompt, reminder, delete and edit. */
async function startBot(
  name: string,
  { deletes = true, hangReminders = false, claimLeaseMs, fingerprints = false }: { deletes?: boolean; hangReminders?: boolean; claimLeaseMs?: number; fingerprints?: boolean } = {},
) {
  const client = await connectGateway({ url: gateway.url, token: TOKEN });
  clients.push(client);
  const reminders: Array<{ prompt: string; text: string; ref: string }> = [];
  const deleted: string[] = [];
  const edited: Array<{ ref: string; text: string }> = [];
  let prompts = 0;
  const adapter: SurfaceAdapter = {
    surface: "telegram",
    sendPrompt: async () => `${name}-prompt-${++prompts}`,
    async updatePrompt() {},
    ...(fingerprints ? { renderedOf: (record: { status: string }) => record.status } : {}),
    reminders: {
      async send(delivery, text) {
        if (hangReminders) return new Promise<string>(() => {}); // the process died mid-send
        const ref = `${name}-reminder-${reminders.length + 1}`;
        reminders.push({ prompt: delivery.messageRef, text, ref });
        return ref;
      },
      async delete(reminder) {
        deleted.push(reminder.messageRef);
        return deletes;
      },
      async edit(reminder, text) {
        edited.push({ ref: reminder.messageRef, text });
      },
    },
  };
  const loop = createDeliveryLoop({ client, adapter, cache: createRecordCache(), claimant: name, ...(claimLeaseMs ? { claimLeaseMs } : {}) });
  await loop.start();
  stops.push(() => loop.stop());
  return { reminders, deleted, edited };
}

async function asker() {
  const client = await connectGateway({ url: gateway.url, token: TOKEN });
  clients.push(client);
  return client;
}

const targets = [{ surface: "telegram" as const, chat: "1" }, { surface: "telegram" as const, chat: "2" }];

describe("reminders across bot processes", () => {
  it("three bots send each copy's reminder exactly once, and the answer deletes every one", async () => {
    const bots = await Promise.all(["bot-a", "bot-b", "bot-c"].map((name) => startBot(name)));
    const client = await asker();
    const ids = await Promise.all(Array.from({ length: 10 }, async () => (await client.request(oneQuestion({ targets, timeoutSeconds: 5, reminders: [4] }))).id));
    await waitUntil(async () => (await Promise.all(ids.map((id) => client.get(id)))).every((r) => r.reminderCopies?.length === 2), "every reminder recorded", 15_000);
    const sent = bots.flatMap((b) => b.reminders);
    expect(sent).toHaveLength(20);
    expect(new Set(sent.map((r) => r.prompt)).size).toBe(20);
    for (const reminder of sent) expect(reminder.text).toMatch(/^⏰ Still waiting for your answer — \d s left\.$/u);
    await Promise.all(ids.map((id) => client.resolve({ id, answers: { deploy_target: "Production" } })));
    await waitUntil(() => sent.every((r) => bots.some((b) => b.deleted.includes(r.ref))), "every reminder deleted");
    expect(bots.flatMap((b) => b.edited)).toEqual([]);
  });

  it("a bot that dies mid-send lets the claim lapse: another bot sends that reminder, once", async () => {
    const dead = await startBot("bot-dead", { hangReminders: true, claimLeaseMs: 1_000 });
    const client = await asker();
    const { id } = await client.request(oneQuestion({ targets: [targets[0]!], timeoutSeconds: 8, reminders: [7] }));
    await waitUntil(async () => (await client.get(id)).remindersSent?.length === 1, "the reminder fired");
    const alive = await startBot("bot-alive", { claimLeaseMs: 1_000 });
    await waitUntil(async () => (await client.get(id)).reminderCopies?.length === 1, "the reminder recorded", 10_000);
    expect(alive.reminders).toHaveLength(1);
    expect(dead.reminders).toHaveLength(0);
    expect((await client.get(id)).reminderCopies![0]!.messageRef).toBe(alive.reminders[0]!.ref);
    await client.resolve({ id, cancel: true, reason: "cancelled" });
  });

  it("where the platform refuses the delete, the reminder is edited to a short answered line", async () => {
    const bot = await startBot("bot-no-delete", { deletes: false });
    const client = await asker();
    const { id } = await client.request(oneQuestion({ targets: [targets[1]!], timeoutSeconds: 5, reminders: [4] }));
    await waitUntil(() => bot.reminders.length === 1, "the reminder");
    await client.resolve({ id, answers: { deploy_target: "Production" } });
    // (Its adapter keeps no fingerprints, so its first sync also cleans up the reminders of the earlier tests'
    // questions on the same gateway: it cannot tell whether their copies were settled.)
    const edit = await waitUntil(() => bot.edited.find((e) => e.ref === bot.reminders[0]!.ref), "the edit");
    expect(edit.text).toBe("✅ Answered — see the question above.");
  });

  it("a restarted bot does not delete again the reminders of questions whose copies it already settled", async () => {
    const first = await startBot("bot-first", { fingerprints: true });
    const client = await asker();
    const { id } = await client.request(oneQuestion({ targets: [targets[0]!], timeoutSeconds: 5, reminders: [4] }));
    await waitUntil(() => first.reminders.length === 1, "the reminder");
    await client.resolve({ id, answers: { deploy_target: "Production" } });
    await waitUntil(() => first.deleted.includes(first.reminders[0]!.ref), "the reminder deleted");
    await waitUntil(async () => (await client.get(id)).deliveries[0]?.rendered === renderedFingerprint("answered"), "the copy recorded as settled");
    const restarted = await startBot("bot-restarted", { fingerprints: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(restarted.deleted).not.toContain(first.reminders[0]!.ref);
  });

  it.each([
    [60_000, 600, true],
    [9_000, 600, false],
    [3_000, 5, true],
    [2_000, 5, false],
  ])("a reminder with %i ms left (offset %i s) is still useful: %s", (left, offset, useful) => {
    expect(reminderStillUseful({ expiresAtMs: 1_000_000 + left }, offset, 1_000_000)).toBe(useful);
  });
});
