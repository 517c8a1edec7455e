import type { Delivery, QuestionRecord, RecordReason, ResolvedBy, TargetState } from "../../record.ts";
import type { ClaimOutcome } from "../../protocol/claim.ts";
import type { ListFilter } from "../../protocol/list-filter.ts";

export type { ListFilter };

/** A terminal outcome, applied as a compare-and-set from `pending`. */
export type Resolution =
  | { status: "answered"; answers: Record<string, string[]>; by: ResolvedBy; resolvedAtMs: number }
  | { status: "expired"; reason: "expired"; resolvedAtMs: number }
  | { status: "cancelled"; reason: Exclude<RecordReason, "expired">; by?: ResolvedBy; detail?: string; resolvedAtMs: number };

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
}

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
 * One contract suite (test/store-contract.ts) runs against every implementation.
 */
export interface QuestionStore {
  /** Inserts a new record. Throws QuestionExistsError for a taken id, and SessionBusyError when the record has a
   * `sessionKey` that already has a pending record (checked by the database, so it holds across instances). */
  create(record: QuestionRecord): Promise<void>;
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
   */
  mergePartial(id: string, answers: Record<string, string[]>): Promise<QuestionRecord | undefined>;
  /**
   * Pending records that target chats only (no web target) and that no surface has reported delivering yet,
   * oldest first: the ones whose delivery the gateway watches.
   */
  pendingAwaitingDelivery(): Promise<QuestionRecord[]>;
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
   * Stores shared by several gateway instances (PostgreSQL) announce what the other instances commit, so that each
   * instance's events, waiters and schedule follow the shared state. Single-process stores leave it out.
   */
  onRemoteChange?(handler: (change: StoreChange) => void): () => void;
  /**
   * Shared stores only: runs `handler` when the change feed is back after a loss. Changes made meanwhile were never
   * announced, so whoever follows the store re-reads what it follows.
   */
  onResync?(handler: () => void): () => void;
  close(): Promise<void>;
}

/** A change another gateway instance committed to a shared store, by record id. */
export interface StoreChange {
  event: "question.requested" | "question.updated" | "question.resolved";
  id: string;
}
