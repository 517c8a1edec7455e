import type { ParseOutcome } from "../contract/parse-outcome.ts";
import type { QuestionRecord } from "../record/record.ts";

/** What a typed reply did: the parse outcome, plus the record after it (absent for invalid replies). */
export type ReplyOutcome =
  | (Extract<ParseOutcome, { kind: "answered" | "partial" }> & { record: QuestionRecord })
  | { kind: "skip"; record: QuestionRecord }
  | Extract<ParseOutcome, { kind: "invalid" }>;
