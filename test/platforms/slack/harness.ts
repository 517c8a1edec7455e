import { decodeSlackMessageRef } from "../../../bots/slack/adapter.ts";
import { startSlackBot } from "../../../bots/slack/index.ts";
import { loadConfig, type Config } from "../../../src/runtime/config.ts";
import { encodeSlackActionId } from "../../../src/platforms/slack/callback-data.ts";
import { toSlackText } from "../../../src/platforms/slack/escaping.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { gatewayQuestions, waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";
import { startFakeSlack, type FakeSlack, type FakeSlackMessage } from "./fake-api.ts";

export const SLACK_TEST_TOKENS = { bot: "xoxb-test-not-real", app: "xapp-1-test-not-real", signingSecret: "8f742231b10e8888abcd99yyyzzz85a5" };
/** Fast retries for tests; production uses SLACK_RETRY_CONFIG. A 429 still waits its full Retry-After. */
export const SLACK_TEST_RETRY = { retries: 2, minTimeout: 20, maxTimeout: 100 };

export interface SlackHarness extends BotHarness {
  mode: "socket" | "http";
  fake: FakeSlack;
  config: Config;
  /** HTTP mode: where Slack would POST events and interactivity. */
  eventsUrl(): string;
  message(copy: PromptCopy): FakeSlackMessage;
  /** The Slack channel of a target chat (a user id means the DM with that user). */
  channelOf(chat: string): string;
  /** Asks a question through the gateway; resolves to its id. */
  ask(questions: unknown[], target: { chat: string; users?: string[] }, extra?: Record<string, unknown>): Promise<string>;
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  /** The delivered copy of a question in a chat, once the gateway knows of it. */
  promptOf(id: string, chat?: string): Promise<PromptCopy>;
}

