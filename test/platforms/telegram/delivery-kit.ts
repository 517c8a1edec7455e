/**
 * The delivery scenarios' kit for Telegram: the real bot, the fake Bot API, and the proxy between them
 * (test/fakes/api-proxy.ts) that can fail or refuse a chat's sends and counts every edit call.
 */
import { startTelegramBot } from "../../../bots/telegram/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { failCalls, startApiProxy, type ProxiedCall } from "../../fakes/api-proxy.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { startFakeTelegram } from "./fake-api.ts";
import { TELEGRAM_TEST_THROTTLE } from "./harness.ts";

export async function telegramDeliveryKit(): Promise<DeliveryKit> {
  const fake = await startFakeTelegram();
  const proxy = await startApiProxy(fake.apiRoot);
  const method = (call: ProxiedCall) => /\/(\w+)$/.exec(call.path)?.[1];
  const sendTo = (chat: string) => (call: ProxiedCall) => method(call) === "sendMessage" && String(call.params.chat_id) === chat && call.params.reply_markup !== undefined;
  const refusingChat = "777000111";
  failCalls(proxy, sendTo(refusingChat), 403, { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" });
  const gateway = await startHarnessGateway();
  const config = loadConfig({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real", TELEGRAM_API_ROOT: proxy.origin });
  const lifecycle = await startPlatformLifecycle(gateway, () => startTelegramBot(config, { log: () => {}, throttle: TELEGRAM_TEST_THROTTLE }), [proxy, fake]);
  return {
    ...lifecycle,
    surface: "telegram",
    chats: ["-1001", "-1002"],
    refusingChat,
    failSendsTo: (chat, status) => failCalls(proxy, sendTo(chat), status, { ok: false, error_code: status, description: "Bad Gateway" }),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 200).length,
    editCalls: () => proxy.calls.filter((c) => method(c) === "editMessageText").length,
    failEditsIn: (chat, status) =>
      failCalls(proxy, (c) => method(c) === "editMessageText" && String(c.params.chat_id) === chat, status, { ok: false, error_code: status, description: "Bad Gateway" }),
  };
}
