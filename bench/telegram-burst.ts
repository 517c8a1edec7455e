/**
 * Benchmark 4: a burst of 600 questions to 60 Telegram chats against Telegram's own flood limit.
 *
 * The real gateway (SQLite, a child process) and the real Telegram bot (grammY with its auto-retry and throttler plugins, at the
 * throttler's production defaults: 30 messages per second overall, 1 per second per private chat) talk to the
 * fake Bot API behind a proxy that enforces about 30 messages a second overall and 1 a second per chat with
 * 429 + retry_after (lib/rate-limited-telegram.ts). An agent asks all 600 at once (10 per chat, private chats).
 *
 * Measured: from the first ask to the moment the last delivery is recorded by the gateway. The theoretical
 * minimum under the limits: the first second's worth goes at once (each limit is a bucket of one second), the
 * rest at the overall rate, and no chat faster than its own rate: max((N − R) / R, N / C / r − 1/r) seconds.
 * Zero lost: every question pending with exactly one Telegram delivery, 600 prompts accepted by the fake, none
 * failed, none sent twice.
 */
import { startTelegramBot, type TelegramBotOptions } from "../bots/telegram/index.ts";
import { connectGateway } from "../src/client/index.ts";
import { loadConfig } from "../src/runtime/config.ts";
import type { QuestionRecord } from "../src/record/record.ts";
import { QUESTION } from "./lib/drivers.ts";
import { BENCH_TOKEN, spawnGateway, tempDir } from "./lib/procs.ts";
import { startRateLimitedTelegram, type FloodLimits } from "./lib/rate-limited-telegram.ts";
import type { BenchResult } from "./lib/result.ts";
import { fmtInt, fmtMs, fmtRatio, median } from "./lib/stats.ts";

export interface TelegramBurstOptions {
  questions?: number;
  chats?: number;
  runs?: number;
  limits?: FloodLimits;
  /** grammY throttler limits; undefined = the plugin's production defaults. */
  throttle?: TelegramBotOptions["throttle"];
  log?: (line: string) => void;
}

export const TELEGRAM_LIMITS: FloodLimits = { perSecond: 30, perChatPerSecond: 1, graceMs: 50 };

interface RunFigures {
  ms: number;
  lastAcceptedMs: number;
  refused: number;
  delivered: number;
  lost: number;
  duplicates: number;
  askMs: number;
}

