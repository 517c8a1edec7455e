import { capIssues, type ContractIssue } from "./issues.ts";

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
  /**
   * An approval was allowed from a chat that could not show the whole request (issue 35): nothing was recorded; the
   * person reviews it on the answer page (Review…) or the Control UI, and allows it there.
   */
  "REVIEW_REQUIRED",
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
  /**
   * Field-level problems for INVALID_PARAMS / QUESTION_INVALID_ANSWER: at most MAX_ISSUES, then one last entry
   * `{ path: "", message: "and N more" }` when there were more.
   */
  issues?: ContractIssue[];
}

/**
 * The largest error response, as UTF-8 JSON. An error names its problems; it never echoes the input back, so a 1 MiB
 * request with 80,000 unknown fields gets a short answer. The error itself gets all but 1 KiB of it, which leaves room
 * for the response frame around it (`{"type":"res","id":…,"ok":false,"error":…}`, with an id of up to 128 characters).
 */
export const ERROR_RESPONSE_MAX_BYTES = 16 * 1024;
const ERROR_MAX_BYTES = ERROR_RESPONSE_MAX_BYTES - 1024;
/** Where texts are cut at first (UTF-16 code units); halved until the error fits ERROR_MAX_BYTES. */
const MESSAGE_MAX_LENGTH = 3000;
const ISSUE_PATH_MAX_LENGTH = 200;
const ISSUE_MESSAGE_MAX_LENGTH = 300;

/** A typed error with a string code; the one error type that crosses the protocol. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly issues?: ErrorBody["issues"];

  /**
   * The message and issues are bounded here, once for every error that crosses the protocol: at most MAX_ISSUES
   * issues and a count of the rest, each text cut, and the whole within ERROR_MAX_BYTES.
   */
  constructor(code: ErrorCode, message: string, options: { issues?: ErrorBody["issues"]; cause?: unknown } = {}) {
    const bounded = boundError(code, message, options.issues);
    super(bounded.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    if (bounded.issues) this.issues = bounded.issues;
  }

  toBody(): ErrorBody {
    return this.issues ? { code: this.code, message: this.message, issues: this.issues } : { code: this.code, message: this.message };
  }

  /** The error a response carries. It came over the wire, so its texts are read as texts whatever they are. */
  static from(body: ErrorBody): GatewayError {
    const issues = Array.isArray(body.issues) ? body.issues.map((i) => ({ path: String(i?.path ?? ""), message: String(i?.message ?? "") })) : undefined;
    return new GatewayError(body.code, String(body.message), issues ? { issues } : {});
  }
}

/** The error as it may be sent: texts cut to their lengths, scaled down by halves until its JSON fits. */
function boundError(code: ErrorCode, message: string, issues: ContractIssue[] | undefined): ErrorBody {
  const listed = issues && capIssues(issues);
  for (let share = 1; ; share /= 2) {
    const body: ErrorBody = { code, message: cutText(message, MESSAGE_MAX_LENGTH * share) };
    if (listed) {
      body.issues = listed.map((i) => ({ path: cutText(i.path, ISSUE_PATH_MAX_LENGTH * share), message: cutText(i.message, ISSUE_MESSAGE_MAX_LENGTH * share) }));
    }
    // At 1/16 every text fits even when each code unit takes 6 bytes as a JSON escape: 21 issues of 30, a message of 187.
    if (share <= 1 / 16 || utf8.encode(JSON.stringify(body)).length <= ERROR_MAX_BYTES) return body;
  }
}

const utf8 = new TextEncoder();

/** `text` cut to at most `max` code units, marked with an ellipsis, never splitting a surrogate pair. */
function cutText(text: string, max: number): string {
  const limit = Math.floor(max);
  if (text.length <= limit) return text;
  let end = limit - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate: keep its pair whole by leaving it out
  return `${text.slice(0, end)}…`;
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
