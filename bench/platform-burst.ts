/**
 * Benchmarks 11 and 12: a burst of 600 questions to 60 channels against Discord's and Slack's own limits, as
 * benchmark 4 does for Telegram.
 *
 * The real gateway (SQLite, a child process) and the real bot (discord.js with its REST queue; Bolt's WebClient with
 * the bot's production retry policy) talk to the tests' fake platform behind a proxy that enforces the platform's
 * limits (test/platforms/discord/discord-limits.ts, test/platforms/slack/slack-limits.ts). An agent asks all 600 at once, 10 per channel.
 *
 * Measured: from the first ask to the moment the last delivery is recorded by the gateway, against the theoretical
 * minimum the limits impose:
 * - Discord: 5 messages per 5 s per channel (a window opening with its first message) and 50 requests a second
 *   overall (a bucket of one second's worth): max((⌈N / 50⌉ − 1) s, (⌈n / 5⌉ − 1) × 5 s), n = N / channels;
 * - Slack: a bucket of 3 per channel refilled at 1 a second: (n − 3) s.
 * Zero lost: every question pending with exactly one delivery; none sent twice (accepted posts = deliveries).
 */
import { startDiscordBot } from "../bots/discord/index.ts";
import { startSlackBot } from "../bots/slack/index.ts";
import type { Surface } from "../src/contract/result.ts";
import { connectGateway } from "../src/client/index.ts";
import { loadConfig, type Config } from "../src/runtime/config.ts";
import type { QuestionRecord } from "../src/record/record.ts";
import { startApiProxy } from "../test/fakes/api-proxy.ts";
import { startFakeDiscord } from "../test/platforms/discord/fake-api.ts";
import { DISCORD_LIMITS, enforceDiscordLimits, type DiscordLimits } from "../test/platforms/discord/discord-limits.ts";
import { startFakeSlack } from "../test/platforms/slack/fake-api.ts";
import { enforceSlackLimits, SLACK_LIMITS, type SlackLimits } from "../test/platforms/slack/slack-limits.ts";
import { QUESTION } from "./lib/drivers.ts";
import { BENCH_TOKEN, spawnGateway, tempDir } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";
import { fmtInt, fmtMs, fmtRatio, median } from "./lib/stats.ts";

export interface PlatformBurstOptions {
  questions?: number;
  chats?: number;
  runs?: number;
  log?: (line: string) => void;
}

/** One platform behind its limits: the chats, the bot's configuration, and what the limits accepted and refused. */
export interface LimitedPlatform {
  chats: string[];
  config(gatewayUrl: string, dataDir: string): Config;
  startBot(config: Config): Promise<{ stop(): Promise<void> }>;
  accepted: Array<{ channel: string; atMs: number }>;
  refused(): number;
  close(): Promise<void>;
}

interface RunFigures {
  ms: number;
  firstAcceptedMs: number;
  lastAcceptedMs: number;
  refused: number;
  delivered: number;
  lost: number;
  duplicates: number;
  askMs: number;
}

async function limitedDiscord(chats: number, limits: DiscordLimits): Promise<LimitedPlatform> {
  const token = "discord-bench-token-not-real";
  const fake = await startFakeDiscord({ token, heartbeatIntervalMs: 5_000 });
  const ids = Array.from({ length: chats }, (_, i) => String(720_000_000_000_000_000n + BigInt(i)));
  ids.forEach((id, i) => fake.addTextChannel(id, `burst-${i}`));
  const proxy = await startApiProxy(fake.baseUrl);
  const enforced = enforceDiscordLimits(proxy, limits);
  return {
    chats: ids,
    config: (gatewayUrl, dataDir) =>
      loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: BENCH_TOKEN, DATA_DIR: dataDir, DISCORD_BOT_TOKEN: token, DISCORD_API_URL: `${proxy.origin}/api` }),
    startBot: (config) => startDiscordBot(config, { log: () => {} }),
    accepted: enforced.accepted,
    refused: enforced.refused,
    async close() {
      if (process.env.BENCH_DEBUG) console.error(`  Discord 429s: ${enforced.refusedGlobal()} global, ${enforced.refused() - enforced.refusedGlobal()} per channel`);
      await proxy.close();
      await fake.close();
    },
  };
}

