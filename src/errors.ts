/** The protocol's error codes (PRODUCT.md §3), plus the transport's own. */
export const ERROR_CODES = [
  "UNAUTHORIZED",
  /** The credential is valid but its role may not do this (see README "Security"). */
  "FORBIDDEN",
  "INVALID_PARAMS",
  "QUESTION_NOT_FOUND",
  "QUESTION_ALREADY_TERMINAL",
  "QUESTION_INVALID_ANSWER",
  "SESSION_HAS_PENDING_QUESTION",
  /** An answer looked like a credential, so nothing was recorded (the bots then delete the person's message). */
  "CREDENTIAL_REFUSED",
  /** This platform message (surface, chat, messageRef) was already taken as a reply: nothing changed. */
  "DUPLICATE_REPLY",
  /** A scoped credential or run reached its limit of pending questions (ASK_MAX_PENDING_PER_*). */
  "QUOTA_EXCEEDED",
  /** The database is unreachable: nothing was recorded; try again (the gateway reconnects by itself). */
  "STORE_UNAVAILABLE",
  "INVALID_FRAME",
  "FRAME_TOO_LARGE",
  "UNKNOWN_METHOD",
  "DISCONNECTED",
  "TIMEOUT",
  "INTERNAL",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  /** Field-level problems for INVALID_PARAMS / QUESTION_INVALID_ANSWER. */
  issues?: Array<{ path: string; message: string }>;
}

/** A typed error with a string code; the one error type that crosses the protocol. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly issues?: ErrorBody["issues"];

  constructor(code: ErrorCode, message: string, options: { issues?: ErrorBody["issues"]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    if (options.issues) this.issues = options.issues;
  }

  toBody(): ErrorBody {
    return this.issues ? { code: this.code, message: this.message, issues: this.issues } : { code: this.code, message: this.message };
  }

  static from(body: ErrorBody): GatewayError {
    return new GatewayError(body.code, body.message, body.issues ? { issues: body.issues } : {});
  }
}

/**
 * A bot cannot go on (issue 19 §2): its platform rejected the token (`unrecoverable`: a restart cannot help, so the
 * process exits 78 and `start` leaves it stopped), or another process polls with the same token (exit 1: `start`
 * restarts it with backoff). The message is the one line ops read: what happened and what to do.
 */
export class BotStopError extends Error {
  override name = "BotStopError";
  constructor(
    message: string,
    readonly unrecoverable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
