/**
 * The delivery scenarios' kit for Teams: the real bot, the fake Bot Connector, and the proxy between them. The
 * channel's activities carry the proxy as their serviceUrl, so the conversation references the bot keeps point at it.
 */
import { failCalls, startApiProxy, type ProxiedCall } from "../../fakes/api-proxy.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { startFakeTeams } from "./fake-api.ts";
import { startTeamsTestBot, TEAMS_PEOPLE, TEAMS_TEST_APP, teamsTestConfig } from "./harness.ts";

export async function teamsDeliveryKit(): Promise<DeliveryKit> {
  const chats: [string, string] = ["19:deliv-one@thread.tacv2", "19:deliv-two@thread.tacv2"];
  const refusingChat = "19:removed@thread.tacv2";
  const fake = await startFakeTeams({
    ...TEAMS_TEST_APP,
    people: [TEAMS_PEOPLE.person],
    conversations: [...chats, refusingChat].map((id) => ({ id, type: "channel" as const })),
  });
  const proxy = await startApiProxy(fake.origin);
  fake.useServiceUrl(proxy.origin);
  const conversationIn = (call: ProxiedCall) => /^\/v3\/conversations\/([^/;]+)/.exec(decodeURIComponent(call.path))?.[1];
  /** A prompt: a new post with a card (replies are reminders, and updates are PUTs). */
  const sendTo = (chat: string) => (call: ProxiedCall) => call.method === "POST" && /\/activities$/.test(call.path) && conversationIn(call) === chat && call.params.attachments !== undefined;
  const editIn = (chat: string) => (call: ProxiedCall) => call.method === "PUT" && conversationIn(call) === chat;
  const fail = (matches: (call: ProxiedCall) => boolean, status: number) =>
    failCalls(proxy, matches, status, { error: { code: "ServiceError", message: `${status} Bad Gateway` } });
  const gateway = await startHarnessGateway("aub-teams-kit-");
  const config = teamsTestConfig(fake, gateway.url, gateway.dataDir);
  const lifecycle = await startPlatformLifecycle(gateway, () => startTeamsTestBot(fake, config), [proxy, fake]);
  for (const chat of [...chats, refusingChat]) {
    const status = await fake.install(chat);
    if (status !== 200) throw new Error(`installing in ${chat} got HTTP ${status}`);
  }
  // Then the app is removed from the team of the refusing chat: the bot has its reference, Teams refuses the post.
  fake.conversations.delete(refusingChat);
  return {
    ...lifecycle,
    surface: "teams",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => fail(sendTo(chat), status),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 201).length,
    editCalls: () => proxy.calls.filter((c) => c.method === "PUT").length,
    failEditsIn: (chat, status) => fail(editIn(chat), status),
  };
}
