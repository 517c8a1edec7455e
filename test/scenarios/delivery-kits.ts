/**
 * Each platform's real bot, its fake, and a proxy between them (test/fakes/api-proxy.ts) that can fail or refuse a
 * chat's sends and counts every edit call: what the delivery scenarios (delivery-scenarios.ts) drive.
 */
import { startDiscordBot } from "../../bots/discord/index.ts";
import { startSlackBot } from "../../bots/slack/index.ts";
import { startTelegramBot } from "../../bots/telegram/index.ts";
import type { Surface } from "../../src/contract/result.ts";
import { loadConfig, type Config } from "../../src/runtime/config.ts";
import { startApiProxy, type ApiProxy, type ProxiedCall } from "../fakes/api-proxy.ts";
import { startFakeDiscord } from "../platforms/discord/discord-api.ts";
import { startFakeSlack } from "../platforms/slack/slack-api.ts";
import { startFakeTelegram } from "../platforms/telegram/telegram-api.ts";
import { startTestGateway, TOKEN, type TestGateway } from "../helpers/gateway.ts";
import type { ScenarioClock } from "./harness.ts";

export interface DeliveryKit {
  surface: Surface;
  /** The virtual clock of the gateway and the bot (the in-memory platform's kit); absent: they run on real time. */
  clock?: ScenarioClock;
  gatewayUrl(): string;
  /** Two chats the bot can post in. */
  chats: [string, string];
  /** A chat the platform refuses for good (Telegram: blocked; Discord: 50033 Invalid Recipient(s); Slack: not_in_channel). */
  refusingChat: string;
  /** Every prompt send to `chat` fails with HTTP `status` (the platform's 5xx) until the returned function is called. */
  failSendsTo(chat: string, status: number): () => void;
  /** Prompt sends the platform accepted, per chat. */
  acceptedSends(chat: string): number;
  /** Edit calls the bot made (accepted or not). */
  editCalls(): number;
  /** Every edit in `chat` fails with HTTP `status` until the returned function is called. */
  failEditsIn(chat: string, status: number): () => void;
  /**
   * false (e-mail): resolution sends nothing to a copy, and the one message that updates it is the mail saying a late
   * answer was taken; the edit scenarios then settle each copy with a late answer, and count those mails as edits.
   */
  summaries?: boolean;
  stopBot(): Promise<void>;
  startBot(): Promise<void>;
  close(): Promise<void>;
}

type Running = { stop(): Promise<void> };

/** The parts every kit shares: the gateway, the proxy, and the bot's start and stop. */
async function kitBase(proxy: ApiProxy, config: (gatewayUrl: string) => Config, start: (config: Config) => Promise<Running>, closeFake: () => Promise<void>) {
  const gateway: TestGateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
  const botConfig = config(gateway.url);
  let bot: Running | undefined = await start(botConfig);
  return {
    gatewayUrl: () => gateway.url,
    async stopBot() {
      await bot?.stop();
      bot = undefined;
    },
    async startBot() {
      bot ??= await start(botConfig);
    },
    async close() {
      await bot?.stop();
      await gateway.close();
      await proxy.close();
      await closeFake();
    },
  };
}

/** A decision that answers every call `matches` picks with `answer` while it is in place. */
function failing(proxy: ApiProxy, matches: (call: ProxiedCall) => boolean, status: number, body: unknown): () => void {
  return proxy.use((call) => (matches(call) ? { answer: { status, body } } : undefined));
}

const TEST_THROTTLE = {
  global: { reservoir: 1000, reservoirRefreshAmount: 1000, reservoirRefreshInterval: 1000 },
  group: { maxConcurrent: 1, minTime: 5 },
  out: { maxConcurrent: 1, minTime: 5 },
};

