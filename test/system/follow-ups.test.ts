/**
 * When nobody answers (issue 20 §Acceptance), end to end with the real bots against the fakes:
 *  - an escalation from Telegram to Slack (two bots on one gateway), answered on Slack, the Telegram copy edited to
 *    say where;
 *  - a late answer pressed on Telegram, collected through the SDK (onLateAnswer, lateAnswers), the MCP tool
 *    ask_user_late_answers (a real `ask-user-bridge mcp` child) and the CLI (`list --late`, a real child);
 *  - a gateway killed with kill -9 (a real `ask-user-bridge gateway` child) between a reminder being scheduled and
 *    sent: after the restart the reminder is sent exactly once, and a second kill -9 sends nothing more.
 * The three run concurrently, each on its own gateway and fakes.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { startSlackBot } from "../../bots/slack/index.ts";
import { startTelegramBot } from "../../bots/telegram/index.ts";
import { connectGateway, type LateAnsweredRecord } from "../../src/client/index.ts";
import { loadConfig } from "../../src/runtime/config.ts";
import { startFakeSlack } from "../platforms/slack/fake-api.ts";
import { SLACK_TEST_TOKENS } from "../platforms/slack/harness.ts";
import { startFakeTelegram, type FakeTelegram } from "../platforms/telegram/fake-api.ts";
import { BIN, cleanup, freePort, rpcOk, sleep, spawnCli, startTestGateway, tempDir, TOKEN } from "../helpers/gateway.ts";
import { spawnGatewayProcess, killChildren } from "../helpers/cli.ts";
import { waitUntil } from "../scenarios/tools.ts";

const TELEGRAM_TOKEN = "123456:TEST-TOKEN-not-real";
const FAST_THROTTLE = {
  global: { reservoir: 1000, reservoirRefreshAmount: 1000, reservoirRefreshInterval: 1000 },
  group: { maxConcurrent: 1, minTime: 5 },
  out: { maxConcurrent: 1, minTime: 5 },
};
const ADA = { id: 101, first_name: "Ada" };
const TG_CHAT = -1001;
const SLACK_ADA = { id: "U0ADA", name: "Ada" };
const SLACK_CHANNEL = "C0ONCALL";
const deploy = (question = "Where should I deploy?") => [
  { id: "deploy_target", header: "Deployment target", question, options: [{ label: "Staging (Recommended)" }, { label: "Production" }] },
];

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await killChildren();
  await cleanup();
});

function telegramConfig(gatewayUrl: string, fake: FakeTelegram, dataDir = tempDir("aub-fu-tg-")) {
  return loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: TOKEN, DATA_DIR: dataDir, TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_ROOT: fake.apiRoot, TELEGRAM_ALLOWED_USERS: String(ADA.id) });
}

async function startTelegram(gatewayUrl: string) {
  const fake = await startFakeTelegram();
  closers.push(() => fake.close());
  const bot = await startTelegramBot(telegramConfig(gatewayUrl, fake), { log: () => {}, throttle: FAST_THROTTLE });
  closers.push(() => bot.stop());
  /** The bot's message in the chat with this message id. */
  const message = (chat: number, ref: string) => fake.messages().find((m) => m.chat.id === chat && m.message_id === Number(ref))!;
  return { fake, bot, message };
}

/** The delivered copy of a question on a surface, once the gateway has it. */
function copyRef(gatewayUrl: string, id: string, surface: string) {
  return waitUntil(async () => {
    const record = await rpcOk(gatewayUrl, "question.get", { id });
    return record.deliveries.find((d: any) => d.surface === surface)?.messageRef as string | undefined;
  }, `the ${surface} copy of ${id}`);
}

