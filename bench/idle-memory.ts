/**
 * Benchmark 18 (issue 36 §5): the memory a full deployment holds at rest. The real gateway and all eight bots, each
 * against its platform's fake (the fakes run in this process and are not counted), idle, in two layouts measured in
 * the same run, alternating (A, B, A, B, …):
 * - A: `ask-user-bridge gateway` + ONE process `ask-user-bridge bot telegram discord slack … email`, with the Node flags `start` gives it
 *   (BOT_HOST_NODE_FLAGS), as `start` runs it;
 * - B: `ask-user-bridge gateway` + eight processes `ask-user-bridge bot <p>`, one per platform.
 * Each run waits until the gateway's /readyz lists all eight surfaces connected, each having told the gateway what it
 * sees of its platform (`platform`), then for `idleMs` of idleness, and sums the VmRSS of the gateway and the bot
 * processes. Everything is stopped with SIGTERM after each run.
 */
import { freePort } from "../test/helpers/free-port.ts";
import { startFakeDiscord } from "../test/platforms/discord/fake-api.ts";
import { DISCORD_TOKEN } from "../test/platforms/discord/harness.ts";
import { BOT_ADDRESS, startFakeSmtp } from "../test/platforms/email/fake-api.ts";
import { startFakeMatrix } from "../test/platforms/matrix/fake-api.ts";
import { startFakeMattermost } from "../test/platforms/mattermost/fake-api.ts";
import { MATTERMOST_TEST_TOKEN } from "../test/platforms/mattermost/harness.ts";
import { startFakeSlack } from "../test/platforms/slack/fake-api.ts";
import { SLACK_TEST_TOKENS } from "../test/platforms/slack/harness.ts";
import { startTeamsFake, TEAMS_TEST_APP } from "../test/platforms/teams/harness.ts";
import { startFakeTelegram } from "../test/platforms/telegram/fake-api.ts";
import { startFakeWhatsApp } from "../test/platforms/whatsapp/fake-api.ts";
import { WA } from "../test/platforms/whatsapp/harness.ts";
import { BENCH_TOKEN, BIN, rssBytes, spawnChild, spawnGateway, tempDir, type Child } from "./lib/procs.ts";
import { BOT_HOST_NODE_FLAGS } from "../src/cli/bot-host.ts";
import type { BenchResult } from "./lib/result.ts";
import { fmtRatio, median } from "./lib/stats.ts";

export const IDLE_PLATFORMS = ["telegram", "discord", "slack", "whatsapp", "mattermost", "teams", "matrix", "email"] as const;
export type IdlePlatform = (typeof IDLE_PLATFORMS)[number];

const MiB = 1024 * 1024;
const GOAL_MIB = 250;

export interface IdleMemoryOptions {
  /** Runs of each layout (A, B, A, B, …); the figures are medians. */
  runs?: number;
  /** How long everything sits idle, once every bot is connected, before RSS is read. */
  idleMs?: number;
  /** How long the bots may take to connect. */
  connectTimeoutMs?: number;
  log?: (line: string) => void;
}

export type Layout = "A" | "B";

export interface IdleRun {
  layout: Layout;
  /** Each process's VmRSS in bytes: "gateway", "bots" (layout A) or "bot <p>" (layout B). */
  rss: Record<string, number>;
  totalBytes: number;
  /** The surfaces /readyz listed as connected, with what each bot said of its platform (reachable). */
  connected: Record<string, boolean | null>;
  /** From spawning the bots to all eight connected with a platform status. */
  connectMs: number;
}

