import { GatewayError } from "../../kernel/errors.ts";
import type { MethodParams } from "../../protocol/index.ts";
import type { QuestionRecord, TargetState } from "../../record/record.ts";
import { formatTarget, isChatTarget } from "../../record/targets.ts";
import type { ClaimOutcome } from "../store/kit/types.ts";
import type { ServiceContext } from "./context.ts";
import { describeTargets, everyChatTargetFailed, queuedUntil, waitingForPerson } from "./delivery-states.ts";
import { stored } from "./stored.ts";

/**
 * Delivery: what the bots report about their copies (claimed, delivered, failed, rendered, a reminder sent), and the
 * delivery watch that ends a question `delivery_failed` when no chat copy arrives in time.
 */
export function createDelivery({ store, now, deadlines, events, deliveryTimeoutMs, mustGet, checkTarget, finished }: ServiceContext) {
  /** Ends a question `delivery_failed`, its detail naming each undelivered target's state and reason. */
  async function failDelivery(record: QuestionRecord, why: string): Promise<void> {
    const targets = record.targets.filter(isChatTarget).map(formatTarget).join(", ");
    const detail = [`${why} (targets: ${targets})`, ...describeTargets(record)].join("; ").slice(0, 4_000);
    const outcome = await stored(store.resolve(record.id, { status: "cancelled", reason: "delivery_failed", detail, resolvedAtMs: now() }));
    if (outcome.ok) finished(outcome.record);
  }

  return {
    /**
     * The delivery deadline passed with no chat copy delivered. "Queued" is not "cannot send": when a bot holds a live
     * claim on a copy (it is sending, or waiting its turn behind the platform's rate limit, renewing the claim), look
     * again when that lease ends. Nor is "waiting for the person": a bot that said the copy follows the person's
     * message (a platform's messaging window) is left to send it, looked at again after another timeout. Otherwise the
     * question ends `delivery_failed`, naming each target's state.
     */
    async onDeliveryOverdue(id: string): Promise<void> {
      const record = await store.get(id);
      if (record?.status !== "pending" || record.deliveries.some((d) => d.surface !== "web")) return;
      if (waitingForPerson(record)) return deadlines.recheckDelivery(id, now() + deliveryTimeoutMs);
      const until = queuedUntil(record, await store.liveClaims(id, now()));
      if (until !== undefined) return deadlines.recheckDelivery(id, until);
      // The targets' states follow (each bot's reason, or "no bot reported on it"), so the cause is named, not guessed.
      await failDelivery(record, `not delivered within ${Math.round(deliveryTimeoutMs / 1000)} s`);
    },

    async delivered(params: MethodParams<"question.delivered">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      const delivery = {
        surface: params.surface,
        chat: params.chat,
        messageRef: params.messageRef,
        deliveredAtMs: now(),
        ...(params.rendered !== undefined ? { rendered: params.rendered } : {}),
      };
      const updated = await stored(store.addDelivery(record.id, delivery));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      deadlines.forget(record.id);
      events.emit("question.updated", updated);
      return updated;
    },

    /**
     * A bot reports a failed send. Permanent (the default): the target is `failed`, and when every chat target has
     * failed with nothing delivered the asker hears `delivery_failed` at once. Not permanent: the target is
     * `retrying`, with the reason, and the bot tries again; this never ends the question by itself. `waiting`: the
     * copy waits for the person (a template went out, and the prompt follows their reply); the target is
     * `waiting`, with the reason, and the delivery watch leaves the question be.
     *
     * `sent: true`: the platform took the copy and refused it later, for good. Its delivery, when recorded (and is
     * `messageRef`, when given), is withdrawn with the target set `failed` in one store write; then the same as an
     * unsent failure. A question left with no copy at all is watched for delivery again, from now.
     */
    async deliveryFailed(params: MethodParams<"question.deliveryFailed">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      const copy = record.deliveries.find((d) => d.surface === params.surface && d.chat === params.chat);
      if (record.status !== "pending") return record;
      // Without `sent`, a delivered copy wins over a failure report; with it, only a report about another message does.
      if (copy && (params.sent !== true || (params.messageRef !== undefined && params.messageRef !== copy.messageRef))) return record;
      const state: TargetState = {
        surface: params.surface,
        chat: params.chat,
        state: params.waiting ? "waiting" : params.permanent === false ? "retrying" : "failed",
        reason: params.reason.slice(0, 300),
        atMs: now(),
        ...(params.retryAtMs !== undefined && params.permanent === false ? { retryAtMs: params.retryAtMs } : {}),
      };
      const updated = await stored(copy ? store.withdrawDelivery(record.id, copy.messageRef, state) : store.setTargetState(record.id, state));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      if (updated.status !== "pending") return updated;
      if (everyChatTargetFailed(updated)) {
        await failDelivery(updated, "every send failed");
        return mustGet(record.id);
      }
      // The withdrawn copy was the only one: the other targets get the delivery timeout again, from now.
      if (copy) deadlines.watchDelivery(updated);
      events.emit("question.updated", updated);
      return updated;
    },

    /** A bot records what one delivered copy shows now: bookkeeping, so no event. */
    async copyRendered(params: MethodParams<"question.copyRendered">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      const updated = await stored(store.setRendered(record.id, params.surface, params.chat, params.rendered));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      return updated;
    },

    /**
     * A bot reports the reminder message it sent for one copy: kept in `reminderCopies` (once per surface, chat and
     * offset), so no bot sends it again and it can be cleaned up after the answer. Announced as question.updated.
     */
    async reminderSent(params: MethodParams<"question.reminderSent">): Promise<QuestionRecord> {
      const record = await mustGet(params.id);
      checkTarget(record, params.surface, params.chat);
      if (!(record.reminders ?? []).includes(params.offsetSeconds)) {
        throw new GatewayError("INVALID_PARAMS", `question ${record.id} has no reminder at ${params.offsetSeconds} s before expiry`, {
          issues: [{ path: "offsetSeconds", message: "is not one of the question's reminders" }],
        });
      }
      const copy = { surface: params.surface, chat: params.chat, offsetSeconds: params.offsetSeconds, messageRef: params.messageRef, sentAtMs: now() };
      const before = (record.reminderCopies ?? []).length;
      const updated = await stored(store.addReminderCopy(record.id, copy));
      if (!updated) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${params.id}`);
      if ((updated.reminderCopies ?? []).length > before) events.emit("question.updated", updated);
      return updated;
    },

    /**
     * A bot asks to send one copy: exactly one bot gets it, until it reports the delivery or its lease lapses. A
     * prompt's claim shows a bot is there after all: the chat's `waiting` state ("no bot is connected") goes.
     */
    async claimDelivery(params: MethodParams<"question.claimDelivery">): Promise<ClaimOutcome> {
      const outcome = await stored(store.claimDelivery({ ...params, nowMs: now() }));
      if (outcome.ok && (params.copy ?? "prompt") === "prompt") {
        const cleared = await stored(store.clearWaiting(params.id, params.surface, params.chat));
        if (cleared) events.emit("question.updated", cleared);
      }
      return outcome;
    },
  };
}
