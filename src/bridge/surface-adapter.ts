import type { Surface } from "../contract/result.ts";
import type { Delivery, QuestionRecord, ReminderCopy, Target } from "../record/record.ts";

/** The four things a platform does for the bridge, and the reminder replies (issue 20 §1) where it can send them. */
export interface SurfaceAdapter {
  surface: Surface;
  /** Sends the prompt to the target's chat; resolves to a message reference that `updatePrompt` understands. */
  sendPrompt(record: QuestionRecord, target: Target): Promise<string>;
  /**
   * Whether the platform can edit a sent message (default true). Where it cannot, `updatePrompt` replies to the copy
   * (quoting it) with what it shows now, so the copy itself stays as sent; a pending copy is never updated, since
   * its prompt already shows it.
   */
  edits?: boolean;
  /**
   * Edits one delivered copy into the record's state at `nowMs` (default now): the summary once terminal. On a
   * platform without edits (`edits: false`), a reply to the copy that says the same.
   */
  updatePrompt(record: QuestionRecord, delivery: Delivery, nowMs?: number): Promise<void>;
  /**
   * What the copy of this record in `chat` shows at `nowMs` (default now), as the platform's payload (the prompt
   * while pending or while a late answer is still taken, the summary once terminal; a group's prompt says how to
   * reply there). Its fingerprint is kept on the record, so that only copies that are behind get edited.
   */
  renderedOf?(record: QuestionRecord, chat: string, nowMs?: number): unknown;
  /** Reminder replies, where the platform has them. */
  reminders?: ReminderAdapter;
}

/**
 * A reminder is plain text (the platform escapes it) sent as a reply to one delivered prompt, so that phones
 * notify: a reply, a message reference or a thread reply, as the platform has it. It never pings anyone.
 */
export interface ReminderAdapter {
  /** Sends `text` as a reply to the copy's prompt; resolves to the reminder's message reference. */
  send(delivery: Delivery, text: string): Promise<string>;
  /** Deletes the bot's own reminder: true when it is gone (or was already), false when the platform refused. */
  delete(reminder: ReminderCopy): Promise<boolean>;
  /** Edits the reminder to `text` (where it could not be deleted). */
  edit(reminder: ReminderCopy, text: string): Promise<void>;
}

/** A send that will never succeed (chat not found, bot blocked): report it instead of retrying. */
export class PermanentSendError extends Error {
  override name = "PermanentSendError";
}

/**
 * A send that cannot go out until the person does something (write first, where a platform reaches people only within a window after their last message): the
 * target is reported `waiting` with this message, nothing is retried on a timer, and the bot asks for the copy again
 * (the bridge's `redeliver`) once it can send it.
 */
export class WaitingSendError extends Error {
  override name = "WaitingSendError";
}
