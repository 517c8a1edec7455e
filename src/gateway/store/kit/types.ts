import type { Delivery, LateAnswer, QuestionRecord, ReminderCopy, TargetState } from "../../../record/record.ts";
import type { Resolution } from "../../../record/transitions.ts";
import type { LateRefusal } from "../../../record/late-window.ts";
import type { ClaimOutcome } from "../../../protocol/claim.ts";
import type { ListFilter } from "../../../protocol/list-filter.ts";

export type { ListFilter };

/**
 * Pending-question limits for `create`, for records with an `askedBy` (a scoped agent credential; the admin's
 * records have no quota). `perRun` counts the credential's pending records with the record's `runId` (runs are per
 * credential), and applies only to a record with a `runId`; `perCredential` counts all of the credential's.
 */
export interface PendingLimits {
  perRun?: number;
  perCredential?: number;
}

/** What `countPending` counts: pending records matching every field given. */
export interface PendingFilter {
  runId?: string;
  askedBy?: string;
  /** Records with a target on this surface. */
  surface?: string;
}

export type { Resolution };

export type ResolveOutcome =
  | { ok: true; record: QuestionRecord }
  | { ok: false; code: "QUESTION_NOT_FOUND" }
  | { ok: false; code: "QUESTION_ALREADY_TERMINAL"; record: QuestionRecord };

/** A bot's claim to send one copy: (question, surface, chat), held by `claimant` until `leaseUntilMs`. */
export interface DeliveryClaim {
  id: string;
  surface: string;
  chat: string;
  claimant: string;
  nowMs: number;
  leaseMs: number;
  /** "prompt" (default) or "reminder:<offsetSeconds>": a reminder's claim is its own, never a prompt delivery claim. */
  copy?: string;
}

/** What storing a late answer did. */
export type LateOutcome =
  | { ok: true; record: QuestionRecord }
  | { ok: false; code: "QUESTION_NOT_FOUND" }
  | { ok: false; code: "QUESTION_ALREADY_TERMINAL"; record: QuestionRecord; why: LateRefusal };

export type { ClaimOutcome };

/** A live delivery claim on one copy of a question, as `liveClaims` reports it. */
export interface HeldClaim {
  surface: string;
  chat: string;
  claimant: string;
  /** When the claimant last took or renewed it. */
  claimedAtMs: number;
  leaseUntilMs: number;
}

/** A platform message taken as a reply: the platform's message id, in the chat it was written in. */
export interface ReplyKey {
  surface: string;
  chat: string;
  messageRef: string;
}

/**
 * The durable store of question records, shared by every gateway instance that opens the same database.
 *
 * Every method returns a promise, and a write's promise settles only once the write is durable (committed): the
 * gateway acknowledges and announces what a write did only after that. Every state change is one compare-and-set
 * (`… WHERE status = 'pending'`), so across instances the first resolution wins and every later one changes nothing.
 * One contract suite (test/gateway/store/store-contract.ts) runs against every implementation.
 */