export async function createSlackHarness(mode: "socket" | "http" = "socket"): Promise<SlackHarness> {
  const people = { person: { id: "U0ADA", name: "Ada" }, colleague: { id: "U0GRACE", name: "Grace" }, stranger: { id: "U0MALLORY", name: "Mallory" } };
  const chats = { chat: "C0CHAT1", otherChat: "C0CHAT2" };
  const fake = await startFakeSlack({
    botToken: SLACK_TEST_TOKENS.bot,
    appToken: SLACK_TEST_TOKENS.app,
    people: Object.values(people),
    channels: Object.values(chats),
  });
  const gateway = await startHarnessGateway("aub-slack-");
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: gateway.dataDir,
    SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
    SLACK_API_URL: fake.apiUrl.replace(/\/$/, ""), // the bot adds the slash Bolt needs
    SLACK_ALLOWED_USERS: `${people.person.id},${people.colleague.id}`,
    ...(mode === "socket" ? { SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app } : { SLACK_SIGNING_SECRET: SLACK_TEST_TOKENS.signingSecret, SLACK_PORT: "0" }),
  });
  const log = process.env.SLACK_TEST_LOG ? (m: string, e?: unknown) => console.error(`[slack] ${m}`, e ?? "") : () => {};
  const lifecycle = await startPlatformLifecycle(gateway, () => startSlackBot(config, { log, retryConfig: SLACK_TEST_RETRY, connectRetryConfig: SLACK_TEST_RETRY }), [fake]);
  const eventsUrl = () => `http://127.0.0.1:${lifecycle.bot().port}/slack/events`;
  if (mode === "http") fake.useHttp(eventsUrl, SLACK_TEST_TOKENS.signingSecret);

  /** A target chat as Slack sees it: a user id means the DM with that user. */
  const channelOf = (chat: string) => (/^[UW]/.test(chat) ? fake.dmOf(chat) : chat);
  const messageOf = (copy: { ref: string }) => {
    const ref = decodeSlackMessageRef(copy.ref);
    if (!ref) throw new Error(`bad message ref ${copy.ref}`);
    return fake.message(ref.channel, ref.ts);
  };
  const sectionText = (m: FakeSlackMessage) =>
    m.blocks ? m.blocks.filter((b) => b.type === "section").map((b) => b.text.text).join("\n") : m.text;

  /**
   * Slack's notices carry nothing that ties them to the press but the person and the channel, so one person's presses
   * take turns: with tests running concurrently, the notice in that channel after a press is then that press's.
   */
  const turns = new Map<string, Promise<unknown>>();
  async function ephemeralAfter(who: Person, channel: string, press: () => Promise<{ status: number }>): Promise<string> {
    const notices = () => fake.ephemeralsTo(who.id).filter((e) => e.channel === channel);
    const turn = (turns.get(who.id) ?? Promise.resolve()).catch(() => {}).then(async () => {
      const before = notices().length;
      const { status } = await press();
      if (status !== 200) throw new Error(`the press got HTTP ${status}`);
      return (await waitUntil(() => notices()[before], `an ephemeral message to ${who.id} in ${channel}`)).text;
    });
    turns.set(who.id, turn);
    return turn;
  }

  const harness: SlackHarness = {
    ...lifecycle,
    mode,
    fake,
    config,
    surface: "slack",
    eventsUrl,
    ...chats,
    ...people,
    message: messageOf,
    channelOf,
    copy(chat, ref) {
      const m = messageOf({ ref });
      const actions = m.blocks?.find((b) => b.type === "actions");
      return { chat, ref, text: sectionText(m), buttons: (actions?.elements ?? []).map((e: any) => e.text.text) };
    },
    press: (copy, index, who) => ephemeralAfter(who, messageOf(copy).channel, () => fake.press(messageOf(copy), index, who)),
    pressForged(copy, forged, who) {
      const actionId =
        forged === "garbage" ? "a1|zz|?|9" : encodeSlackActionId({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } });
      return ephemeralAfter(who, messageOf(copy).channel, () => fake.pressAction(messageOf(copy), actionId, who));
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const index = copy.buttons.indexOf("Other…");
      if (index < 0) throw new Error("the copy has no Other… button");
      const { triggerId } = await fake.press(messageOf(copy), index, who);
      const opened = await waitUntil(() => fake.views.find((v) => v.trigger_id === triggerId), "views.open with the press's trigger_id");
      return async (text) => {
        const status = await fake.submitView(opened.view, who, text);
        if (status !== 200) throw new Error(`the view_submission got HTTP ${status}`);
      };
    },
    async type(chat, who, text, options = {}) {
      // A reply to a message in a thread goes in that thread.
      const replied = options.replyTo ? messageOf(options.replyTo) : undefined;
      const threadTs = replied ? (replied.thread_ts ?? replied.ts) : undefined;
      const { message, payload } = fake.typePayload(channelOf(chat), who, text, threadTs);
      const deliver = async () => {
        const status = await fake.deliver("events_api", payload);
        if (status !== 200) throw new Error(`the message event got HTTP ${status}`);
      };
      await deliver();
      return { deleted: () => message.deleted === true, reactions: () => message.reactions ?? [], redeliver: deliver };
    },
    holdNextPrompt(chat) {
      const held = fake.holdNext("chat.postMessage");
      return {
        release: held.release,
        posted: async () => {
          await waitUntil(() => held.arrived(), "the held prompt send");
          const channel = channelOf(chat);
          const prompt = fake.botMessages(channel).filter((m) => m.prompt).at(-1)!;
          return harness.copy(chat, `${channel}:${prompt.ts}`);
        },
      };
    },
    platformText: toSlackText,
    repliesTo(copy) {
      const prompt = messageOf(copy);
      return fake
        .botMessages(prompt.channel)
        .filter((m) => m.thread_ts === prompt.ts)
        .map((m) => ({ chat: copy.chat, ref: `${m.channel}:${m.ts}`, text: m.text, buttons: [], deleted: m.deleted === true, pings: /<[@!#]/.test(m.text) }));
    },
    latestReply(chat) {
      const channel = channelOf(chat);
      const reply = fake.botMessages(channel).filter((m) => !m.prompt).at(-1)!;
      return harness.copy(chat, `${channel}:${reply.ts}`);
    },
    refuseDeletingOwn(refuse) {
      fake.allowDeletingOwn(!refuse);
    },
    forbidDeleting(forbid) {
      fake.allowDeletingOthers(!forbid);
    },
    botReplies: (chat) => fake.botMessages(channelOf(chat)).filter((m) => !m.prompt).map((m) => m.text),
    privateNotices: (who) => fake.ephemeralsTo(who.id).map((e) => e.text),
    promptSends: (questionId) =>
      fake.calls.filter((c) => c.method === "chat.postMessage" && !c.failed && JSON.stringify(c.body.blocks ?? "").includes(`|${questionId}|`)).length,
    rateLimitNextSend(seconds) {
      fake.failNext("chat.postMessage", { status: 429, retryAfter: seconds });
    },
    ...gatewayQuestions("slack", lifecycle.gatewayUrl, (chat, ref) => harness.copy(chat, ref), chats.chat),
  };
  return harness;
}
