import { realClock, type Clock } from "../../kernel/clock.ts";
import { GatewayError } from "../../kernel/errors.ts";
import type { QuestionRecord, Target } from "../../record/record.ts";
import { createKnownSecretMatcher } from "../../parse/index.ts";
import type { QuestionStore } from "../store/kit/types.ts";
import { createDeadlines, type Deadlines } from "./deadlines.ts";
import { createEventHub, type EventHub } from "./events.ts";
import { createFollowUpFiring, type FollowUpDefaults } from "./follow-ups.ts";
import { stored } from "./stored.ts";
import { createWaiters, type Waiters } from "./waiters.ts";
import { createKnownQuestions, type KnownQuestions } from "./known-questions.ts";
import { createNoBot, type NoBot } from "./no-bot.ts";

export interface QuestionServiceOptions {
  store: QuestionStore;
  /** Where events go; default: a fresh hub (see `subscribe`). */
  events?: EventHub;
  /** Time and timers (deadlines, reminders, long-polls); default the real clock. */
  clock?: Clock;
  /** How long chat targets get to report a delivery before the asker hears `delivery_failed`. */
  deliveryTimeoutMs?: number;
  /** Used when a request names no targets. */
  defaultTargets?: Target[];
  /** When set, every target a request names (or the defaults) must be one of these (ASK_ALLOWED_TARGETS). */
  allowedTargets?: Target[];
  /** Pending questions one run may hold, for callers other than the admin credential (ASK_MAX_PENDING_PER_RUN). */
  maxPendingPerRun?: number;
  /** Pending questions one scoped agent credential may hold (ASK_MAX_PENDING_PER_CREDENTIAL). */
  maxPendingPerCredential?: number;
  /** Default reminders (REMIND_BEFORE_SECONDS) and late-answer window (LATE_ANSWER_SECONDS). */
  followUpDefaults?: FollowUpDefaults;
  /** Test-only lower clamp for timeoutSeconds; the contract always says 30. */
  minTimeoutSeconds?: number;
  /** The longest a single waitAnswer long-poll may hold. */
  maxWaitMs?: number;
  /** This deployment's own secrets (gateway token, bot tokens, signing secrets): no answer or reply may contain one. */
  knownSecrets?: readonly (string | undefined)[];
  log?: (message: string, error?: unknown) => void;
}

/** What the service's parts (requests, answers, delivery, sync) share: the store, the clock, the schedule, the waiters. */
export interface ServiceContext {
  readonly options: QuestionServiceOptions;
  readonly store: QuestionStore;
  readonly clock: Clock;
  /** `clock.now`. */
  readonly now: () => number;
  readonly log: (message: string, error?: unknown) => void;
  readonly events: EventHub;
  readonly deliveryTimeoutMs: number;
  /** True for text holding one of this deployment's own secrets (the credential filter's known-secret part). */
  readonly holdsKnownSecret: (text: string) => boolean;
  readonly deadlines: Deadlines;
  readonly waiters: Waiters;
  /** The questions of pending records created or heard of here: an answer is checked without a read. */
  readonly known: KnownQuestions;
  /** Which chat surfaces have a bot connected; marks targets no bot can send yet `waiting` (no-bot.ts). */
  readonly noBot: NoBot;
  read(id: string): Promise<QuestionRecord | undefined>;
  /** The record, or QUESTION_NOT_FOUND. */
  mustGet(id: string): Promise<QuestionRecord>;
  /** INVALID_PARAMS unless (surface, chat) is one of the record's targets. */
  checkTarget(record: QuestionRecord, surface: string, chat: string): void;
  /** A question resolved (here, or on another instance): wake its waiters and announce it. */
  finished(record: QuestionRecord, remote?: boolean): void;
}

/**
 * Builds the shared context. The deadlines call back into the delivery part (`onDeliveryOverdue`), which is built
 * from this context, so that one callback is handed in.
 */
export function createServiceContext(options: QuestionServiceOptions, onDeliveryOverdue: (id: string) => Promise<void>): ServiceContext {
  const { store } = options;
  const clock = options.clock ?? realClock;
  const now = () => clock.now();
  const log = options.log ?? (() => {});
  const deliveryTimeoutMs = options.deliveryTimeoutMs ?? 30_000;
  const events = options.events ?? createEventHub();

  const read = (id: string) => stored(store.get(id));
  const noBot = createNoBot({ store, clock, log });
  const waiters = createWaiters({ maxWaitMs: options.maxWaitMs ?? 5 * 60_000, read, clock });
  const fireFollowUps = createFollowUpFiring({
    store,
    emit(event, record) {
      // An escalation step's new chat targets are watched like the first ones (while nothing is delivered).
      if (event === "question.escalated") deadlines.watchDelivery(record);
      events.emit(event, record);
      // The step's chat targets no bot can send yet say so at once, like a new question's.
      const step = event === "question.escalated" ? record.escalated?.at(-1) : undefined;
      if (step) void noBot.mark(record, step.targets).then((marked) => marked !== record && events.emit("question.updated", marked));
    },
  });
  const deadlines = createDeadlines({
    store,
    clock,
    deliveryTimeoutMs,
    onExpired: finished,
    onDeliveryOverdue,
    onFollowUpDue: fireFollowUps,
    // Bots re-render the copies to the final "expired" summary; nothing is stored for it.
    onLateWindowEnded: (record) => events.emit("question.updated", record),
    onError: (error) => log("deadline check failed", error),
  });

  const known = createKnownQuestions();

  function finished(record: QuestionRecord, remote = false): void {
    known.forget(record.id);
    deadlines.forget(record.id);
    deadlines.followUpAt(record.lateUntilMs);
    waiters.wake(record);
    events.emit("question.resolved", record, remote);
  }

  return {
    options,
    store,
    clock,
    now,
    log,
    events,
    deliveryTimeoutMs,
    holdsKnownSecret: createKnownSecretMatcher(options.knownSecrets ?? []),
    deadlines,
    waiters,
    known,
    noBot,
    read,
    finished,
    async mustGet(id) {
      const record = await read(id);
      if (!record) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${id}`);
      return record;
    },
    checkTarget(record, surface, chat) {
      if (!record.targets.some((t) => t.surface === surface && t.chat === chat)) {
        throw new GatewayError("INVALID_PARAMS", `question ${record.id} has no target ${surface}:${chat}`, {
          issues: [{ path: "chat", message: "is not one of the question's targets" }],
        });
      }
    },
  };
}
