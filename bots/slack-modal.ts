/** The Other… modal: one plain-text input; `private_metadata` says which question and chat it answers. */
import type { BridgeResponse } from "../src/bridge/index.ts";

export const OTHER_MODAL_CALLBACK_ID = "ask_user_other";
export const ANSWER_BLOCK_ID = "answer";
export const ANSWER_ACTION_ID = "answer";
/** Slack limits: a modal title is 24 characters, an input label 2000, private_metadata 3000. */
export const SLACK_MODAL_TITLE_MAX = 24;
export const SLACK_INPUT_LABEL_MAX = 2000;
export const SLACK_PRIVATE_METADATA_MAX = 3000;
export const ANSWER_MAX_LENGTH = 2000;
export const MODAL_FAILED_TEXT = "The answer form could not open. Reply in the prompt's thread with your own words instead.";

/** Where the modal was opened: the question, its target chat (`U…` for a DM) and the real channel. */
export interface ModalContext {
  questionId: string;
  chat: string;
  channel: string;
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function encodeModalMetadata(context: ModalContext): string {
  const encoded = JSON.stringify({ q: context.questionId, c: context.chat, ch: context.channel });
  if (encoded.length > SLACK_PRIVATE_METADATA_MAX) throw new Error(`private_metadata is ${encoded.length} characters, over ${SLACK_PRIVATE_METADATA_MAX}`);
  return encoded;
}

/** Never throws: anything off decodes to null. */
export function decodeModalMetadata(metadata: unknown): ModalContext | null {
  if (typeof metadata !== "string" || metadata.length > SLACK_PRIVATE_METADATA_MAX) return null;
  try {
    const { q, c, ch } = JSON.parse(metadata) as Record<string, unknown>;
    if (typeof q !== "string" || typeof c !== "string" || typeof ch !== "string" || !q || !c || !ch) return null;
    return { questionId: q, chat: c, channel: ch };
  } catch {
    return null;
  }
}

/** The views.open payload for the bridge's `openModal`. Plain text never notifies or links. */
export function renderOtherModal(open: NonNullable<BridgeResponse["openModal"]>, context: ModalContext) {
  return {
    type: "modal" as const,
    callback_id: OTHER_MODAL_CALLBACK_ID,
    private_metadata: encodeModalMetadata(context),
    title: { type: "plain_text" as const, text: cut(open.title, SLACK_MODAL_TITLE_MAX) },
    submit: { type: "plain_text" as const, text: "Submit" },
    close: { type: "plain_text" as const, text: "Cancel" },
    blocks: [
      {
        type: "input" as const,
        block_id: ANSWER_BLOCK_ID,
        label: { type: "plain_text" as const, text: cut(open.label || "Your answer", SLACK_INPUT_LABEL_MAX) },
        element: { type: "plain_text_input" as const, action_id: ANSWER_ACTION_ID, multiline: true, max_length: ANSWER_MAX_LENGTH },
      },
    ],
  };
}

/** The text typed into the modal ("" when absent). */
export function modalAnswer(values: Record<string, Record<string, { value?: string | null }>> | undefined): string {
  return values?.[ANSWER_BLOCK_ID]?.[ANSWER_ACTION_ID]?.value ?? "";
}
