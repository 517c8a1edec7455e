/**
 * Delivery claims: several bot processes for one platform, each with its own gateway connection and delivery loop,
 * against one real gateway. Every copy is sent exactly once; a claim whose bot dies before sending lapses, and another
 * bot then sends the copy, so the question is still delivered.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDeliveryLoop, type SurfaceAdapter } from "../../../src/bridge/delivery.ts";
import { createRecordCache } from "../../../src/bridge/record-cache.ts";
import { connectGateway, type GatewayClient } from "../../../src/client/index.ts";
import type { QuestionRecord, Target } from "../../../src/record/record.ts";
import { oneQuestion, TOKEN, useTestGateway } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

const gateway = useTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
const clients: GatewayClient[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

/** A bot process: its own connection, cache and delivery loop, with an adapter that records every send. */
async function startBot(name: string, { claimLeaseMs, hang = false }: { claimLeaseMs?: number; hang?: boolean } = {}) {
  const client = await connectGateway({ url: gateway.url, token: TOKEN });
  clients.push(client);
  const sends: string[] = [];
  const adapter: SurfaceAdapter = {
    surface: "telegram",
    async sendPrompt(record: QuestionRecord, target: Target) {
      sends.push(`${record.id}:${target.chat}`);
      if (hang) return new Promise<string>(() => {}); // the process died mid-send: never reports
      return `${name}-${sends.length}`;
    },
    async updatePrompt() {},
  };
  const loop = createDeliveryLoop({ client, adapter, cache: createRecordCache(), claimant: name, ...(claimLeaseMs ? { claimLeaseMs } : {}) });
  await loop.start();
  return { sends };
}

describe("delivery claims", () => {
  it("sends each copy exactly once with three bot processes for one platform", async () => {
    const bots = await Promise.all(["bot-a", "bot-b", "bot-c"].map((name) => startBot(name)));
    const asker = await connectGateway({ url: gateway.url, token: TOKEN });
    clients.push(asker);
    const targets = [{ surface: "telegram" as const, chat: "1" }, { surface: "telegram" as const, chat: "2" }];
    const ids = await Promise.all(Array.from({ length: 40 }, async () => (await asker.request(oneQuestion({ targets }))).id));
    const records = await waitUntil(async () => {
      const all = await Promise.all(ids.map((id) => asker.get(id)));
      return all.every((r) => r.deliveries.length === 2) ? all : undefined;
    }, "every copy delivered");
    const sends = bots.flatMap((b) => b.sends);
    expect(sends).toHaveLength(80);
    expect(new Set(sends).size).toBe(80);
    // Every recorded copy is the one message its sender made.
    for (const record of records) expect(record.deliveries.map((d) => d.chat).sort()).toEqual(["1", "2"]);
  });

  it("lets another bot send a copy whose claimant died before reporting it, once the lease lapses", async () => {
    const dead = await startBot("bot-dead", { claimLeaseMs: 1_000, hang: true });
    const asker = await connectGateway({ url: gateway.url, token: TOKEN });
    clients.push(asker);
    const { id } = await asker.request(oneQuestion({ targets: [{ surface: "telegram", chat: "9" }] }));
    await waitUntil(() => (dead.sends.length === 1 ? true : undefined), "the first bot's send");
    const startedAt = Date.now();
    const alive = await startBot("bot-alive", { claimLeaseMs: 1_000 });
    const record = await waitUntil(async () => {
      const r = await asker.get(id);
      return r.deliveries.length === 1 ? r : undefined;
    }, "the copy delivered by the other bot");
    expect(alive.sends).toEqual([`${id}:9`]);
    expect(record.deliveries[0]?.messageRef).toBe("bot-alive-1");
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });
});