export interface QuestionStore {
  /**
   * Inserts a new record. Throws QuestionExistsError for a taken id, and SessionBusyError when the record has a
   * `sessionKey` that already has a pending record of the same asker (the same `askedBy`, or the admin's records
   * with none): checked by the database, so it holds across instances. With `limits`, a pending record that has an
   * `askedBy` is inserted only while its credential (and its run, per credential) has fewer pending records than
   * the limit; otherwise nothing is inserted and it throws QuotaExceededError. Counted and inserted as one step
   * (across instances too), so no number of concurrent creates passes a limit.
   */
  create(record: QuestionRecord, limits?: PendingLimits): Promise<void>;
  /** How many records are pending, of those that match every given field: an indexed count, not a list. */
  countPending(filter?: PendingFilter): Promise<number>;
  get(id: string): Promise<QuestionRecord | undefined>;
  /** Newest first (createdAtMs, then id, both descending); with `before`, only the records after that position. */
  list(filter?: ListFilter): Promise<QuestionRecord[]>;
  /** Compare-and-set from pending: the first resolution wins, every later one changes nothing. */
  resolve(id: string, resolution: Resolution): Promise<ResolveOutcome>;
  /**
   * Expires, in one compare-and-set per record, pending records whose expiresAtMs is at or before `nowMs` (at most
   * `limit`, soonest first), and returns the ones this call expired. Instances that run it at the same moment never
   * expire the same record twice, and do not all fight over the same rows.
   */
  expireDue(nowMs: number, limit: number): Promise<QuestionRecord[]>;
  /** The earliest expiresAtMs among pending records, for the expiry schedule. */
  nextExpiryMs(): Promise<number | undefined>;
  /** Records one delivered copy. Idempotent per (surface, chat): a repeat report keeps the first copy. */
  addDelivery(id: string, delivery: Delivery): Promise<QuestionRecord | undefined>;
  /**
   * Merges `answers` into the partial answers held with a pending record (keys already held keep their values only
   * when `answers` does not name them). Returns undefined for an unknown id, and the record unchanged when terminal.
   * With `options.lateAtMs`, an expired record still in its late window (no late answer yet, lateUntilMs after
   * lateAtMs) takes partial answers too.
   */
  mergePartial(id: string, answers: Record<string, string[]>, options?: { lateAtMs?: number }): Promise<QuestionRecord | undefined>;
  /**
   * Pending records that target chats only (no web target) and that no surface has reported delivering yet,
   * oldest first: the ones whose delivery the gateway watches.
   */
  pendingAwaitingDelivery(): Promise<QuestionRecord[]>;
  /**
   * Pending records with a reminder or an escalation step due at or before `nowMs` (at most `limit`, soonest first),
   * read so that any instance may fire them; each is then fired with markReminder / markEscalated (compare-and-sets).
   */
  followUpsDue(nowMs: number, limit: number): Promise<QuestionRecord[]>;
  /**
   * The earliest moment something follows up: a pending record's next reminder or escalation step, or the end of a
   * late window after `lateAfterMs` on an expired record with no late answer.
   */
  nextFollowUpMs(lateAfterMs: number): Promise<number | undefined>;
  /** Expired records without a late answer whose late window ended in (afterMs, uptoMs] (at most `limit`, soonest first). */
  lateWindowsEnded(afterMs: number, uptoMs: number, limit: number): Promise<QuestionRecord[]>;
  /**
   * Compare-and-set: marks the reminder at `offsetSeconds` fired (or skipped) on a pending record, exactly once
   * across instances and restarts. The record when this call marked it; undefined when it changed nothing.
   */
  markReminder(id: string, offsetSeconds: number, atMs: number, skipped?: boolean): Promise<QuestionRecord | undefined>;
  /**
   * Compare-and-set: takes escalation step `step` on a pending record (its targets join `targets`), exactly once
   * across instances and restarts. The record when this call took it; undefined when it changed nothing.
   */
  markEscalated(id: string, step: number, atMs: number): Promise<QuestionRecord | undefined>;
  /** Records a reminder message a bot sent; idempotent per (surface, chat, offsetSeconds). Undefined for an unknown id. */
  addReminderCopy(id: string, copy: ReminderCopy): Promise<QuestionRecord | undefined>;
  /**
   * Compare-and-set: stores the late answer on an expired record whose late window is open at `late.atMs` and that
   * has none yet (the first wins). The status stays `expired`; held partial answers are dropped.
   */
  setLateAnswer(id: string, late: LateAnswer): Promise<LateOutcome>;
  /** Takes (or renews) the right to send one copy; see ClaimOutcome. */
  claimDelivery(claim: DeliveryClaim): Promise<ClaimOutcome>;
  /** The claims on a record's copies whose lease runs past `nowMs`, for copies not delivered yet. */
  liveClaims(id: string, nowMs: number): Promise<HeldClaim[]>;
  /**
   * Records a chat target's delivery trouble, one state per (surface, chat): a later report replaces an earlier one,
   * except that `retrying` never replaces `failed`. Reads leave out the state of a chat that has a delivered copy.
   * Returns undefined for an unknown id.
   */
  setTargetState(id: string, state: TargetState): Promise<QuestionRecord | undefined>;
  /**
   * A copy the platform took and then refused for good (its send was accepted, its delivery failed later): on a
   * pending record whose copy in (state.surface, state.chat) is `messageRef`, removes that delivery and records
   * `state` for the chat (by setTargetState's rule), in one write. No such copy (none, or another message), or a
   * terminal record: nothing changes. Returns the record as it is then; undefined for an unknown id.
   */
  withdrawDelivery(id: string, messageRef: string, state: TargetState): Promise<QuestionRecord | undefined>;
  /**
   * Removes the chat's `waiting` state (a bot took its copy: one is connected after all). Returns the record when a
   * `waiting` state was there, else undefined (another state, none, or no such question: nothing changes).
   */
  clearWaiting(id: string, surface: string, chat: string): Promise<QuestionRecord | undefined>;
  /** Stores what one delivered copy shows now; undefined for an unknown id. No copy for that chat: changes nothing. */
  setRendered(id: string, surface: string, chat: string, rendered: string): Promise<QuestionRecord | undefined>;
  /**
   * Takes a reply key, insert-if-absent: true when this call took it, false when it was taken before (by any
   * instance, before any restart). Durable like every write.
   */
  markReplySeen(key: ReplyKey, atMs: number): Promise<boolean>;
  /** Gives a key back (its reply failed before anything was decided), so a retry of that message is taken. */
  unmarkReplySeen(key: ReplyKey): Promise<void>;
  /** Forgets keys taken before `beforeMs`; returns how many. */
  pruneRepliesSeen(beforeMs: number): Promise<number>;
  /**
   * A secret kept under `name` (the answer links' key): insert-if-absent, then read, so the first caller's
   * `candidate` is the one every caller gets, on every instance and after every restart.
   */
  sharedSecret(name: string, candidate: Buffer): Promise<Buffer>;
  /**
   * Stores shared by several gateway instances (PostgreSQL) announce what the other instances commit, so that each
   * instance's events, waiters and schedule follow the shared state. Single-process stores leave it out.
   */
  onRemoteChange?(handler: (change: StoreChange) => void): () => void;
  /**
   * Shared stores only: runs `handler` when the change feed is back after a loss. Changes made meanwhile were never
   * announced, so whoever follows the store re-reads what it follows.
   */
  onResync?(handler: () => void): () => void;
  /**
   * The webhook outbox (issue 29 §4). A store opened with webhook URLs writes, in the same commit as each resolution
   * (resolve, expireDue) and each late answer (setLateAnswer), one message per URL; without URLs it writes none.
   * Takes up to `limit` messages due at `nowMs` (their next try reached and no live lease), soonest first, and leases
   * each to `claimant` until `nowMs + leaseMs`, counting the try (`attempts` then includes it). Across instances each
   * due message goes to one claimant only.
   */
  claimWebhooks(claim: WebhookClaim): Promise<WebhookMessage[]>;
  /**
   * Compare-and-set on a message `claimant` holds: sent or given up (done for good), or back to the queue for a retry
   * at `retryAtMs`. False when it changed nothing (another claimant holds it, or it was done already).
   */
  settleWebhook(id: string, claimant: string, settlement: WebhookSettlement): Promise<boolean>;
  /** The earliest moment an outbox message is due (its next try, or its lease's end); undefined when none is left. */
  nextWebhookMs(): Promise<number | undefined>;
  /** How many outbox messages are neither sent nor given up (every instance's). */
  countWebhooks(): Promise<number>;
  /** Forgets messages sent or given up before `doneBeforeMs`; returns how many. */
  pruneWebhooks(doneBeforeMs: number): Promise<number>;
  /** Shared stores only: which chat surfaces have a bot connected to any instance (see BotPresence). */
  botPresence?: BotPresence;
  close(): Promise<void>;
}

