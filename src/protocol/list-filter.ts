import type { QuestionStatus } from "../record.ts";
import type { Surface } from "../surfaces.ts";

/** `question.list`'s filter, as the store applies it. */
export interface ListFilter {
  status?: QuestionStatus;
  runId?: string;
  sessionKey?: string;
  /** Records with a target on this surface. */
  surface?: Surface;
  /** Records with a target in this chat (on `surface`, when that is given too). */
  chat?: string;
  /** At most this many records, newest first. */
  limit?: number;
}
