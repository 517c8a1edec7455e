/** The shared renderer: pure functions from question records to plain text and plain platform JSON. */
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
export { neutralizeBroadcastMentions } from "../platforms/kit/escaping.ts";
// Each platform's renderers, limits and escaping live in its folder under src/platforms; they are re-exported here so
// the bots and the tests find every renderer in one place.
export { toTelegramText } from "../platforms/telegram/escaping.ts";
export { toDiscordContent } from "../platforms/discord/escaping.ts";
export { toSlackText, slackTextToPlain } from "../platforms/slack/escaping.ts";
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
export { TELEGRAM_CALLBACK_DATA_MAX_BYTES } from "../platforms/telegram/platform.ts";
export { DISCORD_CUSTOM_ID_MAX, DISCORD_BUTTON_LABEL_MAX, DISCORD_BUTTONS_PER_ROW } from "../platforms/discord/platform.ts";
export { SLACK_ACTION_ID_MAX, SLACK_BUTTON_TEXT_MAX } from "../platforms/slack/platform.ts";
export { encodeTelegramCallbackData, decodeTelegramCallbackData } from "../platforms/telegram/callback-data.ts";
export { encodeDiscordCustomId, decodeDiscordCustomId } from "../platforms/discord/callback-data.ts";
export { encodeSlackActionId, decodeSlackActionId } from "../platforms/slack/callback-data.ts";
export {
  CALLBACK_DATA_VERSION,
  encodeCallbackData,
  decodeCallbackData,
  type PromptAction,
  type PromptCallback,
  type DecodeCallbackOptions,
} from "./callback-data.ts";
export {
  renderTelegramPrompt,
  renderTelegramMissingPrompt,
  renderTelegramSummary,
  TELEGRAM_TEXT_MAX,
  type TelegramMessage,
  type TelegramInlineButton,
} from "../platforms/telegram/payload.ts";
export {
  renderDiscordPrompt,
  renderDiscordMissingPrompt,
  renderDiscordSummary,
  DISCORD_CONTENT_MAX,
  DISCORD_COMPONENT_ACTION_ROW,
  DISCORD_COMPONENT_BUTTON,
  DISCORD_BUTTON_STYLE_PRIMARY,
  DISCORD_BUTTON_STYLE_SECONDARY,
  type DiscordMessage,
  type DiscordActionRow,
  type DiscordButton,
} from "../platforms/discord/payload.ts";
export {
  renderSlackPrompt,
  renderSlackMissingPrompt,
  renderSlackSummary,
  SLACK_SECTION_TEXT_MAX,
  SLACK_ACTIONS_BLOCK_ID_PREFIX,
  type SlackMessage,
  type SlackBlock,
  type SlackSectionBlock,
  type SlackActionsBlock,
  type SlackButton,
  type SlackMrkdwn,
  type SlackPlainText,
} from "../platforms/slack/payload.ts";
export { MODAL_LABEL_FALLBACK, type ModalRequest } from "./modal-request.ts";
export {
  renderDiscordOtherModal,
  DISCORD_MODAL_INPUT_ID,
  DISCORD_MODAL_TITLE_MAX,
  DISCORD_LABEL_MAX,
  DISCORD_TEXT_INPUT_MAX,
  DISCORD_COMPONENT_LABEL,
  DISCORD_COMPONENT_TEXT_INPUT,
  DISCORD_TEXT_INPUT_STYLE_PARAGRAPH,
  type DiscordModal,
  type DiscordLabel,
  type DiscordTextInput,
} from "../platforms/discord/modal.ts";
export {
  renderSlackOtherModal,
  encodeSlackModalMetadata,
  decodeSlackModalMetadata,
  slackModalAnswer,
  SLACK_OTHER_MODAL_CALLBACK_ID,
  SLACK_ANSWER_BLOCK_ID,
  SLACK_ANSWER_ACTION_ID,
  SLACK_MODAL_TITLE_MAX,
  SLACK_INPUT_LABEL_MAX,
  SLACK_PRIVATE_METADATA_MAX,
  SLACK_ANSWER_MAX_LENGTH,
  type SlackModalContext,
  type SlackModalView,
  type SlackViewValues,
} from "../platforms/slack/modal.ts";
