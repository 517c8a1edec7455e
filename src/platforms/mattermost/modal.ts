/**
 * The Mattermost Other… dialog (POST /api/v4/actions/dialogs/open with the press's trigger_id): one textarea; its
 * `state` (posted back with the submission) says which question and chat it answers, for whom, and carries the bot's
 * signature over all of that. Encoding throws on a programmer error; decoding never throws.
 */
import { MODAL_LABEL_FALLBACK, type ModalRequest } from "../../render/modal-request.ts";

export const MATTERMOST_DIALOG_CALLBACK_ID = "ask_user_other";
export const MATTERMOST_ANSWER_FIELD = "answer";
/** Mattermost limits: a dialog title is 24 characters, an element's display name 24, a textarea 3000. */
export const MATTERMOST_DIALOG_TITLE_MAX = 24;
export const MATTERMOST_DISPLAY_NAME_MAX = 24;
export const MATTERMOST_HELP_TEXT_MAX = 150;
export const MATTERMOST_ANSWER_MAX_LENGTH = 3000;
export const MATTERMOST_STATE_MAX = 3000;

/** Where the dialog was opened and for whom: the question, its target chat, the real channel, the person. */
export interface MattermostDialogContext {
  questionId: string;
  chat: string;
  channel: string;
  user: string;
}

export interface MattermostDialogElement {
  type: "textarea";
  name: string;
  display_name: string;
  help_text: string;
  optional: false;
  max_length: number;
}

export interface MattermostDialog {
  callback_id: string;
  title: string;
  submit_label: string;
  state: string;
  elements: MattermostDialogElement[];
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The state: the context and `s`, the bot's signature over `signedText(context)`. */
export function encodeMattermostDialogState(context: MattermostDialogContext, signature: string): string {
  const encoded = JSON.stringify({ q: context.questionId, c: context.chat, ch: context.channel, u: context.user, s: signature });
  if (encoded.length > MATTERMOST_STATE_MAX) throw new Error(`the dialog state is ${encoded.length} characters, over ${MATTERMOST_STATE_MAX}`);
  return encoded;
}

/** What the dialog's signature covers. */
export function mattermostDialogSignedText(context: MattermostDialogContext): string {
  return ["dialog", context.questionId, context.chat, context.channel, context.user].join("\n");
}

/** Never throws: anything off decodes to null. */
export function decodeMattermostDialogState(state: unknown): (MattermostDialogContext & { signature: string }) | null {
  if (typeof state !== "string" || state.length > MATTERMOST_STATE_MAX) return null;
  try {
    const { q, c, ch, u, s } = JSON.parse(state) as Record<string, unknown>;
    const fields = [q, c, ch, u, s];
    if (!fields.every((f): f is string => typeof f === "string" && f.length > 0)) return null;
    return { questionId: q as string, chat: c as string, channel: ch as string, user: u as string, signature: s as string };
  } catch {
    return null;
  }
}

/** The dialog for the bridge's modal request. The question itself is the help text (the label is short). */
export function renderMattermostOtherDialog(request: ModalRequest, state: string): MattermostDialog {
  return {
    callback_id: MATTERMOST_DIALOG_CALLBACK_ID,
    title: cut(request.title, MATTERMOST_DIALOG_TITLE_MAX),
    submit_label: "Submit",
    state,
    elements: [
      {
        type: "textarea",
        name: MATTERMOST_ANSWER_FIELD,
        display_name: cut(MODAL_LABEL_FALLBACK, MATTERMOST_DISPLAY_NAME_MAX),
        help_text: cut(request.label || MODAL_LABEL_FALLBACK, MATTERMOST_HELP_TEXT_MAX),
        optional: false,
        max_length: MATTERMOST_ANSWER_MAX_LENGTH,
      },
    ],
  };
}

/** The text typed into the dialog ("" when absent). */
export function mattermostDialogAnswer(submission: unknown): string {
  const value = (submission as Record<string, unknown> | null | undefined)?.[MATTERMOST_ANSWER_FIELD];
  return typeof value === "string" ? value : "";
}
