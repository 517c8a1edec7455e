/**
 * Benchmark 14: a burst of 600 questions to 60 WhatsApp chats (10 per person) under WhatsApp's per-recipient pacing,
 * as benchmarks 4, 11 and 12 do for Telegram, Discord and Slack.
 *
 * The real gateway and the real bot (bots/whatsapp: its recipient pacer and throughput gate, its backoff on 131056 and
 * 130429) talk to the tests' fake Graph API (test/platforms/whatsapp/fake-api.ts), which enforces the limits: a
 * pair rate per recipient (a token bucket: 1 message every 6 s, bursts of 6, stricter than Meta's documented bursts
 * so that the pacing binds at 10 per person) and the number's throughput (80 messages a second, bursts of 80).
 * Minimum: max((n − pair burst) × 6 s, (N − 80) / 80 s), n = N / chats.
 */
import { startWhatsAppBot } from "../bots/whatsapp/index.ts";
import { loadConfig } from "../src/runtime/config.ts";
import { freePort } from "../test/helpers/free-port.ts";
import { startFakeWhatsApp, type PairPace } from "../test/platforms/whatsapp/fake-api.ts";
import { WA, whatsappBotEnv } from "../test/platforms/whatsapp/harness.ts";
import { benchBurst, type LimitedPlatform, type PlatformBurstOptions } from "./platform-burst.ts";
import { BENCH_TOKEN } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";

export interface WhatsAppLimits {
  pair: PairPace;
  throughput: PairPace;
}

export const WHATSAPP_BENCH_LIMITS: WhatsAppLimits = { pair: { perSecond: 1 / 6, burst: 6 }, throughput: { perSecond: 80, burst: 80 } };

export function whatsappMinimumMs(questions: number, chats: number, limits: WhatsAppLimits = WHATSAPP_BENCH_LIMITS): number {
  const perChat = Math.ceil(questions / chats);
  const pair = (Math.max(0, perChat - limits.pair.burst) / limits.pair.perSecond) * 1000;
  const throughput = (Math.max(0, questions - limits.throughput.burst) / limits.throughput.perSecond) * 1000;
  return Math.round(Math.max(pair, throughput));
}

const RATE_LIMITED = new Set([130429, 131056]);

async function limitedWhatsApp(chats: number, limits: WhatsAppLimits): Promise<LimitedPlatform> {
  const fake = await startFakeWhatsApp({ ...WA, pairPace: limits.pair, throughput: limits.throughput });
  const ids = Array.from({ length: chats }, (_, i) => `1555200${String(i).padStart(4, "0")}`);
  const webhookPort = await freePort();
  fake.setWebhook(`http://127.0.0.1:${webhookPort}/webhook`);
  const prompts = () => fake.calls.filter((c) => c.status === 200 && c.body.type === "interactive" && !c.body.context);
  return {
    chats: ids,
    config: (gatewayUrl, dataDir) =>
      loadConfig({
        GATEWAY_URL: gatewayUrl,
        GATEWAY_TOKEN: BENCH_TOKEN,
        DATA_DIR: dataDir,
        ...whatsappBotEnv(fake.apiRoot, webhookPort),
      }),
    // The bot knows the limits it runs under, as a deployment sets them (the defaults are Meta's documented ones).
    startBot: (config) => startWhatsAppBot(config, { log: () => {}, pace: limits.pair, throughput: limits.throughput, markRead: false }),
    get accepted() {
      return prompts().map((c) => ({ channel: String(c.body.to), atMs: c.atMs }));
    },
    refused: () => fake.calls.filter((c) => c.code !== undefined && RATE_LIMITED.has(c.code)).length,
    async close() {
      if (process.env.BENCH_DEBUG) {
        const limited = fake.calls.filter((c) => c.code !== undefined && RATE_LIMITED.has(c.code));
        console.error(`  WhatsApp refusals: ${limited.filter((c) => c.code === 131056).length} pair rate (131056), ${limited.filter((c) => c.code === 130429).length} throughput (130429)`);
      }
      await fake.close();
    },
  };
}

export function benchWhatsAppBurst(options: PlatformBurstOptions & { limits?: WhatsAppLimits } = {}): Promise<BenchResult> {
  const limits = options.limits ?? WHATSAPP_BENCH_LIMITS;
  const minimumMs = whatsappMinimumMs(options.questions ?? 600, options.chats ?? 60, limits);
  const note = `limits: a pair rate of ${limits.pair.perSecond.toFixed(3)}/s per recipient in bursts of ${limits.pair.burst} (131056), throughput ${limits.throughput.perSecond}/s in bursts of ${limits.throughput.burst} (130429), 100 ms grace (token buckets); the bot's recipient pacer and throughput gate set to them`;
  return benchBurst(14, "WhatsApp", "whatsapp", (chats) => limitedWhatsApp(chats, limits), minimumMs, note, options);
}
