/**
 * The shared renderer: pure functions from question records to plain text, for every platform alike. Each platform's
 * own renderers, limits and escaping live in its folder (src/platforms/<platform>/), which its bot imports directly:
 * this file re-exports none of them, so the bridge and each bot load no other platform's payload or modal code.
 */
export { fitsButtons, type PromptLayout } from "./layout.ts";
export { chooseLayout, BUTTON_SURFACES } from "./choose-layout.ts";
export {
  renderPromptText,
  renderMissingPrompt,
  promptTextParts,
  missingPromptParts,
  OWN_WORDS_LINE,
  SKIP_LINE,
  SINGLE_GUIDANCE,
  MULTI_SELECT_GUIDANCE,
  SEVERAL_GUIDANCE,
  SEVERAL_MULTI_SELECT_MARK,
  BUTTONS_GUIDANCE,
  type PromptTextOptions,
} from "./prompt-text.ts";
export { replyHint, GROUP_REPLY_HINTS, type ChatKind, type ChatOptions } from "./reply-hint.ts";
export { promptButtons, OTHER_BUTTON_TEXT, SKIP_BUTTON_TEXT, type PromptButton } from "./prompt-buttons.ts";
export { cutToFit, fitPromptText, joinPromptText, type PromptText, type ToPlatformText } from "./text-width.ts";
export {
  renderSummary,
  summarizeRecord,
  SUMMARY_ICONS,
  type RecordSummary,
  type AnswerSummary,
  type SummaryKind,
  describeResolvedBy,
  formatAnswerValue,
  OWN_WORDS_SUMMARY_MAX,
  SKIPPED_SUMMARY,
  EXPIRED_SUMMARY,
  LATE_OPEN_SUMMARY,
  CANCELLED_SUMMARY,
  ABORTED_SUMMARY,
  NOT_DELIVERED_SUMMARY,
} from "./summary.ts";
export { recordedText } from "./recorded-text.ts";
export { formatTimeLeft, renderReminderText, renderReminderDone, REMINDER_ICON } from "./reminder.ts";
export {
  CALLBACK_DATA_VERSION,
  encodeCallbackData,
  decodeCallbackData,
  type PromptAction,
  type PromptCallback,
  type DecodeCallbackOptions,
} from "./callback-data.ts";
export { MODAL_LABEL_FALLBACK, type ModalRequest } from "./modal-request.ts";
export { answerLinkOf, approvalPromptParts, reviewLinkLine, type ApprovalPromptParts, type ApprovalFitOptions } from "./approval-prompt.ts";
