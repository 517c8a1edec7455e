import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toTelegramText } from "../../../src/platforms/telegram/escaping.ts";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { runBotScenarios, waitUntil } from "../../scenarios/bot-scenarios.ts";
import { createTelegramHarness, type TelegramHarness } from "./harness.ts";
import { telegramDeliveryKit } from "./delivery-kit.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { scenarioTools } from "../../scenarios/tools.ts";
import type { Person } from "../../scenarios/harness.ts";

runBotScenarios("telegram", createTelegramHarness);
runDeliveryScenarios("telegram", telegramDeliveryKit);
runFollowUpScenarios("telegram", createTelegramHarness, "smoke");

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
