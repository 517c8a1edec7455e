import type { QuestionRecord, Target, TargetState } from "../../record/record.ts";
import { isChatTarget, waitsForPerson } from "../../record/targets.ts";
import type { HeldClaim } from "../store/kit/types.ts";

/**
 * What the gateway reads from a record's delivery states (pure): whether every chat target has failed, whether a
 * question with no copy yet is only queued behind a platform's rate limit, and a detail naming each target's state.
 */

const sameChat = (a: { surface: string; chat?: string }, b: { surface: string; chat?: string }) => a.surface === b.surface && a.chat === b.chat;

const stateOf = (record: QuestionRecord, target: Target): TargetState | undefined => record.targetStates?.find((s) => sameChat(s, target));

const isDelivered = (record: QuestionRecord, target: Target): boolean => record.deliveries.some((d) => sameChat(d, target));

/** Every target is a chat, none has a copy, and each has failed permanently: nothing can deliver it. */
export function everyChatTargetFailed(record: QuestionRecord): boolean {
  return (
    record.deliveries.length === 0 &&
    record.targets.length > 0 &&
    record.targets.every((t) => isChatTarget(t) && stateOf(record, t)?.state === "failed")
  );
}

/** A chat target with no copy whose bot said the copy waits for the person (`waitsForPerson`): not a failed delivery. */
export function waitingForPerson(record: QuestionRecord): boolean {
  return record.targets.some((t) => {
    const state = isChatTarget(t) && !isDelivered(record, t) ? stateOf(record, t) : undefined;
    return state !== undefined && waitsForPerson(state);
  });
}

/**
 * A live claim means a bot holds the copy and is sending it (or waiting its turn behind the platform's rate limit),
 * unless the bot reported trouble after it last took or renewed the claim, or the target has failed for good.
 * Returns the soonest lease end among such claims (when to look again), or undefined when nothing is queued.
 */
export function queuedUntil(record: QuestionRecord, claims: readonly HeldClaim[]): number | undefined {
  let until: number | undefined;
  for (const claim of claims) {
    const target = record.targets.find((t) => sameChat(t, claim));
    if (!target || isDelivered(record, target)) continue;
    const state = stateOf(record, target);
    if (state && (state.state === "failed" || state.atMs > claim.claimedAtMs)) continue;
    until = until === undefined ? claim.leaseUntilMs : Math.min(until, claim.leaseUntilMs);
  }
  return until;
}

/** One line per chat target with no copy: `SURFACE:CHAT: retrying: cannot reach <its API>: ECONNREFUSED`. */
export function describeTargets(record: QuestionRecord): string[] {
  return record.targets.filter((t) => isChatTarget(t) && !isDelivered(record, t)).map((target) => {
    const state = stateOf(record, target);
    const name = `${target.surface}:${target.chat}`;
    return state ? `${name}: ${state.state}: ${state.reason}` : `${name}: no bot reported on it (is its bot running?)`;
  });
}
