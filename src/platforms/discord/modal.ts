/** The Discord Other… modal (interaction callback MODAL): one paragraph input, plain JSON. */
import { encodeDiscordCustomId } from "./callback-data.ts";
import { MODAL_LABEL_FALLBACK, type ModalRequest } from "../../render/modal-request.ts";

/** The custom_id of the modal's one text input. */
export const DISCORD_MODAL_INPUT_ID = "answer";
export const DISCORD_MODAL_TITLE_MAX = 45;
export const DISCORD_LABEL_MAX = 45;
export const DISCORD_TEXT_INPUT_MAX = 4000;
export const DISCORD_COMPONENT_LABEL = 18;
export const DISCORD_COMPONENT_TEXT_INPUT = 4;
export const DISCORD_TEXT_INPUT_STYLE_PARAGRAPH = 2;

export interface DiscordTextInput {
  type: typeof DISCORD_COMPONENT_TEXT_INPUT;
  custom_id: string;
  style: typeof DISCORD_TEXT_INPUT_STYLE_PARAGRAPH;
  required: true;
  max_length: number;
}

export interface DiscordLabel {
  type: typeof DISCORD_COMPONENT_LABEL;
  label: string;
  component: DiscordTextInput;
}

export interface DiscordModal {
  custom_id: string;
  title: string;
  components: DiscordLabel[];
}

/** The modal for Other…: its custom_id is the Other… button's, so the submission names the question. */
export function renderDiscordOtherModal(request: ModalRequest): DiscordModal {
  return {
    custom_id: encodeDiscordCustomId({ questionId: request.questionId, action: { kind: "other" } }),
    title: request.title.slice(0, DISCORD_MODAL_TITLE_MAX),
    components: [
      {
        type: DISCORD_COMPONENT_LABEL,
        label: request.label.slice(0, DISCORD_LABEL_MAX) || MODAL_LABEL_FALLBACK,
        component: {
          type: DISCORD_COMPONENT_TEXT_INPUT,
          custom_id: DISCORD_MODAL_INPUT_ID,
          style: DISCORD_TEXT_INPUT_STYLE_PARAGRAPH,
          required: true,
          max_length: DISCORD_TEXT_INPUT_MAX,
        },
      },
    ],
  };
}
