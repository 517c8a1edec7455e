/**
 * The Telegram harness: the real grammY bot (bots/telegram) against the fake Bot API, connected to a real gateway in
 * this process. The scenario suites, telegram.test.ts and the coding-agent tests drive it.
 */
import { startTelegramBot } from "../../../bots/telegram/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { encodeTelegramCallbackData } from "../../../src/platforms/telegram/callback-data.ts";
import { toTelegramText } from "../../../src/platforms/telegram/escaping.ts";
import { startFakeTelegram, type FakeTelegram, type FakeTelegramMessage } from "./fake-api.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person } from "../../scenarios/harness.ts";

/** Fast limits for tests; the real defaults space sends a second apart per chat. */
export const TELEGRAM_TEST_THROTTLE = {
  global: { reservoir: 1000, reservoirRefreshAmount: 1000, reservoirRefreshInterval: 1000 },
  group: { maxConcurrent: 1, minTime: 5 },
  out: { maxConcurrent: 1, minTime: 5 },
};

export interface TelegramHarness extends BotHarness {
  fake: FakeTelegram;
}

/** `publicUrl`: the gateway gets GATEWAY_PUBLIC_URL at its own address, so its answer links (Review…) reach "a phone". */
export async function createTelegramHarness({ publicUrl = false }: { publicUrl?: boolean } = {}): Promise<TelegramHarness> {
  const fake = await startFakeTelegram();
  const gateway = await startHarnessGateway("aub-tg-", (port) => (publicUrl ? { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${port}` } : {}));
  const people = { person: { id: "101", name: "Ada" }, colleague: { id: "102", name: "Grace" }, stranger: { id: "666", name: "Mallory" } };
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: gateway.dataDir,
    TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
    TELEGRAM_API_ROOT: fake.apiRoot,
    TELEGRAM_ALLOWED_USERS: `${people.person.id},${people.colleague.id}`,
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startTelegramBot(config, { log: () => {}, throttle: TELEGRAM_TEST_THROTTLE }), [fake]);

  const tgUser = (p: Person) => ({ id: Number(p.id), first_name: p.name });
  const message = (chat: string, ref: string): FakeTelegramMessage => {
    const found = fake.messages().find((m) => m.chat.id === Number(chat) && m.message_id === Number(ref));
    if (!found) throw new Error(`no message ${ref} in chat ${chat}`);
    return found;
  };

  const harness: TelegramHarness = {
    fake,
    ...lifecycle,
    surface: "telegram",
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
  };
  return harness;
}

