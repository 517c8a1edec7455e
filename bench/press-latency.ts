/**
 * Benchmark 13: from a button press arriving at the bot to the agent holding the result, and to every copy edited,
 * on each platform (issue 18 §4).
 *
 * The real gateway (SQLite, a child process), the real bot (grammY, discord.js, Bolt in Socket Mode) and the agent
 * (a gateway client) run against the tests' fake platform, behind a pass-through proxy that timestamps every call the
 * bot makes (test/fakes/api-proxy.ts). Each question goes to two chats; once both copies are delivered, a person
 * presses the first option of one copy. Measured from the moment the fake hands the press to the bot (a Telegram
 * update, a Discord INTERACTION_CREATE, a Slack Socket Mode envelope):
 * - result: until the agent's `question.waitAnswer` resolves in this process;
 * - edited: until the second copy's edit call reaches the platform (the proxy's arrival time).
 * The fake's own round trip: a trivial call (getMe, GET /users/@me, auth.test) from this process through the same
 * proxy. Questions go one at a time (no queueing), spread over 20 chats so that no per-chat limit holds a send back.
 */
import { startDiscordBot } from "../bots/discord/index.ts";
import { startSlackBot } from "../bots/slack/index.ts";
import { startTelegramBot } from "../bots/telegram/index.ts";
import { connectGateway, type GatewayClient } from "../src/client/index.ts";
import type { Surface } from "../src/contract/result.ts";
import { loadConfig } from "../src/runtime/config.ts";
import type { QuestionRecord } from "../src/record/record.ts";
import { startApiProxy, type ApiProxy, type ProxiedCall } from "../test/fakes/api-proxy.ts";
import { startFakeDiscord } from "../test/platforms/discord/fake-api.ts";
import { startFakeSlack } from "../test/platforms/slack/fake-api.ts";
import { startFakeTelegram } from "../test/platforms/telegram/fake-api.ts";
import { QUESTION } from "./lib/drivers.ts";
import { BENCH_TOKEN, spawnGateway, tempDir } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";
import { fmtMs, fmtRatio, latency, median, type Latency } from "./lib/stats.ts";

export interface PressLatencyOptions {
  questions?: number;
  surfaces?: Surface[];
  log?: (line: string) => void;
}

const CHATS = 20;

/** One platform with its bot running: how to press a copy, which calls are edits, and the fake's own round trip. */
interface PressPlatform {
  surface: Surface;
  chats: string[];
  proxy: ApiProxy;
  /** Hands a press of the first option of this copy to the bot; returns performance.now() at that moment. */
  press(delivery: { chat: string; messageRef: string }): number;
  isEdit(call: ProxiedCall): boolean;
  /** One trivial call to the fake through the proxy. */
  roundTrip(): Promise<unknown>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function telegramPlatform(gatewayUrl: string): Promise<PressPlatform> {
  const fake = await startFakeTelegram();
  const proxy = await startApiProxy(fake.apiRoot);
  const person = { id: 4242, first_name: "Ada" };
  const token = "123456:PRESS-not-real";
  const config = loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: BENCH_TOKEN, TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: proxy.origin, TELEGRAM_ALLOWED_USERS: String(person.id) });
  // Fast throttler limits: this measures the bridge, not Telegram's flood limits (benchmark 4 does).
  const throttle = { global: { reservoir: 1000, reservoirRefreshAmount: 1000, reservoirRefreshInterval: 1000 }, group: { maxConcurrent: 1, minTime: 5 }, out: { maxConcurrent: 1, minTime: 5 } };
  const bot = await startTelegramBot(config, { log: () => {}, throttle });
  return {
    surface: "telegram",
    chats: Array.from({ length: CHATS }, (_, i) => String(-1_000_100 - i)),
    proxy,
    press({ chat, messageRef }) {
      const message = fake.messages().find((m) => m.chat.id === Number(chat) && m.message_id === Number(messageRef))!;
      const at = performance.now();
      fake.pushCallback(message, message.sent_markup.inline_keyboard[0][0].callback_data, person);
      return at;
    },
    isEdit: (call) => call.path.endsWith("/editMessageText"),
    roundTrip: () => fetch(`${proxy.origin}/bot${token}/getMe`, { method: "POST" }).then((r) => r.json()),
    async close() {
      await bot.stop();
      await proxy.close();
      await fake.close();
    },
  };
}

