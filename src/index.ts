export { normalizeAskUserInput, formatIssues, type ContractIssue, type NormalizeResult } from "./contract/normalize.ts";
export {
  askUserInputSchema,
  askUserInputJsonSchema,
  questionSchema,
  optionSchema,
  LIMITS,
  QUESTION_ID_PATTERN,
  type AskUserInput,
  type AskUserInputRaw,
  type AskUserQuestion,
  type AskUserOption,
} from "./contract/schema.ts";
export {
  askUserResultSchema,
  answeredResult,
  ownWordsOf,
  noAnswerResult,
  NO_ANSWER_REASONS,
  SURFACES,
  type AskUserResult,
  type AnsweredResult,
  type NoAnswerResult,
  type DeliveryFailedResult,
  type InvalidInputResult,
  type NoAnswerReason,
  type AnsweredBy,
  type Surface,
} from "./contract/result.ts";
export {
  createAskUserTool,
  ASK_USER_DESCRIPTION,
  type AskUserTool,
  type AskFunction,
  type AskContext,
  type AskUserSession,
} from "./contract/tool.ts";
export { parseReply, looksLikeCredential, type ParseOutcome, type ReadAs, type ReadValue } from "./parse/index.ts";
export * as render from "./render/index.ts";
export {
  connectGateway,
  lateAnswers,
  type GatewayClient,
  type ConnectOptions,
  type LateAnswersFilter,
  type LateAnsweredRecord,
} from "./client/index.ts";
export { askUser, createGatewayAsk, type AskUserOptions } from "./client/sdk.ts";
export { requireApproval, type ApprovalRequest, type GrantOption, type RequireApprovalOptions } from "./coding-agents/approval.ts";
export { GatewayError, type ErrorCode } from "./kernel/errors.ts";
export { parseTarget, parseTargetList, formatTarget } from "./record/targets.ts";
export { loadConfig, ConfigError, type Config } from "./runtime/config.ts";
export {
  recordToResult,
  type QuestionRecord,
  type Target,
  type Delivery,
  type ResolvedBy,
  type QuestionStatus,
  type EscalationStep,
  type EscalationTaken,
  type ReminderSent,
  type ReminderCopy,
  type LateAnswer,
  type ApprovalSubject,
  type ApprovalChange,
  type ApprovalGrant,
  type ApprovalEdit,
} from "./record/record.ts";
export { optionLinkUrl, OPTION_LINK_PARAMS, type AnswerLink } from "./record/answer-links.ts";
export { createBridge, type Bridge, type InboundEvent, type BridgeResponse, type SurfaceAdapter } from "./bridge/index.ts";