describe.concurrent("system: when nobody answers", { timeout: 90_000 }, () => {
  it("escalates from Telegram to Slack; answered on Slack, the Telegram copy says where", async () => {
    const gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
    closers.push(() => gateway.close());
    const telegram = await startTelegram(gateway.url);
    const slackFake = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: [SLACK_ADA], channels: [SLACK_CHANNEL] });
    closers.push(() => slackFake.close());
    const slackConfig = loadConfig({
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      DATA_DIR: tempDir("aub-fu-slack-"),
      SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
      SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
      SLACK_API_URL: slackFake.apiUrl.replace(/\/$/, ""),
      SLACK_ALLOWED_USERS: SLACK_ADA.id,
    });
    const fast = { retries: 2, minTimeout: 20, maxTimeout: 100 };
    const slackBot = await startSlackBot(slackConfig, { log: () => {}, retryConfig: fast, connectRetryConfig: fast });
    closers.push(() => slackBot.stop());

    const { id } = await rpcOk(gateway.url, "question.request", {
      questions: deploy(),
      timeoutSeconds: 60,
      targets: [{ surface: "telegram", chat: String(TG_CHAT) }],
      escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: SLACK_CHANNEL }] }],
    });
    const tgRef = await copyRef(gateway.url, id, "telegram");
    expect(telegram.message(TG_CHAT, tgRef).reply_markup.inline_keyboard).toHaveLength(4);
    const slackRef = await copyRef(gateway.url, id, "slack");
    const [channel, ts] = slackRef.split(":");
    const before = slackFake.ephemeralsTo(SLACK_ADA.id).length;
    await slackFake.press(slackFake.message(channel!, ts!), 1, SLACK_ADA);
    expect((await slackFake.waitForEphemeral(SLACK_ADA.id, before)).text).toBe("Answer submitted.");
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 5_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    const edited = await waitUntil(() => {
      const m = telegram.message(TG_CHAT, tgRef);
      return m.reply_markup?.inline_keyboard?.length === 0 && m.text;
    }, "the Telegram copy edited into the summary");
    expect(edited).toBe("✅ Deployment t: Production — answered in Slack by Ada");
    await waitUntil(() => slackFake.message(channel!, ts!).blocks?.every((b: any) => b.type !== "actions") && slackFake.message(channel!, ts!).text.includes("answered in Slack by Ada"), "the Slack copy edited");
    expect((await rpcOk(gateway.url, "question.get", { id })).escalated).toMatchObject([{ step: 0, targets: [{ surface: "slack", chat: SLACK_CHANNEL }] }]);
  });

  it("a late answer pressed on Telegram reaches the SDK, the MCP tool and the CLI", async () => {
    const gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
    closers.push(() => gateway.close());
    const telegram = await startTelegram(gateway.url);
    const env = { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-fu-mcp-") };
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--to", `telegram:${TG_CHAT}`], cwd: tempDir("aub-cwd-"), env, stderr: "pipe" });
    const mcp = new Client({ name: "follow-ups-test", version: "0.0.0" });
    await mcp.connect(transport);
    closers.push(() => mcp.close());
    const sdk = await connectGateway({ url: gateway.url, token: TOKEN });
    closers.push(async () => sdk.close());
    const heard: LateAnsweredRecord[] = [];
    sdk.onLateAnswer((record) => heard.push(record));

    const started = (await mcp.callTool({ name: "ask_user_start", arguments: { questions: deploy("Where should I deploy (late)?"), timeoutSeconds: 1 } })) as CallToolResult;
    const { id } = started.structuredContent as { id: string };
    const waited = (await mcp.callTool({ name: "ask_user_wait", arguments: { id, timeoutSeconds: 10 } })) as CallToolResult;
    expect(waited.structuredContent).toMatchObject({ status: "no_answer", reason: "expired" });
    const ref = await copyRef(gateway.url, id, "telegram");
    await waitUntil(() => telegram.message(TG_CHAT, ref).text.startsWith("⌛ No answer in time — you can still answer; the agent will get it."), "the late-open copy");
    expect(await telegram.fake.press(telegram.message(TG_CHAT, ref), 1, ADA)).toBe("✅ Recorded (late): Production (option 2)");
    await waitUntil(() => telegram.message(TG_CHAT, ref).text.startsWith("✅ (late) Deployment t: Production — answered late in Telegram by Ada"), "the late summary");

    // The SDK: the event, and the list by session.
    const [record] = await waitUntil(() => heard.length > 0 && heard, "onLateAnswer");
    expect(record).toMatchObject({ id, status: "expired", lateAnswer: { answers: { deploy_target: ["Production"] }, by: { surface: "telegram", user: String(ADA.id), userName: "Ada", via: "button" } } });
    const sessionKey = record!.sessionKey!;
    expect(sessionKey).toMatch(/^mcp-/);
    expect((await sdk.lateAnswers({ sessionKey })).map((r) => r.id)).toEqual([id]);
    // The MCP tool: this session's late answers since its last call, once.
    const late = (await mcp.callTool({ name: "ask_user_late_answers", arguments: {} })) as CallToolResult;
    expect(late.structuredContent).toMatchObject({ lateAnswers: [{ id, answers: { deploy_target: ["Production"] }, answeredBy: { surface: "telegram", user: String(ADA.id), via: "button" } }] });
    expect(((await mcp.callTool({ name: "ask_user_late_answers", arguments: {} })) as CallToolResult).structuredContent).toEqual({ lateAnswers: [] });
    // The CLI.
    const listed = await spawnCli(["list", "--late", "--session", sessionKey], env).exited;
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+\\S+Z\\s+\\S+Z\\s+telegram:Ada\\s+Deployment t\\S*: Where should I deploy \\(late\\)\\?\\s+Production$`, "m"));
  });

  it("a gateway kill -9 before a reminder comes due: after the restart it is sent exactly once, and a second kill -9 sends nothing more", async () => {
    const port = await freePort();
    const gatewayEnv = { GATEWAY_PORT: String(port), GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-fu-kill-"), ASK_TEST_MIN_TIMEOUT_SECONDS: "1", DELIVERY_TIMEOUT_SECONDS: "60" };
    let gateway = await spawnGatewayProcess(gatewayEnv);
    const telegram = await startTelegram(gateway.url);
    const chats = [TG_CHAT, -1002];
    // Due 3 s after it was asked, 27 s before expiry: room for two process starts and the bot's reconnect on a loaded machine.
    const { id } = await rpcOk(gateway.url, "question.request", { questions: deploy(), timeoutSeconds: 30, reminders: [27], targets: chats.map((chat) => ({ surface: "telegram", chat: String(chat) })) });
    const refs = await waitUntil(async () => {
      const record = await rpcOk(gateway.url, "question.get", { id });
      return record.deliveries.length === 2 && Object.fromEntries(record.deliveries.map((d: any) => [d.chat, d.messageRef]));
    }, "both copies");
    const remindersIn = (chat: number) => telegram.fake.botMessages(chat).filter((m) => m.reply_to_message?.message_id === Number(refs[String(chat)]));

    await gateway.kill("SIGKILL");
    await sleep(3_500); // the reminder comes due while no gateway runs
    expect(chats.map((chat) => remindersIn(chat).length)).toEqual([0, 0]);
    gateway = await spawnGatewayProcess(gatewayEnv);
    await waitUntil(() => chats.every((chat) => remindersIn(chat).length > 0), "a reminder in each chat after the restart", 15_000);
    const recorded = await waitUntil(async () => {
      const record = await rpcOk(gateway.url, "question.get", { id });
      return record.reminderCopies?.length === 2 && record;
    }, "both reminders recorded");
    expect(recorded.remindersSent).toMatchObject([{ offsetSeconds: 27 }]);
    expect(recorded.remindersSkipped ?? []).toEqual([]);
    for (const chat of chats) expect(remindersIn(chat)[0]!.text).toMatch(/^⏰ Still waiting for your answer — \d+ s left\.$/u);

    await gateway.kill("SIGKILL");
    gateway = await spawnGatewayProcess(gatewayEnv);
    await sleep(1_500); // the bot's resync after the reconnect
    expect(chats.map((chat) => remindersIn(chat).length)).toEqual([1, 1]);
    await rpcOk(gateway.url, "question.resolve", { id, answers: { deploy_target: "Production" }, by: { surface: "api", via: "api" } });
    await waitUntil(() => chats.every((chat) => remindersIn(chat)[0]!.deleted), "the reminders deleted after the answer");
    closers.push(() => gateway.kill("SIGKILL"));
  });

  it("a gateway kill -9 while a fired reminder is on its way: the bot reports it after the restart, and it is sent exactly once", async () => {
    const port = await freePort();
    const gatewayEnv = { GATEWAY_PORT: String(port), GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-fu-kill2-"), ASK_TEST_MIN_TIMEOUT_SECONDS: "1", DELIVERY_TIMEOUT_SECONDS: "60" };
    let gateway = await spawnGatewayProcess(gatewayEnv);
    closers.push(() => gateway.kill("SIGKILL"));
    const telegram = await startTelegram(gateway.url);
    const { id } = await rpcOk(gateway.url, "question.request", { questions: deploy(), timeoutSeconds: 30, reminders: [28], targets: [{ surface: "telegram", chat: String(TG_CHAT) }] });
    const ref = await copyRef(gateway.url, id, "telegram");
    const held = telegram.fake.holdNext("sendMessage"); // the reminder: Telegram has it, the bot not yet its answer
    await waitUntil(() => held.arrived(), "the reminder send", 10_000);
    await gateway.kill("SIGKILL");
    held.release();
    await sleep(300);
    gateway = await spawnGatewayProcess(gatewayEnv);
    const record = await waitUntil(async () => {
      const r = await rpcOk(gateway.url, "question.get", { id });
      return r.reminderCopies?.length === 1 && r;
    }, "the reminder recorded after the restart", 15_000);
    const reminders = telegram.fake.botMessages(TG_CHAT).filter((m) => m.reply_to_message?.message_id === Number(ref));
    expect(reminders).toHaveLength(1);
    expect(record.reminderCopies[0]).toMatchObject({ offsetSeconds: 28, messageRef: String(reminders[0]!.message_id) });
    await sleep(1_000);
    expect(telegram.fake.botMessages(TG_CHAT).filter((m) => m.reply_to_message?.message_id === Number(ref))).toHaveLength(1);
    await rpcOk(gateway.url, "question.resolve", { id, cancel: true, reason: "cancelled" });
  });
});
