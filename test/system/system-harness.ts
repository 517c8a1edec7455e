/**
 * The whole system as separate processes: `ask-user-bridge gateway` and `ask-user-bridge bot telegram|discord|slack`
 * as children of the test (each in a temp cwd with only the env given, so no .env leaks in), talking to the fake
 * Telegram, Discord and Slack servers that run in the test process. Every child's stdout and stderr is kept,
 * including those of processes that were killed, so tests can grep the logs.
 */
import { startFakeDiscord, type FakeDiscord } from "../platforms/discord/fake-api.ts";
import { startFakeSlack, type FakeSlack, type FakeSlackPerson } from "../platforms/slack/fake-api.ts";
import { SLACK_TEST_TOKENS } from "../platforms/slack/harness.ts";
import { startFakeTelegram, type FakeTelegram, type FakeTelegramOptions } from "../platforms/telegram/fake-api.ts";
import { cleanup, freePort, spawnCli, spawnGateway, tempDir, TOKEN, waitForOutput, type ChildGateway, type CliRun } from "../helpers/gateway.ts";

export const TELEGRAM_TOKEN = "123456:TEST-TOKEN-not-real";
export const DISCORD_TOKEN = "discord-test-token-not-real";
export type BotName = "telegram" | "discord" | "slack";
export const BOT_NAMES: BotName[] = ["telegram", "discord", "slack"];

/** What each bot logs once it listens (after its first sync with the gateway). */
const READY: Record<BotName, RegExp> = {
  telegram: /long polling as @/,
  discord: /connected to Discord as/,
  slack: /connected in Socket Mode/,
};

export interface SystemSpec {
  telegram: { allowed: string[]; options?: FakeTelegramOptions };
  discord: { channels: string[]; people: Array<{ id: string; name: string }>; allowed: string[] };
  slack: { channels: string[]; people: FakeSlackPerson[]; allowed: string[] };
  gatewayEnv?: Record<string, string>;
}

export interface RunningSystem {
  telegram: FakeTelegram;
  discord: FakeDiscord;
  slack: FakeSlack;
  dataDir: string;
  botDataDir: string;
  gateway(): ChildGateway;
  bot(name: BotName): CliRun;
  /** kill -9 the gateway and wait for it to exit. */
  killGateway(): Promise<void>;
  /** Starts the gateway again on the same port and DATA_DIR; resolves once it listens. */
  startGateway(): Promise<void>;
  killBot(name: BotName): Promise<void>;
  /** Starts a bot; resolves once it listens (its ready line is in its log). */
  startBot(name: BotName): Promise<void>;
  /** Everything every child ever wrote, killed ones included. */
  logs(): Array<{ name: string; output: string }>;
  close(): Promise<void>;
}

export async function startSystem(spec: SystemSpec): Promise<RunningSystem> {
  const telegram = await startFakeTelegram(spec.telegram.options);
  const discord = await startFakeDiscord({ token: DISCORD_TOKEN, heartbeatIntervalMs: 10_000 });
  spec.discord.channels.forEach((id, i) => discord.addTextChannel(id, `channel-${i}`));
  for (const person of spec.discord.people) discord.addUser(person.id, person.name);
  const slack = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: spec.slack.people, channels: spec.slack.channels });

  const dataDir = tempDir("aub-system-");
  const botDataDir = tempDir("aub-system-bots-");
  const port = await freePort();
  const gatewayEnv = { GATEWAY_PORT: String(port), DATA_DIR: dataDir, DELIVERY_TIMEOUT_SECONDS: "120", ASK_TEST_MIN_TIMEOUT_SECONDS: "1", ...spec.gatewayEnv };
  const gatewayUrl = `http://127.0.0.1:${port}`;
  const common = { GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: TOKEN, DATA_DIR: botDataDir };
  const botEnv: Record<BotName, Record<string, string>> = {
    telegram: { ...common, TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, TELEGRAM_ALLOWED_USERS: spec.telegram.allowed.join(",") },
    discord: { ...common, DISCORD_BOT_TOKEN: DISCORD_TOKEN, DISCORD_API_URL: discord.apiUrl, DISCORD_ALLOWED_USERS: spec.discord.allowed.join(",") },
    slack: {
      ...common,
      SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
      SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
      SLACK_API_URL: slack.apiUrl.replace(/\/$/, ""),
      SLACK_ALLOWED_USERS: spec.slack.allowed.join(","),
    },
  };

  const runs: Array<{ name: string; run: CliRun }> = [];
  let gateway: ChildGateway | undefined;
  const bots = new Map<BotName, CliRun>();

  const system: RunningSystem = {
    telegram,
    discord,
    slack,
    dataDir,
    botDataDir,
    gateway: () => gateway!,
    bot: (name) => bots.get(name)!,
    async killGateway() {
      await gateway?.kill("SIGKILL");
    },
    async startGateway() {
      gateway = await spawnGateway(gatewayEnv);
      runs.push({ name: "gateway", run: gateway.run });
      if (gateway.url !== gatewayUrl) throw new Error(`the gateway came up on ${gateway.url}, not ${gatewayUrl}`);
    },
    async killBot(name) {
      const run = bots.get(name);
      if (!run || run.child.exitCode !== null || run.child.signalCode !== null) return;
      run.child.kill("SIGKILL");
      await run.exited;
    },
    async startBot(name) {
      const run = spawnCli(["bot", name], botEnv[name], { timeoutMs: 600_000 });
      runs.push({ name: `${name} bot`, run });
      bots.set(name, run);
      await waitForOutput(run, READY[name], 60_000);
    },
    logs: () => runs.map(({ name, run }) => ({ name, output: run.stdout() + run.stderr() })),
    async close() {
      await cleanup(); // kills every child still running
      await telegram.close();
      await discord.close();
      await slack.close();
    },
  };
  await system.startGateway();
  await Promise.all(BOT_NAMES.map((name) => system.startBot(name)));
  return system;
}

/** Polls `probe` until it returns something truthy; throws `what` after `timeoutMs`. */
export async function until<T>(probe: () => T | undefined | false | null | Promise<T | undefined | false | null>, what: string, timeoutMs = 15_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
