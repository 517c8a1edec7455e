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
} from "./tool.ts";
