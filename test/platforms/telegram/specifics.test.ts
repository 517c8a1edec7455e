import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramBot } from "../../../bots/telegram/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { startFakeTelegram, type FakeTelegram } from "./fake-api.ts";
import { freePort, rpcOk, sleep, startTestGateway, TOKEN, type TestGateway } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/bot-scenarios.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";

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
