/**
 * Benchmark 16: a burst of 600 questions to 60 Teams channels under Teams' limits for a bot (per conversation 7 in
 * 1 s, 8 in 2 s, 60 in 30 s; 50 requests a second for the app), enforced on the fake Bot Connector through the proxy
 * (test/platforms/teams/teams-limits.ts). The real bot keeps to them with its pacer (bots/teams/pacer.ts).
 * Minimum: the app's rate, (⌈N / 50⌉ − 1) s, or a conversation's windows if they bind harder (they do not at 10 each).
 */
import { startTeamsBot } from "../bots/teams/index.ts";
import { loadConfig } from "../src/runtime/config.ts";
import { startApiProxy } from "../test/fakes/api-proxy.ts";
import { startFakeTeams } from "../test/platforms/teams/fake-api.ts";
import { enforceTeamsLimits, TEAMS_LIMITS, type TeamsLimits } from "../test/platforms/teams/teams-limits.ts";
import { TEAMS_PEOPLE, TEAMS_TEST_APP } from "../test/platforms/teams/harness.ts";
import { BENCH_TOKEN } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";
import { benchBurst, type LimitedPlatform, type PlatformBurstOptions } from "./platform-burst.ts";

/** The earliest the last of `n` messages to one conversation can go under the windows (greedy, from t = 0). */
function conversationMinimumMs(n: number, windows: TeamsLimits["windows"]): number {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    let t = times.at(-1) ?? 0;
    for (const { windowMs, max } of windows) if (times.length >= max) t = Math.max(t, times[times.length - max]! + windowMs);
    times.push(t);
  }
  return times.at(-1) ?? 0;
}

export function teamsMinimumMs(questions: number, chats: number, limits: TeamsLimits = TEAMS_LIMITS): number {
  return Math.max((Math.ceil(questions / limits.perSecond) - 1) * 1000, conversationMinimumMs(Math.ceil(questions / chats), limits.windows));
}

async function limitedTeams(chats: number, limits: TeamsLimits): Promise<LimitedPlatform> {
  const ids = Array.from({ length: chats }, (_, i) => `19:burst-${String(i).padStart(4, "0")}@thread.tacv2`);
  const fake = await startFakeTeams({ ...TEAMS_TEST_APP, people: [TEAMS_PEOPLE.person], conversations: ids.map((id) => ({ id, type: "channel" as const })) });
  const proxy = await startApiProxy(fake.origin);
  fake.useServiceUrl(proxy.origin);
  const enforced = enforceTeamsLimits(proxy, limits);
  return {
    chats: ids,
    config: (gatewayUrl, dataDir) =>
      loadConfig({
        GATEWAY_URL: gatewayUrl,
        GATEWAY_TOKEN: BENCH_TOKEN,
        DATA_DIR: dataDir,
        TEAMS_APP_ID: TEAMS_TEST_APP.appId,
        TEAMS_TENANT_ID: TEAMS_TEST_APP.tenantId,
        TEAMS_AUTHORITY_URL: fake.authorityUrl,
        TEAMS_TOKEN_SIDECAR_URL: fake.sidecarUrl,
        TEAMS_HOST: "127.0.0.1",
        TEAMS_SERVICE_URL_HOSTS: "127.0.0.1",
        TEAMS_PORT: "0",
      }),
    async startBot(config) {
      const bot = await startTeamsBot(config, { log: () => {} });
      fake.useBot(`http://127.0.0.1:${bot.port}/api/messages`);
      // The app is installed in every channel: the bot captures each conversation reference (not counted: before the asks).
      for (const id of ids) {
        const status = await fake.install(id);
        if (status !== 200) throw new Error(`installing in ${id} got HTTP ${status}`);
      }
      return bot;
    },
    accepted: enforced.accepted,
    refused: enforced.refused,
    async close() {
      await proxy.close();
      await fake.close();
    },
  };
}

export function benchTeamsBurst(options: PlatformBurstOptions & { limits?: TeamsLimits } = {}): Promise<BenchResult> {
  const limits = options.limits ?? TEAMS_LIMITS;
  const minimumMs = teamsMinimumMs(options.questions ?? 600, options.chats ?? 60, limits);
  const note = `limits: per conversation ${limits.windows.map((w) => `${w.max} in ${w.windowMs / 1000} s`).join(", ")}; ${limits.perSecond} requests/s for the app (a token bucket of one second); ${limits.graceMs ?? 50} ms grace; the bot's TEAMS_PACE`;
  return benchBurst(16, "Microsoft Teams", "teams", (chats) => limitedTeams(chats, limits), minimumMs, note, options);
}
