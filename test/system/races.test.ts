/**
 * Races: one question sent to Telegram, Slack and the web at once is answered at the same moment from all three
 * (Telegram and Slack through their real bots, by button or typed reply; the web through the protocol, as the
 * Control UI does). Exactly one answer wins; every copy shows the winner; the losers are told
 * "This question was already answered." and the protocol loser gets QUESTION_ALREADY_TERMINAL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSlackBot } from "../../bots/slack/index.ts";
import { startTelegramBot } from "../../bots/telegram/index.ts";
import type { RunningBot } from "../../bots/shared.ts";
import { TEXTS } from "../../src/bridge/index.ts";
import { loadConfig } from "../../src/runtime/config.ts";
import { decodeSlackMessageRef } from "../../bots/slack/adapter.ts";
import { startFakeSlack, type FakeSlack } from "../platforms/slack/fake-api.ts";
import { SLACK_TEST_TOKENS } from "../platforms/slack/harness.ts";
import { startFakeTelegram, type FakeTelegram } from "../platforms/telegram/fake-api.ts";
import { cleanup, rpc, rpcOk, sleep, startTestGateway, tempDir, TOKEN, type TestGateway } from "../helpers/gateway.ts";
import { waitUntil } from "../scenarios/bot-scenarios.ts";

const TG_CHAT = 5_001;
const TG_PERSON = { id: 5_001, first_name: "Ada" };
const SLACK_CHANNEL = "C0RACE";
const SLACK_PERSON = { id: "U0LINUS", name: "Linus" };
const WEB_BY = { surface: "web", via: "web" as const, user: "ops", userName: "Grace" };
const LABELS = ["Alpha", "Bravo", "Charlie"];
const ROUNDS = 12;
/** Fast limits for tests; production spaces sends a second apart per chat (the flood test uses those). */
const TEST_THROTTLE = {
  global: { reservoir: 1000, reservoirRefreshAmount: 1000, reservoirRefreshInterval: 1000 },
  group: { maxConcurrent: 1, minTime: 5 },
  out: { maxConcurrent: 1, minTime: 5 },
};
const FAST_RETRY = { retries: 2, minTimeout: 20, maxTimeout: 100 };

type Contender = "telegram" | "slack" | "web";

