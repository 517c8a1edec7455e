/**
 * The bot of the in-memory platform: the real bridge (startBridgeBot of bots/shared.ts: the gateway client, the
 * delivery loop, the inbound handler) with the in-memory adapter and ops. Presses and typed messages become the
 * bridge's InboundEvent here, as each bots/<platform>/inbound.ts does it.
 */
import { startBridgeBot, type RunningBot } from "../../../bots/shared.ts";
import { applyEffects, callbackToEvent, TEXTS } from "../../../src/bridge/index.ts";
import { decodeTelegramCallbackData } from "../../../src/platforms/telegram/callback-data.ts";
import type { Clock } from "../../../src/kernel/clock.ts";
import type { Config } from "../../../src/runtime/config.ts";
import { chatOf, createMemoryAdapter, toMemoryText } from "./adapter.ts";
import type { MemoryPlatform } from "./fake-api.ts";
import { memoryMessageOps, memoryPressOps } from "./ops.ts";

export function startMemoryBot(platform: MemoryPlatform, config: Config, allowedUsers: readonly string[], clock?: Clock): Promise<RunningBot> {
  return startBridgeBot({
    config,
    ...(clock ? { clock } : {}),
    log: () => {},
    allowedUsers,
    otherOpens: "reply",
    adapter: createMemoryAdapter(platform),
    toPlatformText: toMemoryText,
    listen(bridge) {
      platform.listen(async (update) => {
        if (update.kind === "press") {
          const { chat, from: who } = update;
          const press = memoryPressOps(platform, bridge, { chat, who });
          const decoded = decodeTelegramCallbackData(update.data);
          if (!decoded) {
            await press.ops.toast!(TEXTS.notValid);
            return press.told();
          }
          const response = await bridge.handle(callbackToEvent(decoded, { user: who, chat }));
          await applyEffects(response ?? [], press.ops);
          return press.told();
        }
        const { message, name } = update;
        const response = await bridge.handle({
          kind: "text",
          text: message.text,
          user: { id: message.from, name },
          chat: message.chat,
          direct: chatOf(message.chat).chat === "direct",
          messageRef: message.id,
          ...(message.replyTo ? { replyToMessageRef: message.replyTo } : {}),
        });
        if (response) await applyEffects(response, memoryMessageOps(platform, bridge, { chat: message.chat, who: { id: message.from, name }, message }));
        return undefined;
      });
    },
    async start(deliver) {
      await deliver();
      return { stop: async () => platform.listen(undefined) };
    },
  });
}
