import type { Surface } from "../contract/result.ts";
import type { Delivery, QuestionRecord, Target } from "../record.ts";

/** The four things a platform does for the bridge. */
export interface SurfaceAdapter {
  surface: Surface;
  /** Sends the prompt to the target's chat; resolves to a message reference that `updatePrompt` understands. */
  sendPrompt(record: QuestionRecord, target: Target): Promise<string>;
  /** Edits one delivered copy into the record's current state (the summary once terminal). */
  updatePrompt(record: QuestionRecord, delivery: Delivery): Promise<void>;
  /**
   * What the copy of this record in `chat` shows now, as the platform's payload (the prompt while pending, the
   * summary once terminal; a group's prompt says how to reply there). Its fingerprint is kept on the record, so that
   * only copies that are behind get edited.
   */
  renderedOf?(record: QuestionRecord, chat: string): unknown;
}

/** A send that will never succeed (chat not found, bot blocked): report it instead of retrying. */
export class PermanentSendError extends Error {
  override name = "PermanentSendError";
}