interface Fakes {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Every platform's fake, and the variables that point its bot at it (the recipes of benchmarks 4, 11–12, 14–17 and the CLI tests). */
async function startFakes(): Promise<Fakes> {
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const telegram = await startFakeTelegram();
    closers.push(() => telegram.close());
    const discord = await startFakeDiscord({ token: DISCORD_TOKEN });
    closers.push(() => discord.close());
    const slack = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: [], channels: ["C0IDLE"] });
    closers.push(() => slack.close());
    const whatsapp = await startFakeWhatsApp(WA);
    closers.push(() => whatsapp.close());
    const mattermost = await startFakeMattermost({ token: MATTERMOST_TEST_TOKEN, people: [], channels: [] });
    closers.push(() => mattermost.close());
    const teams = await startTeamsFake();
    closers.push(() => teams.close());
    const matrix = await startFakeMatrix();
    closers.push(() => matrix.close());
    const smtp = await startFakeSmtp();
    closers.push(() => smtp.close());
    const webhookPort = await freePort();
    whatsapp.setWebhook(`http://127.0.0.1:${webhookPort}/webhook`);
    const env: Record<string, string> = {
      TELEGRAM_BOT_TOKEN: "123456:BENCH-TOKEN-not-real",
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DISCORD_BOT_TOKEN: DISCORD_TOKEN,
      DISCORD_API_URL: discord.apiUrl,
      SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
      SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
      SLACK_API_URL: slack.apiUrl.replace(/\/$/u, ""),
      WHATSAPP_ACCESS_TOKEN: WA.accessToken,
      WHATSAPP_PHONE_NUMBER_ID: WA.phoneNumberId,
      WHATSAPP_APP_SECRET: WA.appSecret,
      WHATSAPP_VERIFY_TOKEN: WA.verifyToken,
      WHATSAPP_API_ROOT: whatsapp.apiRoot,
      WHATSAPP_WEBHOOK_HOST: "127.0.0.1",
      WHATSAPP_WEBHOOK_PORT: String(webhookPort),
      MATTERMOST_URL: mattermost.url,
      MATTERMOST_BOT_TOKEN: MATTERMOST_TEST_TOKEN,
      MATTERMOST_ACTIONS_HOST: "127.0.0.1",
      MATTERMOST_ACTIONS_PORT: String(await freePort()),
      TEAMS_APP_ID: TEAMS_TEST_APP.appId,
      TEAMS_TENANT_ID: TEAMS_TEST_APP.tenantId,
      TEAMS_AUTHORITY_URL: teams.authorityUrl,
      TEAMS_TOKEN_SIDECAR_URL: teams.sidecarUrl,
      TEAMS_HOST: "127.0.0.1",
      TEAMS_SERVICE_URL_HOSTS: "127.0.0.1",
      TEAMS_PORT: String(await freePort()),
      MATRIX_HOMESERVER_URL: matrix.baseUrl,
      MATRIX_ACCESS_TOKEN: matrix.token,
      EMAIL_SMTP_URL: smtp.url,
      EMAIL_FROM: `Ask bot <${BOT_ADDRESS}>`,
      EMAIL_INBOUND_HOST: "127.0.0.1",
      EMAIL_INBOUND_PORT: String(await freePort()),
    };
    return {
      env,
      async close() {
        for (const close of closers.reverse()) await close().catch(() => {});
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw error;
  }
}

