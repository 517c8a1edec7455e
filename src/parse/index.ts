export { parseReply, type ParseOptions } from "./parse-reply.ts";
export { readValue } from "./read-value.ts";
export { looksLikeCredential, shannonEntropy, HIGH_ENTROPY_MIN_BITS, HIGH_ENTROPY_MIN_LENGTH } from "./credential.ts";
export { createKnownSecretMatcher, KNOWN_SECRET_MIN_LENGTH } from "./known-secrets.ts";
export { parseNumberForm } from "./number-form.ts";
export { createOptionMatcher, isSkipText, type OptionMatch, type OptionMatcher } from "./match-option.ts";
export { createKeyedLineReader, type KeyedLine } from "./keyed-line.ts";
export { isBlankText } from "../kernel/text.ts";
export { INVALID_MESSAGES } from "./messages.ts";
export type {
  ParseOutcome,
  AnsweredOutcome,
  PartialOutcome,
  SkipOutcome,
  InvalidOutcome,
  InvalidReason,
  ReadAs,
  ReadValue,
  ReadVia,
} from "../contract/parse-outcome.ts";
