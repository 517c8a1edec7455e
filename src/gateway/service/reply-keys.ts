import { LIMITS } from "../../contract/schema.ts";
import { GatewayError } from "../../kernel/errors.ts";
import { MAX_LATE_ANSWER_SECONDS } from "../../protocol/methods.ts";
import type { QuestionStore, ReplyKey } from "../store/kit/types.ts";
import { stored } from "./stored.ts";

/** How long a platform may deliver an update again (a webhook retried, a poll replayed after a restart). */
const REDELIVERY_MS = 48 * 60 * 60_000;

/**
 * How long a taken reply key is kept: as long as its message could still count as a reply. A message answers no
 * question delivered after it was written (the bridge's `writtenBeforeCopy`), so the questions it could answer were
 * asked before it, and take answers for at most the longest timeout and then the longest late window after; and
 * longer than any platform re-delivers an update. About 7 days.
 */
export const REPLY_KEY_TTL_MS = Math.max(REDELIVERY_MS, (LIMITS.maxTimeoutSeconds + MAX_LATE_ANSWER_SECONDS) * 1000);
/** Old keys are pruned at most this often (on the next reply after it). */
const PRUNE_EVERY_MS = 60 * 60_000;

/** What a reply or an answer carries: the platform's message id, and who sent it where. */
export interface KeyedCall {
  messageRef?: string;
  by?: { surface: string; chat?: string };
}

/** The key of a call, or undefined when it names no message. INVALID_PARAMS for a messageRef without `by.chat`. */
export function replyKeyOf(call: KeyedCall): ReplyKey | undefined {
  if (call.messageRef === undefined) return undefined;
  if (call.by?.chat === undefined) {
    throw new GatewayError("INVALID_PARAMS", "messageRef needs by.chat (the chat the message was written in)", {
      issues: [{ path: "by.chat", message: "is required with messageRef" }],
    });
  }
  return { surface: call.by.surface, chat: call.by.chat, messageRef: call.messageRef };
}

/**
 * Each platform message is taken as a reply once (a platform may re-deliver an update after a restart or a webhook
 * timeout): the key is taken in the store before the reply is processed, so it holds across questions, restarts and
 * instances. A repeat is refused with DUPLICATE_REPLY and changes nothing. When processing fails before anything was
 * decided (the store is unavailable, an internal error), the key is given back so a retry is taken; a decision
 * (refused, invalid, terminal) keeps it.
 */
export function createReplyKeys({ store, now, log }: { store: QuestionStore; now: () => number; log: (message: string, error?: unknown) => void }) {
  let prunedAtMs = Number.NEGATIVE_INFINITY;

  function prune(nowMs: number): void {
    if (nowMs - prunedAtMs < PRUNE_EVERY_MS) return;
    prunedAtMs = nowMs;
    store.pruneRepliesSeen(nowMs - REPLY_KEY_TTL_MS).catch((error) => log("could not prune old reply keys", error));
  }

  return async function once<T>(call: KeyedCall, work: () => Promise<T>): Promise<T> {
    const key = replyKeyOf(call);
    if (!key) return work();
    const nowMs = now();
    const taken = await stored(store.markReplySeen(key, nowMs));
    if (!taken) throw new GatewayError("DUPLICATE_REPLY", `this message (${key.surface}:${key.chat} ${key.messageRef}) was already taken as a reply`);
    prune(nowMs);
    try {
      return await work();
    } catch (error) {
      const undecided = !(error instanceof GatewayError) || error.code === "STORE_UNAVAILABLE" || error.code === "INTERNAL";
      if (undecided) await store.unmarkReplySeen(key).catch((cause) => log("could not give back a reply key", cause));
      throw error;
    }
  };
}
