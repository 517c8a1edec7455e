/**
 * The delivery scenarios' kit for Teams: the real bot, the fake Bot Connector, and the proxy between them. The
 * channel's activities carry the proxy as their serviceUrl, so the conversation references the bot keeps point at it.
 */
import { startTeamsBot, type RunningTeamsBot } from "../../../bots/teams/index.ts";
import { startApiProxy, type ProxiedCall } from "../../fakes/api-proxy.ts";
import { startTestGateway } from "../../helpers/gateway.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { startFakeTeams } from "./fake-api.ts";
import { TEAMS_PEOPLE, TEAMS_TEST_APP, TEAMS_TEST_PACE, teamsTestConfig, teamsTestLog } from "./harness.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";

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
    proxy.use((call) => (matches(call) ? { answer: { status, body: { error: { code: "ServiceError", message: `${status} Bad Gateway` } } } } : undefined));
  const gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
  const config = teamsTestConfig(fake, gateway.url, tempDir("aub-teams-kit-"));
  const start = async () => {
    const running = await startTeamsBot(config, { log: teamsTestLog(), pace: TEAMS_TEST_PACE });
    fake.useBot(`http://127.0.0.1:${running.port}/api/messages`);
    return running;
  };
  let bot: RunningTeamsBot | undefined = await start();
  for (const chat of [...chats, refusingChat]) {
    const status = await fake.install(chat);
    if (status !== 200) throw new Error(`installing in ${chat} got HTTP ${status}`);
  }
  // Then the app is removed from the team of the refusing chat: the bot has its reference, Teams refuses the post.
  fake.conversations.delete(refusingChat);
  return {
    surface: "teams",
    gatewayUrl: () => gateway.url,
    chats,
    refusingChat,
    failSendsTo: (chat, status) => fail(sendTo(chat), status),
    acceptedSends: (chat) => proxy.calls.filter((c) => sendTo(chat)(c) && c.status === 201).length,
    editCalls: () => proxy.calls.filter((c) => c.method === "PUT").length,
    failEditsIn: (chat, status) => fail(editIn(chat), status),
    async stopBot() {
      await bot?.stop();
      bot = undefined;
    },
    async startBot() {
      bot ??= await start();
    },
    async close() {
      await bot?.stop();
      await gateway.close();
      await proxy.close();
      await fake.close();
    },
  };
}
