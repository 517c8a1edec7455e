/**
 * Benchmark 10: 60 typed replies in 60 Telegram chats at once, against 60 button presses in 60 other chats.
 *
 * The real gateway (SQLite, a child process) and the real Telegram bot (grammY's runner, auto-retry and throttler at
 * their production defaults) talk to the fake Bot API behind the proxy that enforces Telegram's flood limits
 * (lib/rate-limited-telegram.ts: 30 messages a second overall, 1 a second per chat). In each phase 60 private chats
 * get their prompt, and the 60 answers come at once as soon as the last prompt is there, so the chats' own limits are
 * still in use: a "✅ Recorded" confirmation waits up to a second for its chat. A bot that handled updates one at a
 * time, each held on its confirmation send, would record 60 typed replies at the pace of those sends; presses answer
 * with a toast, which no chat limit holds.
 *
 * Measured, in each phase: from the moment all 60 updates are queued at the fake to the last `resolvedAtMs` the
 * gateway recorded. Presses go first, then (once their summaries are edited in) the typed replies, in other chats.
 * Goal: the typed replies all recorded within 1.5× the time of the presses.
 */
import { startTelegramBot } from "../bots/telegram/index.ts";
import { connectGateway, type GatewayClient } from "../src/client/index.ts";
import { loadConfig } from "../src/runtime/config.ts";
import type { QuestionRecord } from "../src/record/record.ts";
import { QUESTION } from "./lib/drivers.ts";
import { BENCH_TOKEN, spawnGateway, tempDir } from "./lib/procs.ts";
import { startRateLimitedTelegram } from "./lib/rate-limited-telegram.ts";
import type { BenchResult } from "./lib/result.ts";
import { fmtMs, fmtRatio, median } from "./lib/stats.ts";
import { TELEGRAM_LIMITS } from "./telegram-burst.ts";

export interface TypedRepliesOptions {
  chats?: number;
  runs?: number;
  log?: (line: string) => void;
}

interface RunFigures {
  pressesMs: number;
  typedMs: number;
  recorded: { presses: number; typed: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The records of these ids once every one satisfies `done`. */
async function recordsWhen(agent: GatewayClient, ids: Set<string>, done: (r: QuestionRecord) => boolean, what: string, timeoutMs = 120_000): Promise<QuestionRecord[]> {
  return waitFor(async () => {
    const records = (await agent.list({ surface: "telegram", limit: 1_000 })).filter((r) => ids.has(r.id));
    return records.length === ids.size && records.every(done) ? records : undefined;
  }, what, timeoutMs);
}

async function runOnce(chats: number): Promise<RunFigures> {
  const telegram = await startRateLimitedTelegram(TELEGRAM_LIMITS);
  const { fake } = telegram;
  const dataDir = tempDir();
  const gateway = await spawnGateway({ dataDir, store: "sqlite" });
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: BENCH_TOKEN,
    DATA_DIR: dataDir,
    TELEGRAM_BOT_TOKEN: "123456:BENCH-TOKEN-not-real",
    TELEGRAM_API_ROOT: telegram.apiRoot,
  });
  const bot = await startTelegramBot(config, { log: () => {} });
  const agent = await connectGateway({ url: gateway.url, token: BENCH_TOKEN });
  try {
    const chatIds = (offset: number) => Array.from({ length: chats }, (_, i) => 710_000_000 + offset + i);
    const ask = async (ids: number[]) =>
      new Set(
        (await Promise.all(ids.map((chat) => agent.request({ questions: [QUESTION], timeoutSeconds: 3600, targets: [{ surface: "telegram", chat: String(chat) }] })))).map(
          (a) => a.id,
        ),
      );
    const delivered = (r: QuestionRecord) => r.deliveries.length === 1;
    const person = (chat: number) => ({ id: chat, first_name: `P${chat}` });
    const promptOf = (r: QuestionRecord) => {
      const d = r.deliveries[0]!;
      return fake.messages().find((m) => m.chat.id === Number(d.chat) && m.message_id === Number(d.messageRef))!;
    };

    // Presses: 60 prompts, then one press per chat, all at once, as soon as the last prompt is there.
    const pressIds = await ask(chatIds(0));
    const prompts = (await recordsWhen(agent, pressIds, delivered, "the press prompts to be delivered")).map(promptOf);
    const t0 = Date.now();
    for (const prompt of prompts) fake.pushCallback(prompt, prompt.reply_markup.inline_keyboard[0][0].callback_data, person(prompt.chat.id));
    const pressed = await recordsWhen(agent, pressIds, (r) => r.status === "answered", "the presses to be recorded");
    const pressesMs = Math.max(...pressed.map((r) => r.resolvedAtMs ?? 0)) - t0;
    // Let the presses' summaries go out, so the typed phase starts from a quiet bot.
    await waitFor(async () => (prompts.every((p) => p.edits > 0) ? true : undefined), "the press summaries", 60_000);

    // Typed replies: 60 prompts in 60 other chats, then one reply per chat (private chats: any message from the
    // person counts), all at once, as soon as the last prompt is there: the chats' limits are still in use.
    const typedChats = chatIds(chats);
    const typedIds = await ask(typedChats);
    await recordsWhen(agent, typedIds, delivered, "the typed-reply prompts to be delivered");
    const t1 = Date.now();
    for (const chat of typedChats) fake.type(chat, person(chat), "1");
    const typed = await recordsWhen(agent, typedIds, (r) => r.status === "answered", "the typed replies to be recorded");
    const typedMs = Math.max(...typed.map((r) => r.resolvedAtMs ?? 0)) - t1;
    return { pressesMs, typedMs, recorded: { presses: pressed.length, typed: typed.length } };
  } finally {
    agent.close();
    await bot.stop();
    await gateway.stop();
    await telegram.close();
  }
}

export async function benchTelegramTypedReplies(options: TypedRepliesOptions = {}): Promise<BenchResult> {
  const chats = options.chats ?? 60;
  const runs = options.runs ?? 3;
  const log = options.log ?? (() => {});
  const results: RunFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const r = await runOnce(chats);
    results.push(r);
    log(`  run ${run + 1}/${runs}: presses ${fmtMs(r.pressesMs)}, typed replies ${fmtMs(r.typedMs)} (${fmtRatio(r.typedMs / r.pressesMs)})`);
  }
  const ratio = median(results.map((r) => r.typedMs / r.pressesMs));
  return {
    name: `10. Telegram typed replies (${chats} in ${chats} chats) vs presses`,
    result: `typed ${fmtMs(median(results.map((r) => r.typedMs)))}, presses ${fmtMs(median(results.map((r) => r.pressesMs)))}`,
    ratio: `${fmtRatio(ratio)} presses`,
    goal: "≤ 1.5× presses",
    met: ratio <= 1.5 && results.every((r) => r.recorded.typed === chats && r.recorded.presses === chats),
    notes: [
      `limits: ${TELEGRAM_LIMITS.perSecond}/s overall and ${TELEGRAM_LIMITS.perChatPerSecond}/s per chat (every chat's prompt sent just before); throttler and auto-retry at production defaults; grammY runner, sequentialize by chat`,
      "measured from all updates queued at the fake Bot API to the last resolvedAtMs the gateway recorded",
      ...results.map((r, i) => `run ${i + 1}: presses ${fmtMs(r.pressesMs)}, typed replies ${fmtMs(r.typedMs)}, ${fmtRatio(r.typedMs / r.pressesMs)}`),
    ],
    data: { chats, results },
  };
}
