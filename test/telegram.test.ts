import { mkdtempSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTelegramBot } from "../bots/telegram/index.ts";
import { loadConfig } from "../src/config.ts";
import { encodeTelegramCallbackData, toTelegramText } from "../src/render/index.ts";
import { startFakeTelegram, type FakeTelegram, type FakeTelegramMessage } from "./fakes/telegram-api.ts";
import { freePort, rpcOk, sleep, startTestGateway, TOKEN, type TestGateway } from "./helpers/gateway.ts";
import { runBotScenarios, waitUntil } from "./scenarios/bot-scenarios.ts";
import { telegramDeliveryKit } from "./scenarios/delivery-kits.ts";
import { runDeliveryScenarios } from "./scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "./scenarios/follow-up-scenarios.ts";
import { scenarioTools } from "./scenarios/tools.ts";
import type { BotHarness, Person } from "./scenarios/harness.ts";

/** Fast limits for tests; the real defaults space sends a second apart per chat. */
const TEST_THROTTLE = {
  global: { reservoir: 1000, reservoirRefreshAmount: 1000, reservoirRefreshInterval: 1000 },
  group: { maxConcurrent: 1, minTime: 5 },
  out: { maxConcurrent: 1, minTime: 5 },
};

export interface TelegramHarness extends BotHarness {
  fake: FakeTelegram;
}

export async function createTelegramHarness(): Promise<TelegramHarness> {
  const fake = await startFakeTelegram();
  const dataDir = mkdtempSync(join(tmpdir(), "aub-tg-"));
  const port = await freePort();
  let gateway: TestGateway = await startTestGateway({ dataDir, GATEWAY_PORT: port, DELIVERY_TIMEOUT_SECONDS: 30 });
  const people = { person: { id: "101", name: "Ada" }, colleague: { id: "102", name: "Grace" }, stranger: { id: "666", name: "Mallory" } };
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: dataDir,
    TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
    TELEGRAM_API_ROOT: fake.apiRoot,
    TELEGRAM_ALLOWED_USERS: `${people.person.id},${people.colleague.id}`,
  });
  const start = () => startTelegramBot(config, { log: () => {}, throttle: TEST_THROTTLE });
  let bot = await start();

  const tgUser = (p: Person) => ({ id: Number(p.id), first_name: p.name });
  const message = (chat: string, ref: string): FakeTelegramMessage => {
    const found = fake.messages().find((m) => m.chat.id === Number(chat) && m.message_id === Number(ref));
    if (!found) throw new Error(`no message ${ref} in chat ${chat}`);
    return found;
  };

  const harness: TelegramHarness = {
    fake,
    surface: "telegram",
    gatewayUrl: () => gateway.url,
    chat: "-1001",
    otherChat: "-1002",
    ...people,
    copy(chat, ref) {
      const m = message(chat, ref);
      return { chat, ref, text: m.text, buttons: (m.reply_markup?.inline_keyboard ?? []).map((row: any[]) => row[0].text) };
    },
    press: (copy, index, who) => fake.press(message(copy.chat, copy.ref), index, tgUser(who)),
    pressForged(copy, forged, who) {
      const data = forged === "garbage" ? "a1|zz|?|9" : encodeTelegramCallbackData({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } });
      return fake.pressData(message(copy.chat, copy.ref), data, tgUser(who));
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const before = fake.botMessages(Number(copy.chat)).length;
      await fake.press(message(copy.chat, copy.ref), copy.buttons.indexOf("Other…"), tgUser(who));
      const forceReply = await waitUntil(
        () => fake.botMessages(Number(copy.chat)).slice(before).find((m) => m.reply_markup?.force_reply),
        "the ForceReply message",
      );
      if (!forceReply.text.includes("Reply with your own answer.")) throw new Error(`unexpected ForceReply text: ${forceReply.text}`);
      if (forceReply.reply_markup.selective !== true) throw new Error("the ForceReply in a group must be selective");
      return async (text) => void fake.type(Number(copy.chat), tgUser(who), text, forceReply);
    },
    async type(chat, who, text, options = {}) {
      const sent = fake.type(Number(chat), tgUser(who), text, options.replyTo ? message(options.replyTo.chat, options.replyTo.ref) : undefined);
      return { deleted: () => sent.deleted === true, reactions: () => sent.reactions ?? [], redeliver: async () => fake.redeliver(sent) };
    },
    holdNextPrompt(chat) {
      const held = fake.holdNext("sendMessage");
      return {
        release: held.release,
        posted: async () => {
          await waitUntil(() => held.arrived(), "the held prompt send");
          const prompt = fake.botMessages(Number(chat)).at(-1)!;
          return harness.copy(chat, String(prompt.message_id));
        },
      };
    },
    platformText: toTelegramText,
    repliesTo(copy) {
      return fake
        .botMessages(Number(copy.chat))
        .filter((m) => m.reply_to_message?.message_id === Number(copy.ref))
        .map((m) => ({
          ...harness.copy(copy.chat, String(m.message_id)),
          deleted: m.deleted === true,
          pings: (m.entities ?? []).some((e: any) => e.type === "mention" || e.type === "text_mention"),
        }));
    },
    latestReply(chat) {
      const reply = fake.botMessages(Number(chat)).filter((m) => !m.sent_markup?.inline_keyboard).at(-1)!;
      return harness.copy(chat, String(reply.message_id));
    },
    refuseDeletingOwn(refuse) {
      fake.forbidDeletingOwn(refuse);
    },
    forbidDeleting(forbid) {
      fake.forbidDeleting(forbid);
    },
    botReplies: (chat) => fake.botMessages(Number(chat)).map((m) => m.text),
    privateNotices: () => [],
    promptSends: (questionId) =>
      fake.calls.filter((c) => c.method === "sendMessage" && !c.failed && JSON.stringify(c.body.reply_markup ?? "").includes(`|${questionId}|`)).length,
    rateLimitNextSend(seconds) {
      fake.failNext("sendMessage", { error_code: 429, description: `Too Many Requests: retry after ${seconds}`, parameters: { retry_after: seconds } });
    },
    async restartBot(whileDown) {
      await bot.stop();
      await whileDown?.();
      bot = await start();
    },
    async restartGateway() {
      await gateway.close();
      gateway = await startTestGateway({ dataDir, GATEWAY_PORT: port, DELIVERY_TIMEOUT_SECONDS: 30 });
      await sleep(100); // let fetch's pool notice the old server's sockets are gone
    },
    async close() {
      await bot.stop();
      await gateway.close();
      await fake.close();
    },
  };
  return harness;
}

