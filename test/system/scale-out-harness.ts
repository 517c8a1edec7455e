/**
 * Several `ask-user-bridge gateway` processes on one PostgreSQL database, and one `ask-user-bridge bot <platform>`
 * process per platform, each bot connected to the instance it is given, against the fake Telegram, Discord and Slack
 * servers that run in the test process. Each gateway keeps its port, so one killed with SIGKILL comes back where its
 * clients look for it. Every child's stdout and stderr is kept, killed ones included.
 */
import { startFakeDiscord, type FakeDiscord } from "../platforms/discord/fake-api.ts";
import { startFakeSlack, type FakeSlack, type FakeSlackPerson } from "../platforms/slack/fake-api.ts";
import { SLACK_TEST_TOKENS } from "../platforms/slack/harness.ts";
import { startFakeTelegram, type FakeTelegram } from "../platforms/telegram/fake-api.ts";
import { cleanup, freePort, spawnCli, spawnGateway, tempDir, TOKEN, waitForOutput, type ChildGateway, type CliRun } from "../helpers/gateway.ts";
import { BOT_NAMES, DISCORD_TOKEN, TELEGRAM_TOKEN, type BotName } from "./system-harness.ts";

/** What each bot logs once it listens (after its first sync with the gateway). */
const READY: Record<BotName, RegExp> = {
  telegram: /long polling as @/,
  discord: /connected to Discord as/,
  slack: /connected in Socket Mode/,
};

export interface ScaleOutSpec {
  databaseUrl: string;
  instances: number;
  /** The gateway instance each bot connects to. */
  botInstance: Record<BotName, number>;
  telegram: { allowed: string[] };
  discord: { channels: string[]; people: Array<{ id: string; name: string }> };
  slack: { channels: string[]; people: FakeSlackPerson[] };
  gatewayEnv?: Record<string, string>;
}

export interface GatewayInstance {
  index: number;
  url: string;
  wsUrl: string;
  /** False from a kill until the restarted process listens. */
  up(): boolean;
  /** kill -9, and wait for the exit. */
  kill(): Promise<void>;
  /** Starts the process again on the same port; resolves once it listens. */
  start(): Promise<void>;
}

export interface ScaleOut {
  telegram: FakeTelegram;
  discord: FakeDiscord;
  slack: FakeSlack;
  gateways: GatewayInstance[];
  /** Everything every child ever wrote, killed ones included. */
  logs(): Array<{ name: string; output: string }>;
  /** Kills every child still running, closes the fakes. */
  close(): Promise<void>;
}

export async function startScaleOut(spec: ScaleOutSpec): Promise<ScaleOut> {
  const telegram = await startFakeTelegram();
  const discord = await startFakeDiscord({ token: DISCORD_TOKEN, heartbeatIntervalMs: 10_000 });
  spec.discord.channels.forEach((id, i) => discord.addTextChannel(id, `channel-${i}`));
  for (const person of spec.discord.people) discord.addUser(person.id, person.name);
  const slack = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: spec.slack.people, channels: spec.slack.channels });
  const runs: Array<{ name: string; run: CliRun }> = [];
  const close = async (): Promise<void> => {
    await cleanup(); // kills every child still running, removes the temp dirs
    await telegram.close();
    await discord.close();
    await slack.close();
  };
  try {
    return await startProcesses();
  } catch (error) {
    await close();
    throw error;
  }

  async function startProcesses(): Promise<ScaleOut> {
    const gateways = await Promise.all(
      Array.from({ length: spec.instances }, async (_, index): Promise<GatewayInstance> => {
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        const env = {
          GATEWAY_PORT: String(port),
          DATA_DIR: tempDir("aub-scale-gw-"),
          DATABASE_URL: spec.databaseUrl,
          DELIVERY_TIMEOUT_SECONDS: "300",
          ASK_TEST_MIN_TIMEOUT_SECONDS: "1",
          ...spec.gatewayEnv,
        };
        let child: ChildGateway | undefined;
        let up = false;
        return {
          index,
          url,
          wsUrl: `ws://127.0.0.1:${port}/ws`,
          up: () => up,
          async kill() {
            up = false;
            await child?.kill("SIGKILL");
          },
          async start() {
            child = await spawnGateway(env);
            runs.push({ name: `gateway ${index}`, run: child.run });
            if (child.url !== url) throw new Error(`gateway ${index} came up on ${child.url}, not ${url}`);
            up = true;
          },
        };
      }),
    );
    // All at once: each applies pending migrations under an advisory lock, so starting together is safe.
    await Promise.all(gateways.map((g) => g.start()));

    const botDataDir = tempDir("aub-scale-bots-");
    const common = (name: BotName) => ({ GATEWAY_URL: gateways[spec.botInstance[name]]!.url, GATEWAY_TOKEN: TOKEN, DATA_DIR: botDataDir });
    const botEnv: Record<BotName, Record<string, string>> = {
      telegram: { ...common("telegram"), TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, TELEGRAM_ALLOWED_USERS: spec.telegram.allowed.join(",") },
      discord: { ...common("discord"), DISCORD_BOT_TOKEN: DISCORD_TOKEN, DISCORD_API_URL: discord.apiUrl, DISCORD_ALLOWED_USERS: spec.discord.people.map((p) => p.id).join(",") },
      slack: {
        ...common("slack"),
        SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
        SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
        SLACK_API_URL: slack.apiUrl.replace(/\/$/, ""),
        SLACK_ALLOWED_USERS: spec.slack.people.map((p) => p.id).join(","),
      },
    };
    await Promise.all(
      BOT_NAMES.map(async (name) => {
        const run = spawnCli(["bot", name], botEnv[name], { timeoutMs: 600_000 });
        runs.push({ name: `${name} bot`, run });
        await waitForOutput(run, READY[name], 60_000);
      }),
    );

    return {
      telegram,
      discord,
      slack,
      gateways,
      logs: () => runs.map(({ name, run }) => ({ name, output: run.stdout() + run.stderr() })),
      close,
    };
  }
}
