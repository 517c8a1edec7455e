import type { Delivery, QuestionRecord, RecordReason, ResolvedBy } from "../../record.ts";
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

/**
 * The durable store of question records. Synchronous on purpose: both implementations are
 * in-process, and a synchronous compare-and-set makes "first resolution wins" trivially atomic.
 */
export interface QuestionStore {
  create(record: QuestionRecord): void;
  get(id: string): QuestionRecord | undefined;
  list(filter?: ListFilter): QuestionRecord[];
  /** Compare-and-set from pending: the first resolution wins, every later one changes nothing. */
  resolve(id: string, resolution: Resolution): ResolveOutcome;
  /** Records one delivered copy. Idempotent per (surface, chat): a repeat report keeps the first copy. */
  addDelivery(id: string, delivery: Delivery): QuestionRecord | undefined;
  /** Holds partial answers with a pending record; returns undefined when unknown, the record unchanged when terminal. */
  savePartial(id: string, answers: Record<string, string[]>): QuestionRecord | undefined;
  /** Pending records whose expiresAtMs is at or before `nowMs`. */
  findExpired(nowMs: number): QuestionRecord[];
  /** The earliest expiresAtMs among pending records, for the single expiry scheduler. */
  nextExpiryMs(): number | undefined;
  /**
   * Pending records that target chats only (no web target) and that no surface has reported delivering yet,
   * oldest first: the ones whose delivery the gateway watches. Optional: without it, callers filter `list`.
   */
  pendingAwaitingDelivery?(): QuestionRecord[];
  /**
   * Optional group commit. After this call, the writes made in one turn of the event loop share one transaction,
   * committed at the end of the turn (setImmediate); reads on this store see them at once. Whoever tells the outside
   * world about a write must wait for `afterCommit`, so that nothing acknowledged can be lost to a crash.
   * Without this call every write commits before it returns.
   */
  useGroupCommit?(): void;
  /**
   * Runs `callback` once every write made so far has committed (with the error if the commit failed), and returns
   * true; returns false without calling it when no write is waiting to commit.
   */
  afterCommit?(callback: (error?: unknown) => void): boolean;
  close(): void;
}