async function discordPlatform(gatewayUrl: string): Promise<PressPlatform> {
  const token = "discord-press-token-not-real";
  const fake = await startFakeDiscord({ token, heartbeatIntervalMs: 5_000 });
  const chats = Array.from({ length: CHATS }, (_, i) => String(730_000_000_000_000_000n + BigInt(i)));
  chats.forEach((id, i) => fake.addTextChannel(id, `press-${i}`));
  const person = fake.addUser("130000000000000001", "Ada");
  const proxy = await startApiProxy(fake.baseUrl);
  const config = loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: BENCH_TOKEN, DISCORD_BOT_TOKEN: token, DISCORD_API_URL: `${proxy.origin}/api`, DISCORD_ALLOWED_USERS: person.id });
  const bot = await startDiscordBot(config, { log: () => {} });
  return {
    surface: "discord",
    chats,
    proxy,
    press({ messageRef }) {
      const message = fake.message(messageRef.split("/")[1]!);
      const at = performance.now();
      fake.press(message, message.sentComponents[0].components[0].custom_id, person);
      return at;
    },
    isEdit: (call) => call.method === "PATCH" && /^\/api\/v10\/channels\/\d+\/messages\/\d+$/.test(call.path),
    roundTrip: () => fetch(`${proxy.origin}/api/v10/users/@me`, { headers: { authorization: `Bot ${token}` } }).then((r) => r.json()),
    async close() {
      await bot.stop();
      await proxy.close();
      await fake.close();
    },
  };
}

async function slackPlatform(gatewayUrl: string): Promise<PressPlatform> {
  const tokens = { bot: "xoxb-press-not-real", app: "xapp-1-press-not-real" };
  const person = { id: "U0ADA", name: "Ada" };
  const chats = Array.from({ length: CHATS }, (_, i) => `C0PRESS${String(i).padStart(4, "0")}`);
  const fake = await startFakeSlack({ botToken: tokens.bot, appToken: tokens.app, people: [person], channels: chats });
  const proxy = await startApiProxy(`http://127.0.0.1:${fake.port}`);
  const config = loadConfig({
    GATEWAY_URL: gatewayUrl,
    GATEWAY_TOKEN: BENCH_TOKEN,
    SLACK_BOT_TOKEN: tokens.bot,
    SLACK_APP_TOKEN: tokens.app,
    SLACK_API_URL: `${proxy.origin}/api`,
    SLACK_ALLOWED_USERS: person.id,
  });
  const bot = await startSlackBot(config, { log: () => {} });
  return {
    surface: "slack",
    chats,
    proxy,
    press({ messageRef }) {
      const at = messageRef.indexOf(":");
      const message = fake.message(messageRef.slice(0, at), messageRef.slice(at + 1));
      const now = performance.now();
      void fake.press(message, 0, person);
      return now;
    },
    isEdit: (call) => call.path === "/api/chat.update",
    roundTrip: () => fetch(`${proxy.origin}/api/auth.test`, { method: "POST", headers: { authorization: `Bearer ${tokens.bot}` } }).then((r) => r.json()),
    async close() {
      await bot.stop();
      await proxy.close();
      await fake.close();
    },
  };
}

const PLATFORMS: Record<Surface & ("telegram" | "discord" | "slack"), (gatewayUrl: string) => Promise<PressPlatform>> = {
  telegram: telegramPlatform,
  discord: discordPlatform,
  slack: slackPlatform,
};

async function delivered(agent: GatewayClient, id: string): Promise<QuestionRecord> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const record = await agent.get(id);
    if (record.deliveries.length === 2) return record;
    if (Date.now() > deadline) throw new Error(`question ${id} was not delivered to both chats`);
    await sleep(5);
  }
}

interface PlatformFigures {
  result: Latency;
  edited: Latency;
  roundTrip: Latency;
}

