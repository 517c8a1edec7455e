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

/** The database cannot be reached or refused the write: nothing was recorded, and the caller may retry later. */
export class StoreUnavailableError extends Error {
  readonly code = "STORE_UNAVAILABLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}
