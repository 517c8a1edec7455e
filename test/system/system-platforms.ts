/**
 * Every registered platform beyond the three of the full crash and scale runs, as the system suites need it: its fake
 * (from test/platforms/<p>/), the variables of `ask-user-bridge bot <p>` against it, the line the bot logs once it
 * listens, and one person who finds a question's prompt, answers option `choice` on it, and whose fake counts the
 * prompts sent. The type takes every registry name but those three, so the next platform is a compile error here.
 *
 * `startPlatformSystem` runs one platform as real processes: `instances` gateways (on one PostgreSQL when given a
 * database), and its bot on one of them, each killable with SIGKILL and started again on its port and DATA_DIR.
 */
import { MATTERMOST_QUESTION_PROP } from "../../src/platforms/mattermost/payload.ts";
import type { PlatformName } from "../../src/platforms/index.ts";
import { freePort, rpcOk, spawnCli, spawnGateway, tempDir, TOKEN, waitForOutput, type ChildGateway, type CliRun } from "../helpers/gateway.ts";
import { BOT_ADDRESS, createMailClient, startFakeSmtp } from "../platforms/email/fake-api.ts";
import { POLL_START, startFakeMatrix } from "../platforms/matrix/fake-api.ts";
import { startFakeMattermost } from "../platforms/mattermost/fake-api.ts";
import { MATTERMOST_PEOPLE, MATTERMOST_TEST_TOKEN } from "../platforms/mattermost/harness.ts";
import { startTeamsFake, TEAMS_CHATS, TEAMS_PEOPLE, TEAMS_TEST_APP, TEAMS_TEST_SERVICE_URL_HOSTS } from "../platforms/teams/harness.ts";
import { startFakeWhatsApp } from "../platforms/whatsapp/fake-api.ts";
import { WA, whatsappBotEnv } from "../platforms/whatsapp/harness.ts";
import { until, type BotName } from "./system-harness.ts";

/** One platform's fake, as the system suites use it. */
export interface PlatformFake {
  /** The chat questions go to. */
  chat: string;
  /** The person who answers there (their user id as the record's `by.user` shows it). */
  person: string;
  /** How the person answers: a button ("button") or a typed reply ("text"). */
  via: "button" | "text";
  /** `ask-user-bridge bot <p>`'s own variables against this fake. */
  env: Record<string, string>;
  /** What the bot logs once it listens. */
  ready: RegExp;
  /** Run after each start of the bot (Teams: the app is installed in the chat, so the bot has its reference). */
  afterStart?(): Promise<void>;
  /** Question `id`'s prompt in `chat`, once it was sent. */
  prompt(id: string): unknown;
  /** Answers option `choice` on that prompt, as the person. */
  answer(prompt: any, choice: number): Promise<unknown>;
  /** Prompts sent for question `id`, counted at the fake. */
  promptSends(id: string): number;
  close(): Promise<unknown>;
}

export type LeanPlatform = Exclude<PlatformName, BotName>;

const includesQuestion = (value: unknown, id: string) => JSON.stringify(value ?? "").includes(`|${id}|`);