async function burstOnce(questions: number, chats: number, limits: FloodLimits, throttle: TelegramBurstOptions["throttle"]): Promise<RunFigures> {
  const telegram = await startRateLimitedTelegram(limits);
  const dataDir = tempDir();
  // The gateway in its own process, as `ask-user-bridge start` runs it; the bot and the agent in this one.
  // DELIVERY_TIMEOUT_SECONDS stays at its production default (30): a question not delivered in 30 s is lost.
  const gateway = await spawnGateway({ dataDir, store: "sqlite" });
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: BENCH_TOKEN,
    DATA_DIR: dataDir,
    TELEGRAM_BOT_TOKEN: "123456:BENCH-TOKEN-not-real",
    TELEGRAM_API_ROOT: telegram.apiRoot,
  });
  const bot = await startTelegramBot(config, { log: () => {}, ...(throttle ? { throttle } : {}) });
  const agent = await connectGateway({ url: gateway.url, token: BENCH_TOKEN });
  try {
    // Private chats (positive ids): the throttler's per-chat limiter for them is 1 message a second.
    const chatIds = Array.from({ length: chats }, (_, i) => String(700_000_000 + i));
    const t0 = Date.now();
    const tPerf0 = performance.now();
    const asked = await Promise.all(
      Array.from({ length: questions }, (_, i) =>
        agent.request({ questions: [QUESTION], timeoutSeconds: 3600, targets: [{ surface: "telegram", chat: chatIds[i % chats]! }] }),
      ),
    );
    const askMs = Date.now() - t0;
    const ids = new Set(asked.map((a) => a.id));
    let records: QuestionRecord[] = [];
    const deadline = Date.now() + 120_000 + (questions / limits.perSecond) * 3000;
    for (;;) {
      records = (await agent.list({ surface: "telegram", limit: 10_000 })).filter((r) => ids.has(r.id));
      const settled = records.filter((r) => r.status !== "pending" || r.deliveries.length > 0).length;
      if (settled >= questions || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const delivered = records.filter((r) => r.status === "pending" && r.deliveries.length === 1).length;
    const lastDelivered = Math.max(...records.flatMap((r) => r.deliveries.map((d) => d.deliveredAtMs)));
    const prompts = telegram.accepted.filter((a) => a.method === "sendMessage");
    if (process.env.BENCH_DEBUG) {
      // Prompts accepted in each second after the first ask: where a burst lost time (e.g. to 429s).
      const perSecond = new Map<number, number>();
      for (const p of prompts) {
        const second = Math.floor((p.atMs - tPerf0) / 1000);
        perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
      }
      const seconds = [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`);
      console.error(`  prompts accepted per second: ${seconds.join(" ")}`);
    }
    return {
      ms: lastDelivered - t0,
      lastAcceptedMs: Math.max(...prompts.map((p) => p.atMs)) - tPerf0,
      refused: telegram.refused(),
      delivered,
      lost: questions - delivered,
      duplicates: prompts.length - delivered,
      askMs,
    };
  } finally {
    agent.close();
    await bot.stop();
    await gateway.stop();
    await telegram.close();
  }
}

export async function benchTelegramBurst(options: TelegramBurstOptions = {}): Promise<BenchResult> {
  const questions = options.questions ?? 600;
  const chats = options.chats ?? 60;
  const runs = options.runs ?? 3;
  const limits = options.limits ?? TELEGRAM_LIMITS;
  const log = options.log ?? (() => {});
  const perChat = Math.ceil(questions / chats);
  const minimumMs =
    1000 * Math.max(Math.max(0, questions - limits.perSecond) / limits.perSecond, (perChat - 1) / limits.perChatPerSecond);
  const results: RunFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const r = await burstOnce(questions, chats, limits, options.throttle);
    results.push(r);
    log(`  run ${run + 1}/${runs}: ${fmtMs(r.ms)} (${fmtRatio(r.ms / minimumMs)}), 429s ${r.refused}, delivered ${r.delivered}, lost ${r.lost}`);
  }
  const ms = median(results.map((r) => r.ms));
  const ratio = median(results.map((r) => r.ms / minimumMs));
  const lost = Math.max(...results.map((r) => r.lost));
  const duplicates = Math.max(...results.map((r) => r.duplicates));
  return {
    name: `4. Telegram burst (${questions} → ${chats} chats)`,
    result: `${fmtMs(ms)} (minimum ${fmtMs(minimumMs)}); lost ${lost}; 429s ${median(results.map((r) => r.refused))}`,
    ratio: `${fmtRatio(ratio)} minimum`,
    goal: "≤ 1.15× minimum, 0 lost",
    met: ratio <= 1.15 && lost === 0 && duplicates === 0,
    notes: [
      `limits: ${limits.perSecond}/s overall and ${limits.perChatPerSecond}/s per chat (token buckets of one second, ${limits.graceMs ?? 50} ms grace); ` +
        `throttler: ${options.throttle ? "test limits" : "grammY transformer-throttler production defaults"}; auto-retry on`,
      `theoretical minimum max((${questions} − ${limits.perSecond}) / ${limits.perSecond}, ${perChat} / ${limits.perChatPerSecond} − 1) = ${fmtMs(minimumMs)}`,
      ...results.map(
        (r, i) =>
          `run ${i + 1}: last delivery recorded ${fmtMs(r.ms)} after the first ask (last prompt accepted ${fmtMs(r.lastAcceptedMs)}), ` +
          `${fmtRatio(r.ms / minimumMs)}; the ${fmtInt(questions)} asks took ${fmtMs(r.askMs)}; 429s ${r.refused}; ` +
          `delivered ${r.delivered}, lost ${r.lost}, sent twice ${r.duplicates}`,
      ),
    ],
    data: { questions, chats, limits, minimumMs, results },
  };
}
