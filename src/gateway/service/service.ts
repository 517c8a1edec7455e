import type { ListFilter } from "../../protocol/index.ts";
import type { QuestionRecord } from "../../record/record.ts";
import { createAnswers } from "./answers.ts";
import { createServiceContext, type QuestionServiceOptions } from "./context.ts";
import { createDelivery } from "./delivery.ts";
import type { ServiceListener } from "./events.ts";
import { createRequests } from "./requests.ts";
import { stored } from "./stored.ts";
import { createSync } from "./sync.ts";

export type { Cancellation, WaitOutcome } from "./waiters.ts";

export type QuestionService = ReturnType<typeof createQuestionService>;

/**
 * The question lifecycle: request, deliver, resolve, reply, expire, abort. Transport-free. Built from three parts:
 * the store (durable, shared by every instance), the deadlines (expiry, reminders, escalation steps, late windows and
 * the delivery watch on one schedule) and the waiters (long-polls); follow-ups.ts and late-answers.ts hold the
 * policies for when nobody answers. Events leave through the event port, only after the write they announce is durable.
 * The work is split by concern, over one shared context (context.ts): requests.ts (asking, aborting a run),
 * answers.ts (answers, replies, late answers, long-polls), delivery.ts (the bots' reports, the delivery watch) and
 * sync.ts (start, stop, following a shared store).
 */
export function createQuestionService(options: QuestionServiceOptions) {
  const context = createServiceContext(options, (id) => delivery.onDeliveryOverdue(id));
  const delivery = createDelivery(context);
  const requests = createRequests(context);
  const answers = createAnswers(context);
  const sync = createSync(context);
  const { store, events } = context;

  return {
    start: sync.start,
    stop(): void {
      context.noBot.stop();
      sync.stop();
    },
    /** The chat surfaces with a bot connected to this gateway now: the server reports each change. */
    botsConnectedHere: context.noBot.botsHere,

    /** Subscribes to the default event hub (when no `events` port was injected, or it is a hub). */
    subscribe: (listener: ServiceListener): (() => void) => events.subscribe(listener),

    request: requests.request,
    resolve: answers.resolve,
    reply: answers.reply,
    get: context.mustGet,

    list(filter: ListFilter): Promise<QuestionRecord[]> {
      return stored(store.list(filter));
    },

    delivered: delivery.delivered,
    deliveryFailed: delivery.deliveryFailed,
    copyRendered: delivery.copyRendered,
    reminderSent: delivery.reminderSent,
    claimDelivery: delivery.claimDelivery,
    abortRun: requests.abortRun,
    waitAnswer: answers.waitAnswer,
    waitFor: answers.waitFor,
  };
}
