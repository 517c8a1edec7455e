/** The delivery scenarios' kit (test/scenarios/delivery-kits.ts) for Mattermost: the real bot against the fake. */
import { startMattermostBot } from "../../../bots/mattermost/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { freePort, TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { startFakeMattermost } from "./fake-api.ts";
import { MATTERMOST_TEST_TOKEN } from "./harness.ts";

export async function mattermostDeliveryKit(): Promise<DeliveryKit> {
  const chats: [string, string] = ["deliv1id000000000000000000", "deliv2id000000000000000000"];
  // A channel the bot is not in: Mattermost answers 403, for good.
  const refusingChat = "notinchan00000000000000000";
  const fake = await startFakeMattermost({ token: MATTERMOST_TEST_TOKEN, people: [{ id: "adaid000000000000000000000", username: "ada" }], channels: chats, closedChannels: [refusingChat] });
  const isSend = (chat: string) => (method: string, path: string, body: any) => method === "POST" && path === "/api/v4/posts" && body?.channel_id === chat && !body.root_id;
  const editIn = (chat: string) => (method: string, path: string) => {
    const id = /^\/api\/v4\/posts\/([a-z0-9]+)\/patch$/.exec(path)?.[1];
    return method === "PUT" && id !== undefined && fake.posts.get(id)?.channel_id === chat;
  };
  const gateway = await startHarnessGateway();
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    MATTERMOST_URL: fake.url,
    MATTERMOST_BOT_TOKEN: MATTERMOST_TEST_TOKEN,
    MATTERMOST_ACTIONS_HOST: "127.0.0.1",
    MATTERMOST_ACTIONS_PORT: String(await freePort()),
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startMattermostBot(config, { log: () => {}, reconnectMs: 100 }), [fake]);
  return {
    ...lifecycle,
    surface: "mattermost",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => fake.failWhile(isSend(chat), status, "Bad Gateway"),
    acceptedSends: (chat) => fake.calls.filter((c) => isSend(chat)(c.method, c.path, c.body) && !c.failed).length,
    editCalls: () => fake.calls.filter((c) => c.method === "PUT" && /^\/api\/v4\/posts\/[a-z0-9]+\/patch$/.test(c.path)).length,
    failEditsIn: (chat, status) => fake.failWhile(editIn(chat), status, "Bad Gateway"),
  };
}
