import type { Delivery, LateAnswer, QuestionRecord, ReminderCopy, TargetState } from "../../../record/record.ts";
import { lateRefusal } from "../../../record/late-window.ts";
import { applyEscalation, applyLateAnswer, applyReminder, applyReminderCopy } from "../../../record/follow-ups.ts";
import {
  applyClearWaiting,
  applyDelivery,
  applyPartial,
  applyRendered,
  applyTargetState,
  applyWithdrawal,
  withVisibleStates,
} from "../../../record/transitions.ts";
import type { LateOutcome, QuestionStore, StoreChange, WebhookEvent } from "./types.ts";

/** A record as loaded, with the version a store of it must still find. */
export interface Versioned<V> {
  record: QuestionRecord;
  version: V;
}

/** What a stored change announces: the event other instances hear (null: none), and the webhook written with it. */
export interface RecordChange {
  event: StoreChange["event"] | null;
  webhook?: WebhookEvent;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * The backends' primitive: one record, read and compare-and-set. A backend that runs synchronously (memory, SQLite)
 * returns plain values, so a whole compare-and-set runs in one step; PostgreSQL returns promises.
 */
export interface RecordCell<V> {
  /** The record as stored (every target state, a delivered chat's too) and its version; undefined for an unknown id. */
  load(id: string): MaybePromise<Versioned<V> | undefined>;
  /**
   * Stores `next` (what differs from `loaded.record`) only if the record is still at `loaded.version`, with `change`'s
   * announcement and webhook. The record as stored then, or undefined when it moved meanwhile (load again).
   */
  storeIfUnchanged(loaded: Versioned<V>, next: QuestionRecord, change: RecordChange): MaybePromise<QuestionRecord | undefined>;
  /** A write's result once it is durable (SQLite's group commit); at once when left out. */
  durable?<T>(value: T): Promise<T>;
}

const then = <T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> =>
  value instanceof Promise ? value.then(next) : next(value);

/** What one compare-and-set did: the record as it is now, and whether this call changed it. */
export interface CasOutcome {
  record: QuestionRecord;
  changed: boolean;
}

const ATTEMPTS = 10;

/**
 * Read, `apply` (undefined: nothing to change), and store if unchanged, again while another writer got there first.
 * Undefined for an unknown id.
 */
export function compareAndSet<V>(
  cell: RecordCell<V>,
  id: string,
  apply: (record: QuestionRecord) => QuestionRecord | undefined,
  change: RecordChange,
  attempt = 0,
): MaybePromise<CasOutcome | undefined> {
  if (attempt >= ATTEMPTS) throw new Error(`question ${id} kept changing under a compare-and-set`);
  return then(cell.load(id), (loaded) => {
    if (!loaded) return undefined;
    const next = apply(loaded.record);
    if (!next) return { record: loaded.record, changed: false };
    return then(cell.storeIfUnchanged(loaded, next, change), (stored) =>
      stored ? { record: stored, changed: true } : compareAndSet(cell, id, apply, change, attempt + 1),
    );
  });
}

/** The operations on one record that every store derives from its cell, written once. */
export type RecordOperations = Pick<
  QuestionStore,
  | "addDelivery"
  | "mergePartial"
  | "markReminder"
  | "markEscalated"
  | "addReminderCopy"
  | "setLateAnswer"
  | "setTargetState"
  | "clearWaiting"
  | "withdrawDelivery"
  | "setRendered"
>;

const UPDATED: RecordChange = { event: "question.updated" };

export function createRecordOperations<V>(cell: RecordCell<V>): RecordOperations {
  /** Runs one compare-and-set and shapes its outcome (records as reads return them), once durable. */
  function cas<T>(
    id: string,
    apply: (record: QuestionRecord) => QuestionRecord | undefined,
    change: RecordChange,
    shape: (outcome: CasOutcome | undefined) => T,
  ): Promise<T> {
    try {
      const outcome = then(compareAndSet(cell, id, apply, change), (found) => {
        const result = shape(found && { record: withVisibleStates(found.record), changed: found.changed });
        return cell.durable ? cell.durable(result) : result;
      });
      return Promise.resolve(outcome);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  /** The record as it is after the call, changed or not. */
  const current = (outcome: CasOutcome | undefined) => outcome?.record;
  /** The record only when this call changed it. */
  const ifChanged = (outcome: CasOutcome | undefined) => (outcome?.changed ? outcome.record : undefined);

  return {
    addDelivery: (id, delivery: Delivery) => cas(id, (r) => applyDelivery(r, delivery), UPDATED, current),
    mergePartial: (id, answers, options = {}) => cas(id, (r) => applyPartial(r, answers, options.lateAtMs), UPDATED, current),
    markReminder: (id, offsetSeconds, atMs, skipped = false) =>
      cas(id, (r) => applyReminder(r, offsetSeconds, atMs, skipped), { event: skipped ? null : "question.reminded" }, ifChanged),
    markEscalated: (id, step, atMs) => cas(id, (r) => applyEscalation(r, step, atMs), { event: "question.escalated" }, ifChanged),
    addReminderCopy: (id, copy: ReminderCopy) => cas(id, (r) => applyReminderCopy(r, copy), UPDATED, current),
    setLateAnswer: (id, late: LateAnswer) =>
      cas(id, (r) => applyLateAnswer(r, late), { event: "question.lateAnswered", webhook: "question.lateAnswered" }, (outcome): LateOutcome => {
        if (!outcome) return { ok: false, code: "QUESTION_NOT_FOUND" };
        if (outcome.changed) return { ok: true, record: outcome.record };
        return { ok: false, code: "QUESTION_ALREADY_TERMINAL", record: outcome.record, why: lateRefusal(outcome.record, late.atMs) ?? "late_answered" };
      }),
    setTargetState: (id, state: TargetState) => cas(id, (r) => applyTargetState(r, state), UPDATED, current),
    clearWaiting: (id, surface, chat) => cas(id, (r) => applyClearWaiting(r, surface, chat), { event: null }, ifChanged),
    withdrawDelivery: (id, messageRef, state) => cas(id, (r) => applyWithdrawal(r, messageRef, state), UPDATED, current),
    setRendered: (id, surface, chat, rendered) => cas(id, (r) => applyRendered(r, surface, chat, rendered), { event: null }, current),
  };
}
