/**
 * Every platform's renderers, limits and escaping, re-exported under the names the bots and the tests use;
 * src/render/index.ts re-exports this file, so `import … from "src/render/index.ts"` finds them all.
 */
export { neutralizeBroadcastMentions } from "./kit/escaping.ts";
export { toTelegramText } from "./telegram/escaping.ts";
export { toDiscordContent } from "./discord/escaping.ts";
export { toSlackText, slackTextToPlain } from "./slack/escaping.ts";
export { toWhatsAppText } from "./whatsapp/escaping.ts";
export {
  WHATSAPP_ROW_ID_MAX,
  WHATSAPP_ROW_TITLE_MAX,
  WHATSAPP_ROW_DESCRIPTION_MAX,
  WHATSAPP_LIST_ROWS_MAX,
  WHATSAPP_LIST_BUTTON_MAX,
  WHATSAPP_INTERACTIVE_BODY_MAX,
  WHATSAPP_TEXT_MAX,
  WHATSAPP_GRAPH_VERSION,
} from "./whatsapp/platform.ts";
export { encodeWhatsAppRowId, decodeWhatsAppRowId } from "./whatsapp/callback-data.ts";
export {
  renderWhatsAppPrompt,
  renderWhatsAppMissingPrompt,
  renderWhatsAppSummary,
  whatsappText,
  WHATSAPP_LIST_BUTTON,
  type WhatsAppMessage,
  type WhatsAppTextMessage,
  type WhatsAppListMessage,
  type WhatsAppListRow,
} from "./whatsapp/payload.ts";
export { toMatrixText, toMatrixHtml } from "./matrix/escaping.ts";
export { MATRIX_POLL_ANSWERS_MAX, MATRIX_POLL_TEXT_MAX, MATRIX_ANSWER_ID_MAX, MATRIX_TEXT_MAX } from "./matrix/platform.ts";
export { encodeMatrixAnswerId, decodeMatrixAnswerId } from "./matrix/callback-data.ts";
export {
  renderMatrixPrompt,
  renderMatrixMissingPrompt,
  renderMatrixSummary,
  matrixMessage,
  matrixEditContent,
  matrixPollEndContent,
  MATRIX_POLL_START,
  MATRIX_POLL_END,
  MATRIX_POLL_RESPONSES,
  MATRIX_POLL_KIND_DISCLOSED,
  MATRIX_TEXT_BLOCK,
  MATRIX_HTML_FORMAT,
  type MatrixPrompt,
  type MatrixCopy,
  type MatrixMessageContent,
  type MatrixPollContent,
  type MatrixPollAnswer,
} from "./matrix/payload.ts";
export { TELEGRAM_CALLBACK_DATA_MAX_BYTES } from "./telegram/platform.ts";
export { DISCORD_CUSTOM_ID_MAX, DISCORD_BUTTON_LABEL_MAX, DISCORD_BUTTONS_PER_ROW } from "./discord/platform.ts";
export { SLACK_ACTION_ID_MAX, SLACK_BUTTON_TEXT_MAX } from "./slack/platform.ts";
export { encodeTelegramCallbackData, decodeTelegramCallbackData } from "./telegram/callback-data.ts";
export { encodeDiscordCustomId, decodeDiscordCustomId } from "./discord/callback-data.ts";
export { encodeSlackActionId, decodeSlackActionId } from "./slack/callback-data.ts";
export {
  renderTelegramPrompt,
  renderTelegramMissingPrompt,
  renderTelegramSummary,
  TELEGRAM_TEXT_MAX,
  type TelegramMessage,
  type TelegramInlineButton,
} from "./telegram/payload.ts";
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
} from "./discord/payload.ts";
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
} from "./slack/payload.ts";
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
} from "./discord/modal.ts";
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
} from "./slack/modal.ts";
export { toMattermostText } from "./mattermost/escaping.ts";
export { MATTERMOST_BUTTON_TEXT_MAX, MATTERMOST_CONTEXT_DATA_MAX, MATTERMOST_MESSAGE_MAX } from "./mattermost/platform.ts";
export { encodeMattermostCallback, decodeMattermostCallback } from "./mattermost/callback-data.ts";
export {
  renderMattermostPrompt,
  renderMattermostMissingPrompt,
  renderMattermostSummary,
  MATTERMOST_QUESTION_PROP,
  MATTERMOST_ACTIONS_PATH,
  MATTERMOST_DIALOG_PATH,
  type MattermostPost,
  type MattermostAttachment,
  type MattermostAction,
  type MattermostActionContext,
  type MattermostActionSigning,
  type MattermostRenderOptions,
} from "./mattermost/payload.ts";
export {
  renderMattermostOtherDialog,
  encodeMattermostDialogState,
  decodeMattermostDialogState,
  mattermostDialogSignedText,
  mattermostDialogAnswer,
  MATTERMOST_DIALOG_CALLBACK_ID,
  MATTERMOST_ANSWER_FIELD,
  MATTERMOST_DIALOG_TITLE_MAX,
  MATTERMOST_ANSWER_MAX_LENGTH,
  type MattermostDialog,
  type MattermostDialogContext,
} from "./mattermost/modal.ts";
export { toTeamsText, toTeamsCardText, teamsTextToPlain } from "./teams/escaping.ts";
export { TEAMS_CARD_ACTIONS_MAX, TEAMS_ACTION_TITLE_MAX, TEAMS_SUBMIT_DATA_MAX } from "./teams/platform.ts";
export { encodeTeamsSubmitData, decodeTeamsSubmitData } from "./teams/callback-data.ts";
export {
  renderTeamsPrompt,
  renderTeamsMissingPrompt,
  renderTeamsSummary,
  teamsChatKind,
  TEAMS_CARD_TEXT_MAX,
  TEAMS_ANSWER_MAX_LENGTH,
  TEAMS_INPUT_LABEL_MAX,
  TEAMS_ADAPTIVE_CARD_CONTENT_TYPE,
  TEAMS_CARD_VERSION,
  TEAMS_SUBMIT_FIELD,
  TEAMS_ANSWER_INPUT_ID,
  TEAMS_GROUP_CHAT_HINT,
  type TeamsChatKind,
  type TeamsCardOptions,
  type TeamsMessage,
  type TeamsAdaptiveCard,
  type TeamsAction,
  type TeamsSubmitAction,
  type TeamsShowCardAction,
  type TeamsTextBlock,
  type TeamsTextInput,
} from "./teams/payload.ts";
export { toEmailText, toEmailHtml, escapeEmailHtml } from "./email/escaping.ts";
export { EMAIL_SUBJECT_MAX, EMAIL_TEXT_MAX, EMAIL_INBOUND_MAX_BYTES, EMAIL_INBOUND_DEFAULT_PORT, EMAIL_IMAP_DEFAULT_POLL_SECONDS, normalizeAddress, parseImapUrl, type ImapMailbox } from "./email/platform.ts";
export {
  renderEmailPrompt,
  renderEmailReply,
  renderEmailCopy,
  emailLinkOf,
  promptSubject as emailPromptSubject,
  replySubject as emailReplySubject,
  answeredLate as emailAnsweredLate,
  EMAIL_OPTION_LINK_TEXT,
  EMAIL_QUESTION_LINK_TEXT,
  EMAIL_LINKS_GUIDANCE,
  EMAIL_LINKS_LINE,
  type EmailMessage,
} from "./email/payload.ts";
export { approvalShownWhole } from "./approval-views.ts";
export { telegramApprovalParts, type TelegramEntity, type TelegramUrlButton, type TelegramPromptOptions } from "./telegram/payload.ts";
export { discordApprovalParts, discordCodeBlock, DISCORD_BUTTON_STYLE_LINK, type DiscordLinkButton, type DiscordPromptOptions } from "./discord/payload.ts";
export {
  slackApprovalParts,
  slackCodeBlocks,
  SLACK_REVIEW_ACTION_ID,
  SLACK_BLOCKS_MAX,
  SLACK_APPROVAL_TEXT_MAX,
  type SlackUrlButton,
  type SlackRichTextBlock,
  type SlackPromptOptions,
} from "./slack/payload.ts";
export { whatsappApprovalParts, whatsappCodeBlock, type WhatsAppPromptOptions } from "./whatsapp/payload.ts";
export { mattermostApprovalParts, mattermostCodeBlock } from "./mattermost/payload.ts";
export { teamsApprovalParts, TEAMS_ACTIVITY_MAX_BYTES, type TeamsOpenUrlAction } from "./teams/payload.ts";
export { matrixApprovalParts, MATRIX_APPROVAL_CONTENT_MAX_BYTES, type MatrixPromptOptions } from "./matrix/payload.ts";
export { emailApprovalView } from "./email/payload.ts";