interface Readyz {
  bots?: Array<{ surface: string; connected?: boolean; platform?: { reachable: boolean | null } }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls /readyz until every platform's bot is connected and has reported its platform; throws on a bot that exited. */
async function waitForAllConnected(gatewayUrl: string, bots: readonly Child[], timeoutMs: number): Promise<Record<string, boolean | null>> {
  const started = Date.now();
  let last = "";
  for (;;) {
    for (const bot of bots) {
      if (bot.child.exitCode !== null || bot.child.signalCode !== null) throw new Error(`a bot process exited (${bot.child.exitCode ?? bot.child.signalCode}): ${bot.output().slice(-2000)}`);
    }
    try {
      const body = (await (await fetch(`${gatewayUrl}/readyz`)).json()) as Readyz;
      const connected: Record<string, boolean | null> = {};
      for (const b of body.bots ?? []) if (b.connected !== false && b.platform) connected[b.surface] = b.platform.reachable;
      if (IDLE_PLATFORMS.every((p) => p in connected)) return connected;
      last = JSON.stringify(body.bots);
    } catch (error) {
      last = String(error);
    }
    if (Date.now() - started > timeoutMs) throw new Error(`not every bot connected within ${timeoutMs} ms: ${last}\n${bots.map((b) => b.output().slice(-1500)).join("\n---\n")}`);
    await sleep(100);
  }
}

async function runLayout(layout: Layout, options: Required<Omit<IdleMemoryOptions, "log" | "runs">>): Promise<IdleRun> {
  const fakes = await startFakes();
  const children: Child[] = [];
  try {
    const gateway = await spawnGateway({ dataDir: tempDir("aub-idle-gw-"), store: "sqlite" });
    children.push(gateway);
    const base = { ...fakes.env, GATEWAY_URL: gateway.url, GATEWAY_TOKEN: BENCH_TOKEN };
    // Up once it has written its first log line (JSON, with its pid); connected is read from /readyz below.
    const firstLine = /"pid":(\d+)/u;
    const t0 = Date.now();
    const bots: Array<[string, Child]> =
      layout === "A"
        ? [["bots", await spawnChild([...BOT_HOST_NODE_FLAGS, BIN, "bot", ...IDLE_PLATFORMS], { ...base, DATA_DIR: tempDir("aub-idle-bots-") }, firstLine)]]
        : await Promise.all(IDLE_PLATFORMS.map(async (p) => [`bot ${p}`, await spawnChild([BIN, "bot", p], { ...base, DATA_DIR: tempDir(`aub-idle-${p}-`) }, firstLine)] as [string, Child]));
    children.push(...bots.map(([, c]) => c));
    const connected = await waitForAllConnected(gateway.url, bots.map(([, c]) => c), options.connectTimeoutMs);
    const connectMs = Date.now() - t0;
    await sleep(options.idleMs);
    const rss: Record<string, number> = { gateway: rssBytes(gateway.pid) };
    for (const [name, child] of bots) rss[name] = rssBytes(child.pid);
    const totalBytes = Object.values(rss).reduce((a, b) => a + b, 0);
    return { layout, rss, totalBytes, connected, connectMs };
  } finally {
    // Bots first (they would reconnect to a stopped gateway), then the gateway, then the fakes.
    await Promise.all(children.slice(1).map((c) => c.stop()));
    await children[0]?.stop();
    await fakes.close();
  }
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export async function benchIdleMemory(options: IdleMemoryOptions = {}): Promise<BenchResult> {
  const runs = options.runs ?? 3;
  const log = options.log ?? (() => {});
  const settings = { idleMs: options.idleMs ?? 5_000, connectTimeoutMs: options.connectTimeoutMs ?? 60_000 };
  const results: IdleRun[] = [];
  for (let i = 0; i < runs; i++) {
    for (const layout of ["A", "B"] as const) {
      const run = await runLayout(layout, settings);
      results.push(run);
      log(`  ${layout} run ${i + 1}: ${mib(run.totalBytes)} (${Object.entries(run.rss).map(([n, b]) => `${n} ${mib(b)}`).join(", ")}); all connected in ${(run.connectMs / 1000).toFixed(1)} s`);
    }
  }
  const of = (layout: Layout) => results.filter((r) => r.layout === layout);
  const totalA = median(of("A").map((r) => r.totalBytes));
  const totalB = median(of("B").map((r) => r.totalBytes));
  // Each ratio within one round (A and B measured back to back), then their median.
  const ratios = of("A").map((a, i) => a.totalBytes / of("B")[i]!.totalBytes);
  const ratio = median(ratios);
  const perProcess = (layout: Layout) => {
    const names = Object.keys(of(layout)[0]!.rss);
    return names.map((n) => `${n} ${mib(median(of(layout).map((r) => r.rss[n]!)))}`).join(", ");
  };
  const botsB = median(of("B").map((r) => r.totalBytes - r.rss.gateway!));
  const botsA = median(of("A").map((r) => r.rss.bots!));
  const unreachable = [...new Set(results.flatMap((r) => Object.entries(r.connected).filter(([, v]) => v === false).map(([s]) => s)))];
  return {
    name: "18. Idle memory: gateway + eight bots",
    result: `A (1 bot process) ${mib(totalA)}; B (8 bot processes) ${mib(totalB)}`,
    ratio: `A/B ${fmtRatio(ratio)}`,
    goal: `A ≤ ${GOAL_MIB} MiB`,
    met: totalA <= GOAL_MIB * MiB,
    notes: [
      `VmRSS summed over the gateway (SQLite) and the bot processes, each bot against its platform's fake (not counted), after all eight were connected to the gateway and had reported their platform on /readyz, then ${settings.idleMs / 1000} s idle; median of ${runs} runs per layout, alternating A, B`,
      `A, per process: ${perProcess("A")}`,
      `B, per process: ${perProcess("B")}`,
      `the bots alone: ${mib(botsA)} in one process vs ${mib(botsB)} in eight (${fmtRatio(botsA / botsB)}); every Node process pays its own runtime (V8 heap, code, libuv) and loads the shared modules again`,
      `all connected after: A ${(median(of("A").map((r) => r.connectMs)) / 1000).toFixed(1)} s, B ${(median(of("B").map((r) => r.connectMs)) / 1000).toFixed(1)} s (from spawning the bots)`,
      `what each bot told /readyz of its platform (first run of A): ${Object.entries(of("A")[0]!.connected).map(([s, v]) => `${s} ${v === null ? "cannot check" : v ? "reachable" : "unreachable"}`).join(", ")}`,
      ...(unreachable.length ? [`bots that reported their platform unreachable (connected all the same): ${unreachable.join(", ")}`] : []),
    ],
    data: { runs: results, totalA, totalB, ratio, ratios, goalMiB: GOAL_MIB },
  };
}