export async function telegramDeliveryKit(): Promise<DeliveryKit> {
  const fake = await startFakeTelegram();
  const proxy = await startApiProxy(fake.apiRoot);
  const method = (call: ProxiedCall) => /\/(\w+)$/.exec(call.path)?.[1];
  const sendTo = (chat: string) => (call: ProxiedCall) => method(call) === "sendMessage" && String(call.params.chat_id) === chat && call.params.reply_markup !== undefined;
  const refusingChat = "777000111";
  failing(proxy, sendTo(refusingChat), 403, { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" });
  const base = await kitBase(
    proxy,
    (gatewayUrl) => loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: TOKEN, TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real", TELEGRAM_API_ROOT: proxy.origin }),
    (config) => startTelegramBot(config, { log: () => {}, throttle: TEST_THROTTLE }),
    () => fake.close(),
  );
  return {
    ...base,
    surface: "telegram",
    chats: ["-1001", "-1002"],
    refusingChat,
    failSendsTo: (chat, status) => failing(proxy, sendTo(chat), status, { ok: false, error_code: status, description: "Bad Gateway" }),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 200).length,
    editCalls: () => proxy.calls.filter((c) => method(c) === "editMessageText").length,
    failEditsIn: (chat, status) =>
      failing(proxy, (c) => method(c) === "editMessageText" && String(c.params.chat_id) === chat, status, { ok: false, error_code: status, description: "Bad Gateway" }),
  };
}

const DISCORD_TOKEN = "discord-test-token-not-real";

export async function discordDeliveryKit(): Promise<DeliveryKit> {
  const fake = await startFakeDiscord({ token: DISCORD_TOKEN, heartbeatIntervalMs: 1_000 });
  const chats: [string, string] = ["710000000000000001", "710000000000000002"];
  fake.addTextChannel(chats[0], "general");
  fake.addTextChannel(chats[1], "ops");
  // A person whose DM channel opens, but whom Discord will not deliver to: 50033 Invalid Recipient(s).
  const refusingChat = "110000000000000777";
  const refusingDm = fake.dmChannelOf(fake.addUser(refusingChat, "Closed")).id;
  const proxy = await startApiProxy(fake.baseUrl);
  const sendTo = (channel: string) => (call: ProxiedCall) => call.method === "POST" && call.path === `/api/v10/channels/${channel}/messages`;
  failing(proxy, sendTo(refusingDm), 400, { code: 50033, message: "Invalid Recipient(s)" });
  const base = await kitBase(
    proxy,
    (gatewayUrl) => loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: TOKEN, DISCORD_BOT_TOKEN: DISCORD_TOKEN, DISCORD_API_URL: `${proxy.origin}/api` }),
    (config) => startDiscordBot(config, { log: () => {} }),
    () => fake.close(),
  );
  return {
    ...base,
    surface: "discord",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => failing(proxy, sendTo(chat), status, { code: 0, message: `${status}: Bad Gateway` }),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 200).length,
    editCalls: () => proxy.calls.filter((c) => c.method === "PATCH" && /^\/api\/v10\/channels\/\d+\/messages\/\d+$/.test(c.path)).length,
    failEditsIn: (chat, status) =>
      failing(proxy, (c) => c.method === "PATCH" && c.path.startsWith(`/api/v10/channels/${chat}/messages/`), status, { code: 0, message: `${status}: Bad Gateway` }),
  };
}

const SLACK_TOKENS = { bot: "xoxb-test-not-real", app: "xapp-1-test-not-real" };

export async function slackDeliveryKit(): Promise<DeliveryKit> {
  const chats: [string, string] = ["C0DELIV1", "C0DELIV2"];
  const refusingChat = "C0NOTIN";
  const fake = await startFakeSlack({ botToken: SLACK_TOKENS.bot, appToken: SLACK_TOKENS.app, people: [{ id: "U0ADA", name: "Ada" }], channels: [...chats, refusingChat] });
  const proxy = await startApiProxy(`http://127.0.0.1:${fake.port}`);
  const sendTo = (channel: string) => (call: ProxiedCall) => call.path === "/api/chat.postMessage" && call.params.channel === channel && call.params.blocks !== undefined;
  failing(proxy, sendTo(refusingChat), 200, { ok: false, error: "not_in_channel" });
  const retry = { retries: 2, minTimeout: 20, maxTimeout: 100 };
  const base = await kitBase(
    proxy,
    (gatewayUrl) =>
      loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: TOKEN, SLACK_BOT_TOKEN: SLACK_TOKENS.bot, SLACK_APP_TOKEN: SLACK_TOKENS.app, SLACK_API_URL: `${proxy.origin}/api` }),
    (config) => startSlackBot(config, { log: () => {}, retryConfig: retry, connectRetryConfig: retry }),
    () => fake.close(),
  );
  return {
    ...base,
    surface: "slack",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => failing(proxy, sendTo(chat), status, { ok: false, error: "bad_gateway" }),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 200).length,
    editCalls: () => proxy.calls.filter((c) => c.path === "/api/chat.update").length,
    failEditsIn: (chat, status) => failing(proxy, (c) => c.path === "/api/chat.update" && c.params.channel === chat, status, { ok: false, error: "bad_gateway" }),
  };
}