runBotScenarios("telegram", createTelegramHarness);
runDeliveryScenarios("telegram", telegramDeliveryKit);
runFollowUpScenarios("telegram", createTelegramHarness);

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};

describe("telegram: specifics", () => {
  let h: TelegramHarness;
  beforeAll(async () => {
    h = await createTelegramHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const ask = async (chat = h.chat) => (await rpcOk(h.gatewayUrl(), "question.request", { questions: [single], targets: [{ surface: "telegram", chat }] })).id as string;
  const { promptOf, result, status } = scenarioTools(() => h);
  const tgUser = (p: Person) => ({ id: Number(p.id), first_name: p.name });

  it("a typed reply in one chat is recorded while another chat's confirmation is still held back", async () => {
    const here = await ask();
    const there = await ask(h.otherChat);
    const [hereCopy, thereCopy] = [await promptOf(here), await promptOf(there, h.otherChat)];
    const held = h.fake.holdNext("sendMessage"); // the first confirmation: Telegram's per-chat limit holds it
    try {
      await h.type(h.chat, h.person, "2", { replyTo: hereCopy });
      expect(await result(here)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
      await waitUntil(() => held.arrived(), "the held confirmation");
      await h.type(h.otherChat, h.person, "1", { replyTo: thereCopy });
      const started = Date.now();
      expect(await result(there)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      held.release();
    }
  });

  it("the Other… request names the presser with a text mention, defused, and only the presser's reply to it counts", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    const prompt = h.fake.messages().find((m) => m.chat.id === Number(h.chat) && m.message_id === Number(copy.ref))!;
    const before = h.fake.botMessages(Number(h.chat)).length;
    await h.fake.press(prompt, 2, { id: Number(h.person.id), first_name: "@everyone" });
    const forceReply = await waitUntil(() => h.fake.botMessages(Number(h.chat)).slice(before).find((m) => m.reply_markup?.force_reply), "the ForceReply");
    const name = toTelegramText("@everyone");
    expect(forceReply.text).toBe(`${name}, Reply with your own answer.`);
    expect(forceReply.entities).toEqual([expect.objectContaining({ type: "text_mention", offset: 0, length: name.length })]);
    // A colleague's reply to Ada's request is not Ada's answer, nor anyone's.
    h.fake.type(Number(h.chat), tgUser(h.colleague), "anyone up for lunch?", forceReply);
    await sleep(300);
    expect(await status(id)).toBe("pending");
    h.fake.type(Number(h.chat), tgUser(h.person), "Canary first", forceReply);
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Canary first"] } } });
  });
});
