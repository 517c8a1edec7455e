/**
 * What `parseReply` (src/parse) returns (issue 3). A union, never an exception. It lives in the contract because the
 * protocol carries it too (ReplyOutcome), and the protocol may not import the parser.
 */

/** How one value was read: an option number, an option label, or the person's own words. */
export type ReadVia = "number" | "label" | "text";

/** One value and how it was read. `value` is the authored label for a matched option, else the person's trimmed text. */
export interface ReadValue {
  value: string;
  via: ReadVia;
}

/** How each answered question's values were read, keyed by question id. Bots echo it ("read '2' as Production"). */
export type ReadAs = Record<string, ReadValue[]>;

/** `not_open`: a keyed line named a question answered before (a partial answer), or a number past the last one. */
export type InvalidReason = "empty" | "credential" | "too_many_lines" | "not_open";

export interface AnsweredOutcome {
  kind: "answered";
  /** Every question id, each with at least one value. */
  answers: Record<string, string[]>;
  readAs: ReadAs;
}

export interface PartialOutcome {
  kind: "partial";
  /** Only the questions that got a value. */
  answers: Record<string, string[]>;
  /** Ids of the questions still without a value, in question order. */
  missing: string[];
  readAs: ReadAs;
}

export interface SkipOutcome {
  kind: "skip";
}

export interface InvalidOutcome {
  kind: "invalid";
  reason: InvalidReason;
  /** Safe to show the person; never contains their text. */
  message: string;
}

export type ParseOutcome = AnsweredOutcome | PartialOutcome | SkipOutcome | InvalidOutcome;
