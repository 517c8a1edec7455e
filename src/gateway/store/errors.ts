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