/** Each platform outside the full runs: how to start its fake. */
export const PLATFORM_FAKES: Record<LeanPlatform, () => Promise<PlatformFake>> = {
  async whatsapp() {
    const fake = await startFakeWhatsApp(WA);
    const port = await freePort();
    fake.setWebhook(`http://127.0.0.1:${port}/webhook`);
    const person = { id: "15550000101", name: "Ada" };
    return {
      chat: person.id,
      person: person.id,
      via: "button",
      env: { ...whatsappBotEnv(fake.apiRoot, port), WHATSAPP_ALLOWED_USERS: person.id },
      ready: /webhook on port/u,
      prompt: (id) => fake.botMessages(person.id).find((m) => m.type === "interactive" && m.replyTo === undefined && includesQuestion(m, id)),
      answer: (prompt, choice) => fake.select(person.id, person.name, prompt, choice),
      promptSends: (id) => fake.calls.filter((c) => c.status === 200 && c.body.type === "interactive" && !c.body.context && includesQuestion(c.body.interactive, id)).length,
      close: () => fake.close(),
    };
  },
  async mattermost() {
    const people = Object.values(MATTERMOST_PEOPLE).map((p) => ({ id: p.id, username: p.username, first_name: p.name }));
    const chat = "chan1id0000000000000000000";
    const fake = await startFakeMattermost({ token: MATTERMOST_TEST_TOKEN, people, channels: [chat] });
    const person = MATTERMOST_PEOPLE.person.id;
    return {
      chat,
      person,
      via: "button",
      env: {
        MATTERMOST_URL: fake.url,
        MATTERMOST_BOT_TOKEN: MATTERMOST_TEST_TOKEN,
        MATTERMOST_ACTIONS_HOST: "127.0.0.1",
        MATTERMOST_ACTIONS_PORT: String(await freePort()),
        MATTERMOST_ALLOWED_USERS: person,
      },
      ready: /connected to Mattermost as/u,
      prompt: (id) => fake.botPosts(chat).find((p) => p.props[MATTERMOST_QUESTION_PROP] === id),
      answer: (post, choice) => fake.press(post.id, choice, fake.user(person)!),
      promptSends: (id) => fake.calls.filter((c) => c.method === "POST" && c.path === "/api/v4/posts" && !c.failed && c.body?.props?.[MATTERMOST_QUESTION_PROP] === id).length,
      close: () => fake.close(),
    };
  },
  async teams() {
    const fake = await startTeamsFake();
    const port = await freePort();
    fake.useBot(`http://127.0.0.1:${port}/api/messages`);
    const chat = TEAMS_CHATS.chat;
    const person = TEAMS_PEOPLE.person.id;
    return {
      chat,
      person,
      via: "button",
      env: {
        TEAMS_APP_ID: TEAMS_TEST_APP.appId,
        TEAMS_TENANT_ID: TEAMS_TEST_APP.tenantId,
        TEAMS_AUTHORITY_URL: fake.authorityUrl,
        TEAMS_TOKEN_SIDECAR_URL: fake.sidecarUrl,
        TEAMS_HOST: "127.0.0.1",
        TEAMS_PORT: String(port),
        TEAMS_ALLOWED_USERS: person,
        TEAMS_SERVICE_URL_HOSTS: TEAMS_TEST_SERVICE_URL_HOSTS,
      },
      ready: /messaging endpoint: POST/u,
      async afterStart() {
        const status = await fake.install(chat);
        if (status !== 200) throw new Error(`installing the app in ${chat} got HTTP ${status}`);
      },
      prompt: (id) => fake.botMessages(chat).find((m) => m.card && includesQuestion(m.card, id)),
      answer: (card, choice) => fake.submit(card, person, card.card.actions[choice].data),
      promptSends: (id) => fake.calls.filter((c) => c.method === "POST" && c.status === 201 && includesQuestion(c.body?.attachments, id)).length,
      close: () => fake.close(),
    };
  },
  async matrix() {
    const fake = await startFakeMatrix();
    const room = "!ops:fake.test";
    const ada = { id: "@ada:fake.test", name: "Ada" };
    fake.addRoom(room, [ada]);
    return {
      chat: room,
      person: ada.id,
      via: "button",
      env: { MATRIX_HOMESERVER_URL: fake.baseUrl, MATRIX_ACCESS_TOKEN: fake.token, MATRIX_ALLOWED_USERS: ada.id },
      ready: /syncing/u,
      prompt: (id) => fake.botEvents(room).find((e) => e.type === POLL_START && includesQuestion(e.content, id)),
      answer: async (poll, choice) => fake.vote(room, ada, poll.event_id, [poll.content[POLL_START].answers[choice].id]),
      promptSends: (id) => fake.calls.filter((c) => c.created && c.created.type === POLL_START && !c.body["m.relates_to"] && includesQuestion(c.body, id)).length,
      close: () => fake.close(),
    };
  },
  async email() {
    const smtp = await startFakeSmtp();
    const port = await freePort();
    const ada = { id: "ada@example.com", name: "Ada" };
    const isPrompt = (m: { inReplyTo?: string }) => m.inReplyTo === undefined;
    return {
      chat: ada.id,
      person: ada.id,
      via: "text",
      env: { EMAIL_SMTP_URL: smtp.url, EMAIL_FROM: `Ask bot <${BOT_ADDRESS}>`, EMAIL_INBOUND_HOST: "127.0.0.1", EMAIL_INBOUND_PORT: String(port) },
      ready: /SMTP listener on port/u,
      prompt: (id) => smtp.mailsTo(ada.id).find((m) => isPrompt(m) && m.questionId === id),
      answer: (mail, choice) => createMailClient(() => port).compose(ada, String(choice + 1), { replyTo: mail }).send(),
      promptSends: (id) => smtp.mails.filter((m) => isPrompt(m) && m.questionId === id).length,
      close: () => smtp.close(),
    };
  },
};

