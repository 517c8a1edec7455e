/**
 * Floods: a burst of 300 questions into the Telegram fake, which enforces Telegram's limits (30 messages a second
 * overall, 1 a second per chat) with 429 + retry_after. The real Telegram bot, with its production throttler and
 * auto-retry defaults, delivers every question exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramBot } from "../../bots/telegram/index.ts";
import type { RunningBot } from "../../bots/shared.ts";
import { loadConfig } from "../../src/runtime/config.ts";
import { startFakeTelegram, type FakeTelegram } from "../platforms/telegram/fake-api.ts";
import { cleanup, rpcOk, sleep, startTestGateway, tempDir, TOKEN, type TestGateway } from "../helpers/gateway.ts";

const QUESTIONS = 300;
const CHATS = 30;
const chatIds = Array.from({ length: CHATS }, (_, i) => 7_001 + i); // private chats: 1 message a second each

function question(n: number) {
  return {
    questions: [{ id: "pick", header: "Flood", question: `Flood question ${n}: which one?`, options: [{ label: "One" }, { label: "Two" }] }],
    timeoutSeconds: 900,
    runId: "flood",
    targets: [{ surface: "telegram", chat: String(chatIds[n % CHATS]) }],
  };
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

describe("floods", () => {
  let fake: FakeTelegram;
  let gateway: TestGateway;
  let bot: RunningBot | undefined;

  beforeAll(async () => {
    fake = await startFakeTelegram({ limits: { perSecond: 30, perChatPerSecond: 1 } });
    gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 120 });
    const config = loadConfig({
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      DATA_DIR: tempDir("aub-flood-"),
      TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
      TELEGRAM_API_ROOT: fake.apiRoot,
    });
    // Production defaults: no `throttle` override.
    bot = await startTelegramBot(config, { log: () => {} });
  });
  afterAll(async () => {
    await bot?.stop();
    await gateway?.close();
    await fake?.close();
    await cleanup();
  });

  it("a burst of 300 questions under Telegram's limits is delivered completely, each prompt exactly once", async () => {
    const started = Date.now();
    const ids = await pool(
      Array.from({ length: QUESTIONS }, (_, n) => n),
      50,
      async (n) => (await rpcOk(gateway.url, "question.request", question(n))).id as string,
    );
    const created = Date.now();

    // Every question reaches its chat: the gateway records one delivery each.
    const deadline = Date.now() + 120_000;
    let records: any[] = [];
    for (;;) {
      records = (await rpcOk(gateway.url, "question.list", { runId: "flood", limit: 1000 })).questions;
      if (records.length === QUESTIONS && records.every((r) => r.deliveries.length > 0)) break;
      if (Date.now() > deadline) {
        const missing = records.filter((r) => r.deliveries.length === 0).length;
        throw new Error(`after 120 s, ${missing} of ${QUESTIONS} questions were still undelivered (429s so far: ${fake.rateLimited()})`);
      }
      await sleep(250);
    }
    const delivered = Date.now();
    await sleep(1_500); // a late duplicate would show up here

    const sends = fake.calls.filter((c) => c.method === "sendMessage" && !c.failed);
    const byQuestion = new Map<string, Array<{ chat: number }>>();
    for (const call of sends) {
      const data = JSON.stringify(call.body.reply_markup ?? "");
      const id = ids.find((q) => data.includes(`|${q}|`));
      if (id) byQuestion.set(id, [...(byQuestion.get(id) ?? []), { chat: Number(call.body.chat_id) }]);
    }
    const byId = new Map(records.map((r) => [r.id, r]));
    let duplicates = 0;
    ids.forEach((id, n) => {
      const record = byId.get(id)!;
      expect(record.status).toBe("pending");
      expect(record.deliveries).toHaveLength(1);
      expect(record.deliveries[0]).toMatchObject({ surface: "telegram", chat: String(chatIds[n % CHATS]) });
      const prompts = byQuestion.get(id) ?? [];
      if (prompts.length > 1) duplicates++;
      expect(prompts, `prompts of question ${n}`).toEqual([{ chat: chatIds[n % CHATS] }]);
      const message = fake.messages().find((m) => m.chat.id === chatIds[n % CHATS] && String(m.message_id) === record.deliveries[0].messageRef);
      expect(message?.text).toContain(`Flood question ${n}:`);
    });
    // The limits held: never more than one message a second in a chat (with the fake's 50 ms grace).
    for (const chat of chatIds) {
      const times = sends.filter((c) => Number(c.body.chat_id) === chat).map((c) => c.atMs!);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(950);
    }

    const limited = fake.calls.filter((c) => c.limited).length;
    console.log(
      `[flood] questions=${QUESTIONS} chats=${CHATS} delivered=${byQuestion.size} duplicates=${duplicates} 429s=${limited} ` +
        `create=${created - started}ms deliver=${delivered - started}ms (production throttler: 30/s overall, 1/s per private chat)`,
    );
    expect(duplicates).toBe(0);
    expect(byQuestion.size).toBe(QUESTIONS);

    // Stop the bot before the questions are cancelled, so the flood of summary edits does not outlive the test.
    await bot!.stop();
    bot = undefined;
    await pool(ids, 50, (id) => rpcOk(gateway.url, "question.resolve", { id, cancel: true, reason: "cancelled" }));
  }, 150_000);
});