async function limitedSlack(chats: number, limits: SlackLimits): Promise<LimitedPlatform> {
  const tokens = { bot: "xoxb-bench-not-real", app: "xapp-1-bench-not-real" };
  const ids = Array.from({ length: chats }, (_, i) => `C0BURST${String(i).padStart(4, "0")}`);
  const fake = await startFakeSlack({ botToken: tokens.bot, appToken: tokens.app, people: [], channels: ids });
  const proxy = await startApiProxy(`http://127.0.0.1:${fake.port}`);
  const enforced = enforceSlackLimits(proxy, limits);
  return {
    chats: ids,
    config: (gatewayUrl, dataDir) =>
      loadConfig({
        GATEWAY_URL: gatewayUrl,
        GATEWAY_TOKEN: BENCH_TOKEN,
        DATA_DIR: dataDir,
        SLACK_BOT_TOKEN: tokens.bot,
        SLACK_APP_TOKEN: tokens.app,
        SLACK_API_URL: `${proxy.origin}/api`,
      }),
    startBot: (config) => startSlackBot(config, { log: () => {} }),
    accepted: enforced.accepted,
    refused: enforced.refused,
    async close() {
      await proxy.close();
      await fake.close();
    },
  };
}

async function burstOnce(surface: Surface, platform: LimitedPlatform, questions: number): Promise<RunFigures> {
  const dataDir = tempDir();
  // DELIVERY_TIMEOUT_SECONDS stays at its production default (30).
  const gateway = await spawnGateway({ dataDir, store: "sqlite" });
  const bot = await platform.startBot(platform.config(gateway.url, dataDir));
  const agent = await connectGateway({ url: gateway.url, token: BENCH_TOKEN });
  try {
    const { chats } = platform;
    const t0 = Date.now();
    const tPerf0 = performance.now();
    const asked = await Promise.all(
      Array.from({ length: questions }, (_, i) => agent.request({ questions: [QUESTION], timeoutSeconds: 3600, targets: [{ surface, chat: chats[i % chats.length]! }] })),
    );
    const askMs = Date.now() - t0;
    const ids = new Set(asked.map((a) => a.id));
    let records: QuestionRecord[] = [];
    const deadline = Date.now() + 180_000;
    for (;;) {
      records = (await agent.list({ surface, limit: 10_000 })).filter((r) => ids.has(r.id));
      const settled = records.filter((r) => r.status !== "pending" || r.deliveries.length > 0).length;
      if (settled >= questions || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const delivered = records.filter((r) => r.status === "pending" && r.deliveries.length === 1).length;
    const lastDelivered = Math.max(...records.flatMap((r) => r.deliveries.map((d) => d.deliveredAtMs)));
    return {
      ms: lastDelivered - t0,
      firstAcceptedMs: Math.min(...platform.accepted.map((a) => a.atMs)) - tPerf0,
      lastAcceptedMs: Math.max(...platform.accepted.map((a) => a.atMs)) - tPerf0,
      refused: platform.refused(),
      delivered,
      lost: questions - delivered,
      duplicates: platform.accepted.length - delivered,
      askMs,
    };
  } finally {
    agent.close();
    await bot.stop();
    await gateway.stop();
    await platform.close();
  }
}

export async function benchBurst(
  n: number,
  label: string,
  surface: Surface,
  start: (chats: number) => Promise<LimitedPlatform>,
  minimumMs: number,
  limitsNote: string,
  options: PlatformBurstOptions,
): Promise<BenchResult> {
  const questions = options.questions ?? 600;
  const chats = options.chats ?? 60;
  const runs = options.runs ?? 3;
  const log = options.log ?? (() => {});
  const results: RunFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const r = await burstOnce(surface, await start(chats), questions);
    results.push(r);
    log(`  run ${run + 1}/${runs}: ${fmtMs(r.ms)} (${fmtRatio(r.ms / minimumMs)}), 429s ${r.refused}, delivered ${r.delivered}, lost ${r.lost}, twice ${r.duplicates}`);
  }
  const ratio = median(results.map((r) => r.ms / minimumMs));
  const lost = Math.max(...results.map((r) => r.lost));
  const duplicates = Math.max(...results.map((r) => r.duplicates));
  return {
    name: `${n}. ${label} burst (${questions} → ${chats} channels)`,
    result: `${fmtMs(median(results.map((r) => r.ms)))} (minimum ${fmtMs(minimumMs)}); lost ${lost}; sent twice ${duplicates}; 429s ${median(results.map((r) => r.refused))}`,
    ratio: `${fmtRatio(ratio)} minimum`,
    goal: "≤ 1.15× minimum, 0 lost, 0 sent twice",
    met: ratio <= 1.15 && lost === 0 && duplicates === 0,
    notes: [
      limitsNote,
      `theoretical minimum ${fmtMs(minimumMs)}`,
      ...results.map(
        (r, i) =>
          `run ${i + 1}: last delivery recorded ${fmtMs(r.ms)} after the first ask (posts accepted from ${fmtMs(r.firstAcceptedMs)} to ${fmtMs(r.lastAcceptedMs)}), ${fmtRatio(r.ms / minimumMs)}; ` +
          `the ${fmtInt(questions)} asks took ${fmtMs(r.askMs)}; 429s ${r.refused}; delivered ${r.delivered}, lost ${r.lost}, sent twice ${r.duplicates}`,
      ),
    ],
    data: { questions, chats, minimumMs, results },
  };
}

export function discordMinimumMs(questions: number, chats: number, limits: DiscordLimits = DISCORD_LIMITS): number {
  const perChannel = Math.ceil(questions / chats);
  return Math.max((Math.ceil(questions / limits.globalPerSecond) - 1) * 1000, (Math.ceil(perChannel / limits.perChannel) - 1) * limits.windowMs);
}

export function slackMinimumMs(questions: number, chats: number, limits: SlackLimits = SLACK_LIMITS): number {
  const perChannel = Math.ceil(questions / chats);
  return (Math.max(0, perChannel - limits.burst) / limits.perChannelPerSecond) * 1000;
}

export function benchDiscordBurst(options: PlatformBurstOptions & { limits?: DiscordLimits } = {}): Promise<BenchResult> {
  const limits = options.limits ?? DISCORD_LIMITS;
  const minimumMs = discordMinimumMs(options.questions ?? 600, options.chats ?? 60, limits);
  const note = `limits: ${limits.perChannel} messages per ${limits.windowMs / 1000} s per channel (a fixed window), ${limits.globalPerSecond} requests/s overall (a token bucket of one second), ${limits.graceMs ?? 50} ms grace; discord.js REST queue at its defaults`;
  return benchBurst(11, "Discord", "discord", (chats) => limitedDiscord(chats, limits), minimumMs, note, options);
}

export function benchSlackBurst(options: PlatformBurstOptions & { limits?: SlackLimits } = {}): Promise<BenchResult> {
  const limits = options.limits ?? SLACK_LIMITS;
  const minimumMs = slackMinimumMs(options.questions ?? 600, options.chats ?? 60, limits);
  const note = `limits: chat.postMessage ${limits.perChannelPerSecond}/s per channel, bursts of ${limits.burst} (token bucket, ${limits.graceMs ?? 50} ms grace); Bolt's WebClient with SLACK_RETRY_CONFIG`;
  return benchBurst(12, "Slack", "slack", (chats) => limitedSlack(chats, limits), minimumMs, note, options);
}
