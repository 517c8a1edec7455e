/** What the Other… modal asks: the question it answers, a title and the one input's label. Plain data. */
export interface ModalRequest {
  questionId: string;
  title: string;
  label: string;
}

/** The input's label when the request has none. */
export const MODAL_LABEL_FALLBACK = "Your answer";