async function measure(platform: PressPlatform, agent: GatewayClient, questions: number): Promise<PlatformFigures> {
  const result: number[] = [];
  const edited: number[] = [];
  for (let i = -3; i < questions; i++) {
    const chats = [platform.chats[(2 * (i + 3)) % CHATS]!, platform.chats[(2 * (i + 3) + 1) % CHATS]!];
    const { id } = await agent.request({ questions: [QUESTION], timeoutSeconds: 600, targets: chats.map((chat) => ({ surface: platform.surface, chat })) });
    const record = await delivered(agent, id);
    const editsBefore = platform.proxy.calls.length;
    const answered = agent.waitAnswer({ id, timeoutMs: 10_000 });
    await sleep(2); // the wait is registered at the gateway
    const t0 = platform.press(record.deliveries[0]!);
    await answered;
    const tResult = performance.now();
    const deadline = Date.now() + 10_000;
    let edits: ProxiedCall[] = [];
    while ((edits = platform.proxy.calls.slice(editsBefore).filter((c) => platform.isEdit(c))).length < 2) {
      if (Date.now() > deadline) throw new Error(`${platform.surface}: the copies of ${id} were not both edited`);
      await sleep(1);
    }
    if (i < 0) continue; // warm-up
    result.push(tResult - t0);
    edited.push(Math.max(...edits.slice(0, 2).map((c) => c.atMs)) - t0);
  }
  const roundTrips: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await platform.roundTrip();
    roundTrips.push(performance.now() - t);
  }
  return { result: latency(result), edited: latency(edited), roundTrip: latency(roundTrips) };
}

export async function benchPressLatency(options: PressLatencyOptions = {}): Promise<BenchResult> {
  const questions = options.questions ?? 100;
  const surfaces = options.surfaces ?? ["telegram", "discord", "slack"];
  const log = options.log ?? (() => {});
  const figures: Partial<Record<Surface, PlatformFigures>> = {};
  for (const surface of surfaces) {
    const gateway = await spawnGateway({ dataDir: tempDir(), store: "sqlite" });
    const agent = await connectGateway({ url: gateway.url, token: BENCH_TOKEN });
    const platform = await PLATFORMS[surface as "telegram"](gateway.url);
    try {
      const f = await measure(platform, agent, questions);
      figures[surface] = f;
      log(`  ${surface}: result ${fmtMs(f.result.median)} (p99 ${fmtMs(f.result.p99)}), edited ${fmtMs(f.edited.median)} (p99 ${fmtMs(f.edited.p99)}), fake round trip ${fmtMs(f.roundTrip.median)}`);
    } finally {
      agent.close();
      await platform.close();
      await gateway.stop();
    }
  }
  const rows = Object.entries(figures) as Array<[Surface, PlatformFigures]>;
  const ratio = (f: PlatformFigures, l: Latency) => l.median / f.roundTrip.median;
  return {
    name: "13. Press to result and to every copy edited",
    result: rows.map(([s, f]) => `${s} result ${fmtMs(f.result.median)} (p99 ${fmtMs(f.result.p99)}), edited ${fmtMs(f.edited.median)} (p99 ${fmtMs(f.edited.p99)})`).join("; "),
    ratio: rows.map(([s, f]) => `${s} ${fmtRatio(ratio(f, f.result))} / ${fmtRatio(ratio(f, f.edited))}`).join("; ") + " the fake's round trip (result / edited)",
    goal: "report median, p99 and the ratio to the fake's round trip",
    met: rows.length === surfaces.length && rows.every(([, f]) => Number.isFinite(f.result.median) && Number.isFinite(f.edited.median)),
    notes: [
      `${questions} presses per platform, one at a time, each question to 2 of ${CHATS} chats; from the fake handing the press to the bot`,
      ...rows.map(
        ([s, f]) =>
          `${s}: agent holds the result ${fmtMs(f.result.median)} (p99 ${fmtMs(f.result.p99)}); both copies edited ${fmtMs(f.edited.median)} (p99 ${fmtMs(f.edited.p99)}); ` +
          `the fake's own round trip ${fmtMs(f.roundTrip.median)} (p99 ${fmtMs(f.roundTrip.p99)}); ratios ${fmtRatio(ratio(f, f.result))} and ${fmtRatio(ratio(f, f.edited))}`,
      ),
      `medians over platforms: result ${fmtMs(median(rows.map(([, f]) => f.result.median)))}, edited ${fmtMs(median(rows.map(([, f]) => f.edited.median)))}`,
    ],
    data: { questions, figures },
  };
}
