import type { Clock, ClockTimer } from "../kernel/clock.ts";
/**
 * Keeps this bot's delivery claims alive while their sends wait in the platform's queue (a framework's
 * throttler or REST queue): the gateway counts a target with a live claim as queued, not
 * failed, when its delivery timeout passes. A claim is renewed every half lease, but only while the platform
 * answers this process (some send or edit settled since the last renewal) and for at most `maxHoldMs` per send, so
 * a send that hangs in a live process still lets its lease lapse and another bot take the copy over.
 */
export interface ClaimKeeperOptions {
  leaseMs: number;
  /** Renews one claim (question.claimDelivery with the same claimant); errors are the caller's to swallow. */
  renew: (id: string, chat: string) => Promise<unknown>;
  /** The renewal interval's timer, and the time a send started. */
  clock: Clock;
  /** The longest a send's claim is held for it (default 15 minutes). */
  maxHoldMs?: number;
}

export function createClaimKeeper({ leaseMs, renew, clock, maxHoldMs = 15 * 60_000 }: ClaimKeeperOptions) {
  const now = () => clock.now();
  const held = new Map<string, { id: string; chat: string; sinceMs: number }>();
  let settled = 0;
  let settledAtLastTick = 0;
  let timer: ClockTimer | undefined;

  function tick(): void {
    const progressed = settled !== settledAtLastTick;
    settledAtLastTick = settled;
    if (!progressed) return;
    const cutoff = now() - maxHoldMs;
    for (const { id, chat, sinceMs } of held.values()) {
      if (sinceMs >= cutoff) void renew(id, chat).catch(() => {});
    }
  }

  return {
    /** A send for this copy starts: its claim is held until `release`. */
    hold(key: string, id: string, chat: string): void {
      held.set(key, { id, chat, sinceMs: now() });
      if (!timer) {
        timer = clock.setInterval(tick, Math.max(50, Math.floor(leaseMs / 2)));
        timer.unref?.();
      }
    },
    /** The send settled (sent or failed). */
    release(key: string): void {
      held.delete(key);
      if (held.size === 0 && timer) {
        clock.clearInterval(timer);
        timer = undefined;
      }
    },
    /** The platform answered a call of this process: the queue is moving. */
    progressed(): void {
      settled++;
    },
    /** The copies whose sends are in flight now (the process is stopping: their claims are handed back). */
    heldCopies(): Array<{ id: string; chat: string }> {
      return [...held.values()].map(({ id, chat }) => ({ id, chat }));
    },
    /** Stops renewing (the process is stopping). */
    stop(): void {
      held.clear();
      if (timer) clock.clearInterval(timer);
      timer = undefined;
    },
  };
}
