/**
 * The Matrix delivery kit for the delivery scenarios: the real bot, the fake homeserver, and the proxy between them
 * that can fail a room's sends or edits and counts every edit.
 */
import { startMatrixBot } from "../../../bots/matrix/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { failCalls, startApiProxy, type ProxiedCall } from "../../fakes/api-proxy.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { POLL_START, startFakeMatrix } from "./fake-api.ts";

const SEND = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/([^/]+)\/[^/]+$/;

export async function matrixDeliveryKit(): Promise<DeliveryKit> {
  const fake = await startFakeMatrix();
  const chats: [string, string] = ["!deliv1:fake.test", "!deliv2:fake.test"];
  for (const chat of chats) fake.addRoom(chat, [{ id: "@ada:fake.test", name: "Ada" }, { id: "@grace:fake.test", name: "Grace" }]);
  // A room the bot was never invited to: the homeserver answers M_FORBIDDEN.
  const refusingChat = "!closed:fake.test";
  const proxy = await startApiProxy(fake.baseUrl);
  const send = (call: ProxiedCall) => {
    const m = call.method === "PUT" ? SEND.exec(call.path) : null;
    return m ? { room: decodeURIComponent(m[1]!), type: decodeURIComponent(m[2]!) } : undefined;
  };
  const isPromptTo = (chat: string) => (call: ProxiedCall) => {
    const s = send(call);
    return s?.room === chat && !call.params["m.relates_to"] && (s.type === POLL_START || call.params.msgtype === "m.text");
  };
  const isEdit = (call: ProxiedCall) => send(call) !== undefined && call.params["m.relates_to"]?.rel_type === "m.replace";
  const failing = (matches: (call: ProxiedCall) => boolean, status: number) => failCalls(proxy, matches, status, { errcode: "M_UNKNOWN", error: `${status} Bad Gateway` });
  const gateway = await startHarnessGateway("aub-mx-deliv-");
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: gateway.dataDir,
    MATRIX_HOMESERVER_URL: proxy.origin,
    MATRIX_ACCESS_TOKEN: fake.token,
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startMatrixBot(config, { log: () => {}, syncTimeoutMs: 5_000 }), [proxy, fake]);
  return {
    ...lifecycle,
    surface: "matrix",
    chats,
    refusingChat,
    failSendsTo: (chat, status) => failing(isPromptTo(chat), status),
    acceptedSends: (chat) => proxy.calls.filter((c) => isPromptTo(chat)(c) && (c as ProxiedCall & { status?: number }).status === 200).length,
    editCalls: () => proxy.calls.filter(isEdit).length,
    failEditsIn: (chat, status) => failing((c) => isEdit(c) && send(c)?.room === chat, status),
  };
}
