/**
 * The delivery scenarios' kit for Slack: the real bot, the fake Web API, and the proxy between them
 * (test/fakes/api-proxy.ts) that can fail or refuse a channel's sends and counts every edit call.
 */
import { startSlackBot } from "../../../bots/slack/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { failCalls, startApiProxy, type ProxiedCall } from "../../fakes/api-proxy.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { startFakeSlack } from "./fake-api.ts";
import { SLACK_TEST_RETRY, SLACK_TEST_TOKENS } from "./harness.ts";

export async function slackDeliveryKit(): Promise<DeliveryKit> {
  const chats: [string, string] = ["C0DELIV1", "C0DELIV2"];
  const refusingChat = "C0NOTIN";
  const fake = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: [{ id: "U0ADA", name: "Ada" }], channels: [...chats, refusingChat] });
  const proxy = await startApiProxy(`http://127.0.0.1:${fake.port}`);
  const sendTo = (channel: string) => (call: ProxiedCall) => call.path === "/api/chat.postMessage" && call.params.channel === channel && call.params.blocks !== undefined;
  failCalls(proxy, sendTo(refusingChat), 200, { ok: false, error: "not_in_channel" });
  const gateway = await startHarnessGateway();
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
    SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
    SLACK_API_URL: `${proxy.origin}/api`,
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startSlackBot(config, { log: () => {}, retryConfig: SLACK_TEST_RETRY, connectRetryConfig: SLACK_TEST_RETRY }), [proxy, fake]);
  return {
    ...lifecycle,
    surface: "slack",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => failCalls(proxy, sendTo(chat), status, { ok: false, error: "bad_gateway" }),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 200).length,
    editCalls: () => proxy.calls.filter((c) => c.path === "/api/chat.update").length,
    failEditsIn: (chat, status) => failCalls(proxy, (c) => c.path === "/api/chat.update" && c.params.channel === chat, status, { ok: false, error: "bad_gateway" }),
  };
}