/** The events a webhook carries: the protocol's names for a resolution and a late answer. */
export type WebhookEvent = "question.resolved" | "question.lateAnswered";

/** One outbox message: one event for one URL, sent with the same id (the `webhook-id`) and body on every try. */
export interface WebhookMessage {
  /** `msg_…`, stable across tries: receivers deduplicate on it. */
  id: string;
  event: WebhookEvent;
  url: string;
  questionId: string;
  /** The record as the event's commit left it. */
  record: QuestionRecord;
  /** When the event happened: the resolution's resolvedAtMs, or the late answer's atMs. */
  eventAtMs: number;
  /** Tries begun, this one included. */
  attempts: number;
}

export interface WebhookClaim {
  claimant: string;
  nowMs: number;
  leaseMs: number;
  limit: number;
  /** Messages to these URLs are left for later (the sender has enough in flight to them). */
  exceptUrls?: readonly string[];
}

export type WebhookSettlement =
  | { outcome: "sent"; atMs: number }
  | { outcome: "retry"; atMs: number; retryAtMs: number; error: string }
  | { outcome: "given_up"; atMs: number; error: string };

/** The chat surfaces with a bot connected, shared by the instances of one store. */
export interface BotPresence {
  /** Records the surfaces with a bot connected to this instance now (refreshing them; the others are dropped). */
  publish(surfaces: readonly string[]): Promise<void>;
  /** The surfaces with a bot connected to any instance that published them within `freshMs`. */
  connected(freshMs: number): Promise<string[]>;
}

/** A change another gateway instance committed to a shared store, by record id. */
export interface StoreChange {
  event: "question.requested" | "question.updated" | "question.resolved" | "question.reminded" | "question.escalated" | "question.lateAnswered";
  id: string;
  /** The record as this change committed it, when the store's notification carried it (else: read it). */
  record?: QuestionRecord;
}
