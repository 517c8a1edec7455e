import type { GatewayClient } from "../client/index.ts";
import { realClock, type Clock } from "../kernel/clock.ts";
import { createDeliveryLoop, type SurfaceAdapter } from "./delivery.ts";
import { createInboundHandler } from "./inbound.ts";
import { createInflightSends } from "./inflight-sends.ts";
import { createRecordCache } from "./record-cache.ts";

export interface BridgeOptions {
  client: GatewayClient;
  adapter: SurfaceAdapter;
  allowedUsers: readonly string[];
  otherOpens: "modal" | "reply";
  /** The platform's escaping, as its renderer uses it: every text the bridge has the bot send goes through it. */
  toPlatformText?: (text: string) => string;
  log?: (message: string, error?: unknown) => void;
  /** Time and timers (send retries, reminders, late windows, claim renewal); default the real clock. */
  clock?: Clock;
}

/** The platform-free half of every bot: delivery, edits after resolution, and every inbound event. */
export function createBridge(options: BridgeOptions) {
  const clock = options.clock ?? realClock;
  const now = () => clock.now();
  const cache = createRecordCache(now);
  const log = options.log ?? (() => {});
  const inflight = createInflightSends();
  // Every prompt send is tracked while in flight, so a reply that beats the platform's answer to it can wait for it.
  const adapter: SurfaceAdapter = {
    ...options.adapter,
    sendPrompt: (record, target) => inflight.track(target.chat ?? "", options.adapter.sendPrompt(record, target)),
  };
  const delivery = createDeliveryLoop({
    client: options.client,
    adapter,
    cache,
    log,
    clock,
    // A reply to a reminder is a reply to its question.
    onReminderSent: (note) => inbound.sent({ ...note, messageRef: Promise.resolve(note.messageRef) }),
  });
  const inbound = createInboundHandler({ ...options, surface: options.adapter.surface, cache, inflight, log, now });
  return {
    start: () => delivery.start(),
    /** Hands back the claims of sends still in flight (see the delivery loop's stop). */
    stop: () => delivery.stop(),
    handle: inbound.handle,
    sent: inbound.sent,
    /** A copy the platform took was refused later, for good (see the delivery loop's refused). */
    refused: delivery.refused,
    /** Sends a question's copies the adapter held (WaitingSendError) now that it can (see the delivery loop's redeliver). */
    redeliver: delivery.redeliver,
    cache,
    unreportedCount: delivery.unreportedCount,
  };
}

export type Bridge = ReturnType<typeof createBridge>;
export { PermanentSendError, WaitingSendError, type SurfaceAdapter } from "./delivery.ts";
export { callbackToEvent, type CallbackContext } from "./callback-to-event.ts";
export type { BridgeUser, InboundEvent, SentNote, TextEvent } from "./events.ts";
export { applyEffects, type BridgeEffect, type BridgeResponse, type PlatformOps, type ReplyEffect } from "./effects.ts";
export { TEXTS } from "./note-texts.ts";
export { recordedText } from "../render/recorded-text.ts";
