import type { GatewayClient } from "../client/index.ts";
import { createDeliveryLoop, type SurfaceAdapter } from "./delivery.ts";
import { createInboundHandler } from "./inbound.ts";
import { createRecordCache } from "./record-cache.ts";

export interface BridgeOptions {
  client: GatewayClient;
  adapter: SurfaceAdapter;
  allowedUsers: readonly string[];
  otherOpens: "modal" | "reply";
  log?: (message: string, error?: unknown) => void;
}

/** The platform-free half of every bot: delivery, edits after resolution, and every inbound event. */
export function createBridge(options: BridgeOptions) {
  const cache = createRecordCache();
  const log = options.log ?? (() => {});
  const delivery = createDeliveryLoop({ client: options.client, adapter: options.adapter, cache, log });
  const inbound = createInboundHandler({ ...options, surface: options.adapter.surface, cache, log });
  return {
    start: () => delivery.start(),
    handle: inbound.handle,
    cache,
    unreportedCount: delivery.unreportedCount,
  };
}

export type Bridge = ReturnType<typeof createBridge>;
export { PermanentSendError, type SurfaceAdapter } from "./delivery.ts";
export { callbackToEvent, type CallbackContext } from "./callback-to-event.ts";
export type { BridgeResponse, BridgeUser, InboundEvent } from "./events.ts";
export { TEXTS } from "./note-texts.ts";
export { recordedText } from "../render/recorded-text.ts";
