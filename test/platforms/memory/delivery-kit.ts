/** The in-memory platform's delivery kit: the same bridge, with the platform failing or refusing what the scenarios ask. */
import { loadConfig } from "../../../src/runtime/config.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { createVirtualClock } from "../../scenarios/virtual-clock.ts";
import { startMemoryBot } from "./bot.ts";
import { createMemoryPlatform, type MemoryPlatform } from "./fake-api.ts";
import { ALLOWED } from "./harness.ts";

export async function memoryDeliveryKit(): Promise<DeliveryKit & { platform: MemoryPlatform }> {
  const clock = createVirtualClock();
  const platform = createMemoryPlatform(clock);
  const refusingChat = "777000111";
  platform.refuse(refusingChat);
  const gateway = await startHarnessGateway(undefined, undefined, clock);
  const config = loadConfig({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN });
  const lifecycle = await startPlatformLifecycle(gateway, () => startMemoryBot(platform, config, ALLOWED, clock));
  const sends = (chat: string) => platform.calls.filter((c) => c.op === "sendPrompt" && c.chat === chat && c.ok);
  return {
    ...lifecycle,
    platform,
    clock,
    surface: "telegram",
    chats: ["-1001", "-1002"],
    refusingChat,
    failSendsTo: (chat, status) => platform.failSendsTo(chat, status),
    acceptedSends: (chat) => sends(chat).length,
    editCalls: () => platform.calls.filter((c) => c.op === "editPrompt").length,
    failEditsIn: (chat, status) => platform.failEditsIn(chat, status),
  };
}
