/** The delivery scenarios' kit for WhatsApp: the real bot, the fake Graph API, and the proxy between them. */
import { startWhatsAppBot } from "../../../bots/whatsapp/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { failCalls, startApiProxy, type ProxiedCall } from "../../fakes/api-proxy.ts";
import { freePort, TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { startFakeWhatsApp } from "./fake-api.ts";
import { TEST_RETRY, WA, whatsappBotEnv } from "./harness.ts";

export async function whatsappDeliveryKit(): Promise<DeliveryKit> {
  const fake = await startFakeWhatsApp(WA);
  const proxy = await startApiProxy(fake.apiRoot);
  const chats: [string, string] = ["15550001001", "15550001002"];
  const refusingChat = "15550001777";
  fake.undeliverable(refusingChat);
  const messages = (call: ProxiedCall) => call.method === "POST" && /\/messages$/.test(call.path);
  const sendTo = (chat: string) => (call: ProxiedCall) => messages(call) && call.params.to === chat && call.params.type === "interactive" && !call.params.context;
  /** No edits on WhatsApp: a copy is updated by a reply quoting it (what the suite counts as an edit). */
  const updateIn = (chat: string) => (call: ProxiedCall) => messages(call) && call.params.to === chat && call.params.context !== undefined && call.params.type === "text" && !/^⏰/u.test(call.params.text?.body ?? "");
  const fail = (matches: (call: ProxiedCall) => boolean, status: number) =>
    failCalls(proxy, matches, status, { error: { message: `${status} Bad Gateway`, type: "OAuthException", code: 2 } });
  const webhookPort = await freePort();
  const gateway = await startHarnessGateway();
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    ...whatsappBotEnv(proxy.origin, webhookPort),
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startWhatsAppBot(config, { log: () => {}, retry: TEST_RETRY, pace: { perSecond: 1000, burst: 1000 } }), [proxy, fake]);
  return {
    ...lifecycle,
    surface: "whatsapp",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => fail(sendTo(chat), status),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 200).length,
    editCalls: () => proxy.calls.filter((c) => chats.some((chat) => updateIn(chat)(c))).length,
    failEditsIn: (chat, status) => fail(updateIn(chat), status),
  };
}
