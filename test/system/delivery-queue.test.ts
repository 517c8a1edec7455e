/**
 * A question queued behind a platform's rate limit has not failed delivery (issue 18, §4), at the gateway: a bot
 * that claims every copy at once, renews its claims while its sends wait their turn, and sends one message per chat
 * every 150 ms delivers a burst of 300 questions to 30 chats in about 1.5 s, past a 1 s delivery deadline. Every
 * question must end up delivered and none `delivery_failed`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import { cleanup, oneQuestion, sleep, startTestGateway, TOKEN, type TestGateway } from "../helpers/gateway.ts";

const CHATS = 30;
const PER_CHAT = 10;
const SEND_EVERY_MS = 150;

let gateway: TestGateway;
let client: GatewayClient;
beforeAll(async () => {
  gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 1 });
  client = await connectGateway({ url: gateway.url, token: TOKEN });
});
afterAll(async () => {
  client.close();
  await gateway.close();
  await cleanup();
});

describe("a burst queued behind a rate limit", { timeout: 30_000 }, () => {
  it(`delivers ${CHATS * PER_CHAT} questions to ${CHATS} chats past the delivery deadline, none delivery_failed`, async () => {
    const queues = await Promise.all(
      Array.from({ length: CHATS }, async (_, chat) => {
        const ids: string[] = [];
        for (let i = 0; i < PER_CHAT; i++) ids.push((await client.request(oneQuestion({ targets: [{ surface: "telegram", chat: `${chat}` }] }))).id);
        return { chat: `${chat}`, ids };
      }),
    );
    const started = Date.now();
    const claim = (id: string, chat: string) => client.claimDelivery({ id, surface: "telegram", chat, claimant: "bot-1", leaseMs: 2_000 });
    const held = new Map<string, string>();
    for (const { chat, ids } of queues) for (const id of ids) held.set(id, chat);
    // Every copy is claimed at once, as the bot's delivery loop does when the burst arrives.
    expect((await Promise.all([...held].map(([id, chat]) => claim(id, chat)))).every((o) => o.ok)).toBe(true);
    // While a send waits its turn, the bot renews its claim.
    const renewing = setInterval(() => {
      for (const [id, chat] of held) void claim(id, chat).catch(() => undefined);
    }, 400);
    try {
      await Promise.all(
        queues.map(async ({ chat, ids }) => {
          for (const id of ids) {
            await sleep(SEND_EVERY_MS); // the platform's per-chat limit
            await client.delivered({ id, surface: "telegram", chat, messageRef: `m-${id}` });
            held.delete(id);
          }
        }),
      );
    } finally {
      clearInterval(renewing);
    }
    expect(Date.now() - started).toBeGreaterThan(1_300); // the last copies went out well past the 1 s deadline
    await sleep(2_200); // past every lease: nothing fails later either
    const records = (await client.listAll({ surface: "telegram", limit: 1000 })).filter((r) => held.size === 0 && queues.some((q) => q.ids.includes(r.id)));
    expect(records).toHaveLength(CHATS * PER_CHAT);
    expect(records.filter((r) => r.reason === "delivery_failed").map((r) => r.detail)).toEqual([]);
    expect(records.every((r) => r.status === "pending" && r.deliveries.length === 1)).toBe(true);
  });
});