describe("races", () => {
  let gateway: TestGateway;
  let telegram: FakeTelegram;
  let slack: FakeSlack;
  const bots: RunningBot[] = [];

  beforeAll(async () => {
    gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
    telegram = await startFakeTelegram();
    slack = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: [SLACK_PERSON], channels: [SLACK_CHANNEL] });
    const config = loadConfig({
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      DATA_DIR: tempDir("aub-race-"),
      TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
      TELEGRAM_API_ROOT: telegram.apiRoot,
      SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
      SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
      SLACK_API_URL: slack.apiUrl.replace(/\/$/, ""),
    });
    bots.push(await startTelegramBot(config, { log: () => {}, throttle: TEST_THROTTLE }));
    bots.push(await startSlackBot(config, { log: () => {}, retryConfig: FAST_RETRY, connectRetryConfig: FAST_RETRY }));
  }, 60_000);
  afterAll(async () => {
    for (const bot of bots) await bot.stop();
    await gateway?.close();
    await telegram?.close();
    await slack?.close();
    await cleanup();
  });

  /** Telegram: a button press (the toast) or a typed reply to the prompt (the bot's reply to that message). */
  async function fromTelegram(messageRef: string, option: number, typed: boolean): Promise<string | undefined> {
    const prompt = telegram.messages().find((m) => m.chat.id === TG_CHAT && String(m.message_id) === messageRef)!;
    if (!typed) return telegram.press(prompt, option, TG_PERSON);
    const sent = telegram.type(TG_CHAT, TG_PERSON, String(option + 1), prompt);
    const reply = await waitUntil(
      () => telegram.calls.find((c) => c.method === "sendMessage" && !c.failed && c.body.reply_parameters?.message_id === sent.message_id),
      "the Telegram bot's reply to the typed answer",
    );
    return String(reply.body.text);
  }

  /** Slack: a button press or a thread reply; what the person is told (an ephemeral, or a reply in the thread). */
  async function fromSlack(messageRef: string, option: number, typed: boolean): Promise<string | undefined> {
    const { channel, ts } = decodeSlackMessageRef(messageRef)!;
    const prompt = slack.message(channel, ts);
    const ephemerals = slack.ephemeralsTo(SLACK_PERSON.id).length;
    const replies = slack.botMessages(channel).filter((m) => m.thread_ts === ts).length;
    if (typed) await slack.type(channel, SLACK_PERSON, String(option + 1), ts);
    else await slack.press(prompt, option, SLACK_PERSON);
    const told = await waitUntil(
      () => slack.ephemeralsTo(SLACK_PERSON.id)[ephemerals]?.text ?? slack.botMessages(channel).filter((m) => m.thread_ts === ts)[replies]?.text,
      "what the Slack bot told the person",
    );
    return told;
  }

  it(`${ROUNDS} rounds of three-way races: one winner, every copy shows it, the losers are told`, async () => {
    const winners: Record<Contender, number> = { telegram: 0, slack: 0, web: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const { id } = await rpcOk(gateway.url, "question.request", {
        questions: [{ id: "pick", header: "Race", question: `Race ${round}: which one?`, options: LABELS.map((label) => ({ label })) }],
        timeoutSeconds: 900,
        targets: [{ surface: "telegram", chat: String(TG_CHAT) }, { surface: "slack", chat: SLACK_CHANNEL }, { surface: "web" }],
      });
      const record = await waitUntil(async () => {
        const r = await rpcOk(gateway.url, "question.get", { id });
        return r.deliveries.length === 2 && r;
      }, "both chat deliveries");
      const ref = (surface: string) => record.deliveries.find((d: any) => d.surface === surface).messageRef as string;

      // Each contender picks a different option, so the stored answer names the winner; the order and a small
      // random head start vary per round.
      const pick: Record<Contender, number> = { telegram: round % 3, slack: (round + 1) % 3, web: (round + 2) % 3 };
      const typed = round % 3 === 2;
      const delay = () => sleep(Math.floor(Math.random() * 15));
      const [tgTold, slackTold, web] = await Promise.all([
        delay().then(() => fromTelegram(ref("telegram"), pick.telegram, typed)),
        delay().then(() => fromSlack(ref("slack"), pick.slack, typed)),
        delay().then(() => rpc(gateway.url, "question.resolve", { id, answers: { pick: LABELS[pick.web] }, by: WEB_BY })),
      ]);

      const final = await rpcOk(gateway.url, "question.get", { id });
      expect(final.status).toBe("answered");
      const winner = final.by.surface as Contender;
      winners[winner]++;
      expect(final.answers).toEqual({ pick: [LABELS[pick[winner]]] });

      // Exactly one contender was told it won; the others were told it was already answered.
      const wonTelegram = typed ? /^✅ Recorded: /.test(tgTold ?? "") : tgTold === TEXTS.submitted;
      const wonSlack = typed ? /^✅ Recorded: /.test(slackTold ?? "") : slackTold === TEXTS.submitted;
      const wonWeb = web.body.ok;
      expect({ telegram: wonTelegram, slack: wonSlack, web: wonWeb }).toEqual({ telegram: winner === "telegram", slack: winner === "slack", web: winner === "web" });
      if (!wonTelegram) expect(tgTold).toBe(TEXTS.alreadyAnswered);
      if (!wonSlack) expect(slackTold).toBe(TEXTS.alreadyAnswered);
      if (!wonWeb) expect(web).toMatchObject({ status: 409, body: { ok: false, error: { code: "QUESTION_ALREADY_TERMINAL" } } });

      // The asker gets the winner's answer.
      expect(await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 1_000 })).toMatchObject({
        status: "answered",
        answers: { answers: { pick: [LABELS[pick[winner]]] } },
      });

      // Every copy becomes the winner's summary, without buttons.
      const where = { telegram: "in Telegram by Ada", slack: "in Slack by Linus", web: "on the web by Grace" }[winner];
      const summary = `✅ Race: ${LABELS[pick[winner]]} — answered ${where}`;
      await waitUntil(() => {
        const copy = telegram.messages().find((m) => m.chat.id === TG_CHAT && String(m.message_id) === ref("telegram"))!;
        return copy.text === summary && (copy.reply_markup?.inline_keyboard?.length ?? 0) === 0;
      }, `the Telegram copy to read ${summary}`);
      await waitUntil(() => {
        const { channel, ts } = decodeSlackMessageRef(ref("slack"))!;
        const copy = slack.message(channel, ts);
        return copy.text.includes(summary) && !copy.blocks?.some((b) => b.type === "actions");
      }, `the Slack copy to read ${summary}`);
    }
    console.log(`[races] rounds=${ROUNDS} winners telegram=${winners.telegram} slack=${winners.slack} web=${winners.web}; exactly one winner every round, every copy showed it`);
  }, 90_000);
});
