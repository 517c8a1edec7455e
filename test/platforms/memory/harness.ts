/**
 * The in-memory platform's harness: the real bridge (./bot.ts) against the memory platform, connected to a real
 * gateway in this process. It builds the same BotHarness and DeliveryKit as every platform, so the three
 * cross-platform suites run on it with no framework and no HTTP to a fake, in seconds. The gateway and the bot share
 * one virtual clock (`clock`), so the time-driven scenarios move it instead of waiting.
 */
import type { RunningBot } from "../../../bots/shared.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { encodeTelegramCallbackData, toTelegramText } from "../../../src/render/index.ts";
import { freePort, sleep, startTestGateway, tempDir, TOKEN, type TestGateway } from "../../helpers/gateway.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";
import { createVirtualClock } from "../../scenarios/virtual-clock.ts";
import { startMemoryBot } from "./bot.ts";
import { createMemoryPlatform, type MemoryMessage, type MemoryPlatform } from "./memory-platform.ts";

export interface MemoryHarness extends BotHarness {
  platform: MemoryPlatform;
}

const PEOPLE = { person: { id: "101", name: "Ada" }, colleague: { id: "102", name: "Grace" }, stranger: { id: "666", name: "Mallory" } };
const ALLOWED = [PEOPLE.person.id, PEOPLE.colleague.id];

export async function createMemoryHarness(): Promise<MemoryHarness> {
  const clock = createVirtualClock();
  const platform = createMemoryPlatform(clock);
  const dataDir = tempDir("aub-mem-");
  const port = await freePort();
  const startGateway = () => startTestGateway({ dataDir, GATEWAY_PORT: port, DELIVERY_TIMEOUT_SECONDS: 30 }, clock);
  let gateway: TestGateway = await startGateway();
  const config = loadConfig({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, DATA_DIR: dataDir });
  const start = () => startMemoryBot(platform, config, ALLOWED, clock);
  let bot: RunningBot = await start();

  const message = (copy: { chat: string; ref: string }) => platform.find(copy.chat, copy.ref);
  const copyOf = (m: MemoryMessage): PromptCopy => ({ chat: m.chat, ref: m.id, text: m.text, buttons: m.buttons.map((b) => b.label) });
  const press = (m: MemoryMessage, data: string, who: Person) => platform.press(m, data, who);

  const harness: MemoryHarness = {
    platform,
    clock,
    surface: "telegram",
    gatewayUrl: () => gateway.url,
    chat: "-1001",
    otherChat: "-1002",
    ...PEOPLE,
    copy: (chat, ref) => copyOf(message({ chat, ref })),
    press(copy, index, who) {
      const m = message(copy);
      const button = m.sentButtons[index];
      if (!button) throw new Error(`message ${m.id} has no button ${index}`);
      return press(m, button.data, who);
    },
    pressForged(copy, forged, who) {
      const data = forged === "garbage" ? "a1|zz|?|9" : encodeTelegramCallbackData({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } });
      return press(message(copy), data, who);
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const before = platform.messages.length;
      await harness.press(copy, copy.buttons.indexOf("Other…"), who);
      const request = platform.messages.slice(before).find((m) => m.chat === copy.chat && m.ownWordsOf === who.id);
      if (!request) throw new Error("Other… asked for no own words");
      return async (text) => void platform.type(copy.chat, who, text, request);
    },
    async type(chat, who, text, options = {}) {
      const sent = platform.type(chat, who, text, options.replyTo ? message(options.replyTo) : undefined);
      return { deleted: () => sent.deleted, reactions: () => sent.reactions, redeliver: async () => void (await platform.redeliver(sent, who.name)) };
    },
    holdNextPrompt(chat) {
      const held = platform.holdNextPrompt(chat);
      return { release: held.release, posted: async () => copyOf(await held.posted) };
    },
    platformText: toTelegramText,
    repliesTo: (copy) =>
      platform.botMessages(copy.chat).filter((m) => m.replyTo === copy.ref).map((m) => ({ ...copyOf(m), deleted: m.deleted, pings: m.mentions.length > 0 })),
    latestReply: (chat) => copyOf(platform.botMessages(chat).filter((m) => !m.prompt).at(-1)!),
    refuseDeletingOwn: (refuse) => platform.refuseDeletingOwn(refuse),
    forbidDeleting: (forbid) => platform.forbidDeleting(forbid),
    botReplies: (chat) => platform.botMessages(chat).filter((m) => !m.prompt).map((m) => m.text),
    privateNotices: (who) => platform.noticesTo(who.id),
    promptSends: (questionId) => platform.calls.filter((c) => c.op === "sendPrompt" && c.ok && c.questionId === questionId).length,
    rateLimitNextSend: (seconds) => platform.rateLimitNextSend(seconds),
    async restartBot(whileDown) {
      await bot.stop();
      await whileDown?.();
      bot = await start();
    },
    async restartGateway() {
      await gateway.close();
      gateway = await startGateway();
      await sleep(100); // let fetch's pool notice the old server's sockets are gone
    },
    async close() {
      await bot.stop();
      await gateway.close();
    },
  };
  return harness;
}

/** The delivery kit: the same bridge, with the platform failing or refusing what the scenarios ask. */
export async function memoryDeliveryKit(): Promise<DeliveryKit & { platform: MemoryPlatform }> {
  const clock = createVirtualClock();
  const platform = createMemoryPlatform(clock);
  const refusingChat = "777000111";
  platform.refuse(refusingChat);
  const gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 }, clock);
  const config = loadConfig({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN });
  let bot: RunningBot | undefined = await startMemoryBot(platform, config, ALLOWED, clock);
  const sends = (chat: string) => platform.calls.filter((c) => c.op === "sendPrompt" && c.chat === chat && c.ok);
  return {
    platform,
    clock,
    surface: "telegram",
    gatewayUrl: () => gateway.url,
    chats: ["-1001", "-1002"],
    refusingChat,
    failSendsTo: (chat, status) => platform.failSendsTo(chat, status),
    acceptedSends: (chat) => sends(chat).length,
    editCalls: () => platform.calls.filter((c) => c.op === "editPrompt").length,
    failEditsIn: (chat, status) => platform.failEditsIn(chat, status),
    async stopBot() {
      await bot?.stop();
      bot = undefined;
    },
    async startBot() {
      bot ??= await startMemoryBot(platform, config, ALLOWED, clock);
    },
    async close() {
      await bot?.stop();
      await gateway.close();
    },
  };
}
