/**
 * The delivery scenarios' kit for Discord: the real bot, the fake REST API and gateway, and the proxy between them
 * (test/fakes/api-proxy.ts) that can fail or refuse a channel's sends and counts every edit call.
 */
import { startDiscordBot } from "../../../bots/discord/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { failCalls, startApiProxy, type ProxiedCall } from "../../fakes/api-proxy.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { startFakeDiscord } from "./fake-api.ts";
import { DISCORD_TOKEN } from "./harness.ts";

export async function discordDeliveryKit(): Promise<DeliveryKit> {
  const fake = await startFakeDiscord({ token: DISCORD_TOKEN, heartbeatIntervalMs: 1_000 });
  const chats: [string, string] = ["710000000000000001", "710000000000000002"];
  fake.addTextChannel(chats[0], "general");
  fake.addTextChannel(chats[1], "ops");
  // A person whose DM channel opens, but whom Discord will not deliver to: 50033 Invalid Recipient(s).
  const refusingChat = "110000000000000777";
  const refusingDm = fake.dmChannelOf(fake.addUser(refusingChat, "Closed")).id;
  const proxy = await startApiProxy(fake.baseUrl);
  const sendTo = (channel: string) => (call: ProxiedCall) => call.method === "POST" && call.path === `/api/v10/channels/${channel}/messages`;
  failCalls(proxy, sendTo(refusingDm), 400, { code: 50033, message: "Invalid Recipient(s)" });
  const gateway = await startHarnessGateway();
  const config = loadConfig({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, DISCORD_BOT_TOKEN: DISCORD_TOKEN, DISCORD_API_URL: `${proxy.origin}/api` });
  const lifecycle = await startPlatformLifecycle(gateway, () => startDiscordBot(config, { log: () => {} }), [proxy, fake]);
  return {
    ...lifecycle,
    surface: "discord",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => failCalls(proxy, sendTo(chat), status, { code: 0, message: `${status}: Bad Gateway` }),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 200).length,
    editCalls: () => proxy.calls.filter((c) => c.method === "PATCH" && /^\/api\/v10\/channels\/\d+\/messages\/\d+$/.test(c.path)).length,
    failEditsIn: (chat, status) =>
      failCalls(proxy, (c) => c.method === "PATCH" && c.path.startsWith(`/api/v10/channels/${chat}/messages/`), status, { code: 0, message: `${status}: Bad Gateway` }),
  };
}
