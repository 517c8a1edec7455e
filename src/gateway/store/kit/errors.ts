/** `create` was given an id the store already holds: a programmer error (ids are generated). */
export class QuestionExistsError extends Error {
  readonly code = "QUESTION_EXISTS";
  constructor(readonly id: string, options?: { cause?: unknown }) {
    super(`question ${id} already exists`, options);
    this.name = "QuestionExistsError";
  }
}

/**
 * A stored row could not be decoded (bad JSON or a wrong shape in one of its columns). Single-record
 * reads throw it; multi-record reads (`list`, `findExpired`) skip the row and report it instead.
 */
export class CorruptRecordError extends Error {
  readonly code = "STORE_CORRUPT_RECORD";
  constructor(readonly id: string, readonly column: string, options?: { cause?: unknown }) {
    super(`question ${id}: stored column ${column} is corrupt`, options);
    this.name = "CorruptRecordError";
  }
}

/** `create` was given a record whose sessionKey already has a pending record (one pending question per session). */
export class SessionBusyError extends Error {
  readonly code = "SESSION_HAS_PENDING_QUESTION";
  constructor(readonly sessionKey: string, options?: { cause?: unknown }) {
    super(`session ${sessionKey} already has a pending question`, options);
    this.name = "SessionBusyError";
  }
}

/** Which pending quota a create ran into: the credential's run, or the credential as a whole. */
export interface QuotaExceeded {
  quota: "run" | "credential";
  /** Pending records counted against the quota (already at or above `max`). */
  pending: number;
  max: number;
  /** The run, for the run quota. */
  runId?: string;
  /** The scoped agent credential the quota belongs to. */
  askedBy: string;
}

/** `create` with limits found a pending quota already full, so it inserted nothing. */
export class QuotaExceededError extends Error {
  readonly code = "QUOTA_EXCEEDED";
  readonly quota: QuotaExceeded["quota"];
  readonly pending: number;
  readonly max: number;
  /** Present for the run quota only. */
  declare readonly runId?: string;
  readonly askedBy: string;
  constructor(exceeded: QuotaExceeded, options?: { cause?: unknown }) {
    const whose = exceeded.quota === "run" ? `run ${exceeded.runId} of credential ${exceeded.askedBy}` : `credential ${exceeded.askedBy}`;
    super(`${whose} already has ${exceeded.pending} pending questions (at most ${exceeded.max})`, options);
    this.name = "QuotaExceededError";
    this.quota = exceeded.quota;
    this.pending = exceeded.pending;
    this.max = exceeded.max;
    if (exceeded.runId !== undefined) this.runId = exceeded.runId;
    this.askedBy = exceeded.askedBy;
  }
}

/** The database cannot be reached or refused the write: nothing was recorded, and the caller may retry later. */
export class StoreUnavailableError extends Error {
  readonly code = "STORE_UNAVAILABLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}
