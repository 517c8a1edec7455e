import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramBot } from "../../../bots/telegram/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { startFakeTelegram, type FakeTelegram } from "./fake-api.ts";
import { freePort, rpcOk, sleep, startTestGateway, TOKEN, type TestGateway } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/bot-scenarios.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";
import { toTelegramText } from "../../../src/platforms/telegram/escaping.ts";
import { createTelegramHarness, type TelegramHarness } from "./harness.ts";
import { scenarioTools } from "../../scenarios/tools.ts";
import type { Person } from "../../scenarios/harness.ts";

describe("telegram webhook mode", () => {
  let fake: FakeTelegram;
  let gateway: TestGateway;
  let bot: { stop(): Promise<void> };
  let hook: string;
  const secret = "s3cret-token_for-tests";

  beforeAll(async () => {
    fake = await startFakeTelegram();
    gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
    const port = await freePort();
    hook = `http://127.0.0.1:${port}/telegram-hook`;
    const config = loadConfig({
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      DATA_DIR: tempDir("aub-tgw-"),
      TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
      TELEGRAM_API_ROOT: fake.apiRoot,
      TELEGRAM_WEBHOOK_URL: hook,
      TELEGRAM_WEBHOOK_SECRET: secret,
      TELEGRAM_WEBHOOK_PORT: String(port),
    });
    bot = await startTelegramBot(config, { log: () => {} });
  });
  afterAll(async () => {
    await bot?.stop();
    await gateway?.close();
    await fake?.close();
  });

  const post = (update: unknown, token?: string) =>
    fetch(hook, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { "x-telegram-bot-api-secret-token": token } : {}) },
      body: JSON.stringify(update),
    });

  it("registers the webhook with its secret and never long-polls", () => {
    const setWebhook = fake.calls.find((c) => c.method === "setWebhook");
    expect(setWebhook?.body).toMatchObject({ url: hook, secret_token: secret });
    expect(fake.calls.some((c) => c.method === "getUpdates")).toBe(false);
  });

  it("answers through a signed update and refuses a wrong or missing secret", async () => {
    const { id } = await rpcOk(gateway.url, "question.request", {
      questions: [{ id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] }],
      targets: [{ surface: "telegram", chat: "4242" }],
    });
    const record = await waitUntil(async () => {
      const r = await rpcOk(gateway.url, "question.get", { id });
      return r.deliveries.length > 0 && r;
    }, "delivery");
    const prompt = fake.messages().find((m) => m.message_id === Number(record.deliveries[0].messageRef))!;
    const data = prompt.reply_markup.inline_keyboard[1][0].callback_data;
    const update = (n: number) => ({
      update_id: n,
      callback_query: { id: `cb${n}`, from: { id: 4242, is_bot: false, first_name: "Ada" }, chat_instance: "x", message: { ...prompt, reply_markup: undefined }, data },
    });

    expect((await post(update(1), "wrong-secret")).status).toBe(401);
    expect((await post(update(2))).status).toBe(401);
    await sleep(200);
    expect((await rpcOk(gateway.url, "question.get", { id })).status).toBe("pending");

    expect((await post(update(3), secret)).status).toBe(200);
    const answered = await waitUntil(async () => {
      const r = await rpcOk(gateway.url, "question.get", { id });
      return r.status === "answered" && r;
    }, "the answer");
    expect(answered.answers).toEqual({ go: ["No"] });
  });

  it("tells ops the chat id on /start", async () => {
    const message = { message_id: 77, date: 0, chat: { id: -100555, type: "supergroup" }, from: { id: 1, is_bot: false, first_name: "Op" }, text: "/start", entities: [{ type: "bot_command", offset: 0, length: 6 }] };
    expect((await post({ update_id: 10, message }, secret)).status).toBe(200);
    await waitUntil(() => fake.botMessages(-100555).find((m) => m.text.includes("telegram:-100555")), "the chat id reply");
  });
});

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
