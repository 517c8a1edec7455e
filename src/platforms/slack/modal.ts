/**
 * The Slack Other… modal (views.open): one plain-text input; `private_metadata` says which question and chat it
 * answers. Plain text never notifies or links. Encoding the metadata throws on a programmer error; decoding never
 * throws.
 */
import { MODAL_LABEL_FALLBACK, type ModalRequest } from "../../render/modal-request.ts";

export const SLACK_OTHER_MODAL_CALLBACK_ID = "ask_user_other";
export const SLACK_ANSWER_BLOCK_ID = "answer";
export const SLACK_ANSWER_ACTION_ID = "answer";
/** Slack limits: a modal title is 24 characters, an input label 2000, private_metadata 3000. */
export const SLACK_MODAL_TITLE_MAX = 24;
export const SLACK_INPUT_LABEL_MAX = 2000;
export const SLACK_PRIVATE_METADATA_MAX = 3000;
export const SLACK_ANSWER_MAX_LENGTH = 2000;

/** Where the modal was opened: the question, its target chat (`U…` for a DM) and the real channel. */
export interface SlackModalContext {
  questionId: string;
  chat: string;
  channel: string;
}

interface PlainText {
  type: "plain_text";
  text: string;
}

export interface SlackModalView {
  type: "modal";
  callback_id: string;
  private_metadata: string;
  title: PlainText;
  submit: PlainText;
  close: PlainText;
  blocks: Array<{
    type: "input";
    block_id: string;
    label: PlainText;
    element: { type: "plain_text_input"; action_id: string; multiline: true; max_length: number };
  }>;
}

/** A submitted view's state: block id → action id → the input's value. */
export type SlackViewValues = Record<string, Record<string, { value?: string | null }>>;

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const plain = (text: string): PlainText => ({ type: "plain_text", text });

export function encodeSlackModalMetadata(context: SlackModalContext): string {
  const encoded = JSON.stringify({ q: context.questionId, c: context.chat, ch: context.channel });
  if (encoded.length > SLACK_PRIVATE_METADATA_MAX) throw new Error(`private_metadata is ${encoded.length} characters, over ${SLACK_PRIVATE_METADATA_MAX}`);
  return encoded;
}

/** Never throws: anything off decodes to null. */
export function decodeSlackModalMetadata(metadata: unknown): SlackModalContext | null {
  if (typeof metadata !== "string" || metadata.length > SLACK_PRIVATE_METADATA_MAX) return null;
  try {
    const { q, c, ch } = JSON.parse(metadata) as Record<string, unknown>;
    if (typeof q !== "string" || typeof c !== "string" || typeof ch !== "string" || !q || !c || !ch) return null;
    return { questionId: q, chat: c, channel: ch };
  } catch {
    return null;
  }
}

/** The views.open payload for the bridge's modal request. */
export function renderSlackOtherModal(request: ModalRequest, context: SlackModalContext): SlackModalView {
  return {
    type: "modal",
    callback_id: SLACK_OTHER_MODAL_CALLBACK_ID,
    private_metadata: encodeSlackModalMetadata(context),
    title: plain(cut(request.title, SLACK_MODAL_TITLE_MAX)),
    submit: plain("Submit"),
    close: plain("Cancel"),
    blocks: [
      {
        type: "input",
        block_id: SLACK_ANSWER_BLOCK_ID,
        label: plain(cut(request.label || MODAL_LABEL_FALLBACK, SLACK_INPUT_LABEL_MAX)),
        element: { type: "plain_text_input", action_id: SLACK_ANSWER_ACTION_ID, multiline: true, max_length: SLACK_ANSWER_MAX_LENGTH },
      },
    ],
  };
}

/** The text typed into the modal ("" when absent). */
export function slackModalAnswer(values: SlackViewValues | undefined): string {
  return values?.[SLACK_ANSWER_BLOCK_ID]?.[SLACK_ANSWER_ACTION_ID]?.value ?? "";
}