/** A process the test can kill with SIGKILL and start again as it was. */
export interface Restartable {
  /** Resolves once it listens. */
  start(): Promise<void>;
  /** kill -9, and wait for the exit. */
  kill(): Promise<void>;
}

export interface PlatformSystem {
  fake: PlatformFake;
  /** The gateways' URLs, by instance. */
  urls: string[];
  gateways: Restartable[];
  bot: Restartable;
  /** Everything every child wrote, killed ones included. */
  logs(): string;
  close(): Promise<void>;
}

/** `instances` gateway processes (on `databaseUrl`'s PostgreSQL, else one SQLite DATA_DIR each) and the bot on `botInstance`. */
export async function startPlatformSystem(platform: LeanPlatform, { instances = 1, databaseUrl, botInstance = 0 }: { instances?: number; databaseUrl?: string; botInstance?: number } = {}): Promise<PlatformSystem> {
  const fake = await PLATFORM_FAKES[platform]();
  const runs: CliRun[] = [];
  const ports = await Promise.all(Array.from({ length: instances }, () => freePort()));
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const gateways = ports.map((port): Restartable => {
    const env = { GATEWAY_PORT: String(port), DATA_DIR: tempDir("aub-system-gw-"), DELIVERY_TIMEOUT_SECONDS: "60", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
    let child: ChildGateway | undefined;
    return {
      async start() {
        child = await spawnGateway(env);
        runs.push(child.run);
      },
      kill: async () => child?.kill("SIGKILL"),
    };
  });
  const botEnv = { GATEWAY_URL: urls[botInstance]!, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-system-bot-"), ...fake.env };
  let bot: CliRun | undefined;
  const system: PlatformSystem = {
    fake,
    urls,
    gateways,
    bot: {
      async start() {
        bot = spawnCli(["bot", platform], botEnv, { timeoutMs: 300_000 });
        runs.push(bot);
        await waitForOutput(bot, fake.ready, 60_000);
        // …and its gateway lists it as connected (GET /readyz), so a kill right after cannot catch it mid-start-up.
        const connected = async () => ((await (await fetch(`${botEnv.GATEWAY_URL}/readyz`)).json()) as { bots?: Array<{ surface: string }> }).bots?.some((b) => b.surface === platform);
        await until(() => connected().catch(() => false), `the ${platform} bot to be connected`, 60_000, 50);
        await fake.afterStart?.();
      },
      async kill() {
        if (bot && bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
        await bot?.exited;
      },
    },
    logs: () => runs.map((run) => run.stdout() + run.stderr()).join("\n=====\n"),
    async close() {
      await Promise.all([system.bot, ...gateways].map((p) => p.kill()));
      await fake.close();
    },
  };
  // Side by side: a bot retries its first connection until its gateway listens.
  await Promise.all([...gateways.map((g) => g.start()), system.bot.start()]);
  return system;
}

export const LEAN_LABELS = ["Alpha", "Bravo", "Charlie"];

/** question.request on `url` for the platform's chat; resolves to the question's id. */
export async function askPlatform(url: string, platform: LeanPlatform, fake: PlatformFake, runId: string): Promise<string> {
  const questions = [{ id: "pick", header: "Pick", question: `${runId}: which one?`, options: LEAN_LABELS.map((label) => ({ label })) }];
  return (await rpcOk(url, "question.request", { questions, timeoutSeconds: 600, runId, targets: [{ surface: platform, chat: fake.chat }] })).id;
}

/**
 * The person answers option `choice` on the prompt and, like a person who sees nothing happen, tries again after a
 * few seconds (a press may reach a bot still resyncing with its gateway); resolves to the record once it is terminal.
 */
export async function answerPrompt(url: string, fake: PlatformFake, id: string, prompt: unknown, choice: number): Promise<any> {
  for (let attempt = 0; ; attempt++) {
    await fake.answer(prompt, choice);
    const record = await until(async () => {
      const r = await rpcOk(url, "question.get", { id });
      return r.status !== "pending" && r;
    }, `question ${id} to be answered`, 5_000, 50).catch(() => undefined);
    if (record || attempt === 3) return record ?? rpcOk(url, "question.get", { id });
  }
}
