/**
 * Benchmark 15: a burst of 600 questions to 60 channels against Mattermost's default rate limit, as benchmarks 11
 * and 12 do for Discord and Slack (bench/platform-burst.ts measures, and says what "lost" and "sent twice" mean).
 *
 * The fake Mattermost server (test/platforms/mattermost/fake-api.ts) enforces RateLimitSettings at their
 * defaults: 10 requests/s with bursts of 100, for the bot's token, over every REST call, and answers 429 with
 * Retry-After and the X-RateLimit-* headers; the real bot keeps to them from those headers. The minimum is the
 * burst, then 10 a second: (N − 100) / 10 s.
 */
import { startMattermostBot } from "../bots/mattermost/index.ts";
import { loadConfig } from "../src/runtime/config.ts";
import { MATTERMOST_QUESTION_PROP } from "../src/platforms/mattermost/payload.ts";
import { freePort } from "../test/helpers/free-port.ts";
import { MATTERMOST_RATE_LIMIT, startFakeMattermost, type RateLimit } from "../test/platforms/mattermost/fake-api.ts";
import { BENCH_TOKEN } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";
import { benchBurst, type LimitedPlatform, type PlatformBurstOptions } from "./platform-burst.ts";

const TOKEN = "benchtokenfortheburst00000";

async function limitedMattermost(chats: number, limits: RateLimit): Promise<LimitedPlatform> {
  const ids = Array.from({ length: chats }, (_, i) => `burst${String(i).padStart(4, "0")}${"0".repeat(17)}`);
  const fake = await startFakeMattermost({ token: TOKEN, people: [], channels: ids, rateLimit: limits });
  const actionsPort = await freePort();
  const accepted = () =>
    fake.calls
      .filter((c) => c.method === "POST" && c.path === "/api/v4/posts" && !c.failed && typeof c.body?.props?.[MATTERMOST_QUESTION_PROP] === "string")
      .map((c) => ({ channel: String(c.body.channel_id), atMs: c.atMs }));
  const list: Array<{ channel: string; atMs: number }> = [];
  return {
    chats: ids,
    config: (gatewayUrl, dataDir) =>
      loadConfig({
        GATEWAY_URL: gatewayUrl,
        GATEWAY_TOKEN: BENCH_TOKEN,
        DATA_DIR: dataDir,
        MATTERMOST_URL: fake.url,
        MATTERMOST_BOT_TOKEN: TOKEN,
        MATTERMOST_ACTIONS_HOST: "127.0.0.1",
        MATTERMOST_ACTIONS_PORT: String(actionsPort),
      }),
    startBot: (config) => startMattermostBot(config, { log: () => {} }),
    // Read when the run is measured: the posts the limit let through.
    get accepted() {
      list.splice(0, list.length, ...accepted());
      return list;
    },
    refused: () => fake.refused(),
    close: () => fake.close(),
  };
}

export function mattermostMinimumMs(questions: number, limits: RateLimit = MATTERMOST_RATE_LIMIT): number {
  return (Math.max(0, questions - limits.burst) / limits.perSecond) * 1000;
}

export function benchMattermostBurst(options: PlatformBurstOptions & { limits?: RateLimit } = {}): Promise<BenchResult> {
  const limits = options.limits ?? MATTERMOST_RATE_LIMIT;
  const minimumMs = mattermostMinimumMs(options.questions ?? 600, limits);
  const note = `limits: ${limits.perSecond} requests/s with bursts of ${limits.burst} for the bot's token over every REST call (token bucket, RateLimitSettings' defaults); the bot paces itself from X-RateLimit-*`;
  return benchBurst(15, "Mattermost", "mattermost", (chats) => limitedMattermost(chats, limits), minimumMs, note, options);
}
