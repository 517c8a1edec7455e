/**
 * The in-memory platform's harness: the real bridge (./bot.ts) against the memory platform, connected to a real
 * gateway in this process. It builds the same BotHarness (and ./delivery-kit.ts the same DeliveryKit) as every platform, so the three
 * cross-platform suites run on it with no framework and no HTTP to a fake, in seconds. The gateway and the bot share
 * one virtual clock (`clock`), so the time-driven scenarios move it instead of waiting.
 */
import { loadConfig } from "../../../src/runtime/config.ts";
import { encodeTelegramCallbackData } from "../../../src/platforms/telegram/callback-data.ts";
import { toTelegramText } from "../../../src/platforms/telegram/escaping.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";
import { createVirtualClock } from "../../scenarios/virtual-clock.ts";
import { startMemoryBot } from "./bot.ts";
import { createMemoryPlatform, type MemoryMessage, type MemoryPlatform } from "./fake-api.ts";

export interface MemoryHarness extends BotHarness {
  platform: MemoryPlatform;
}

const PEOPLE = { person: { id: "101", name: "Ada" }, colleague: { id: "102", name: "Grace" }, stranger: { id: "666", name: "Mallory" } };
export const ALLOWED = [PEOPLE.person.id, PEOPLE.colleague.id];

export async function createMemoryHarness(): Promise<MemoryHarness> {
  const clock = createVirtualClock();
  const platform = createMemoryPlatform(clock);
  const gateway = await startHarnessGateway("aub-mem-", undefined, clock);
  const config = loadConfig({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, DATA_DIR: gateway.dataDir });
  const lifecycle = await startPlatformLifecycle(gateway, () => startMemoryBot(platform, config, ALLOWED, clock));

  const message = (copy: { chat: string; ref: string }) => platform.find(copy.chat, copy.ref);
  const copyOf = (m: MemoryMessage): PromptCopy => ({ chat: m.chat, ref: m.id, text: m.text, buttons: m.buttons.map((b) => b.label) });
  const press = (m: MemoryMessage, data: string, who: Person) => platform.press(m, data, who);

  const harness: MemoryHarness = {
    ...lifecycle,
    platform,
    clock,
    surface: "telegram",
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
  };
  return harness;
}
