/**
 * What the web Control UI runs from the server's own code, never a copy of it: scripts/build.mjs bundles this module
 * for the browser into src/web/static/shared.js, and src/web/static/shared.d.ts gives the page its types from here.
 * Only pure modules belong here. A value import that reaches zod, `ws` or Node would be bundled into the page
 * (test/web/web-shared.test.ts checks the bundle stays small and free of them); `export type` costs nothing.
 */
export { recordedText } from "../render/recorded-text.ts";
export { isStaleCopy } from "../record/freshness.ts";
export { summarizeRecord, SUMMARY_ICONS, type AnswerSummary, type RecordSummary, type SummaryKind } from "../render/summary.ts";
export { acceptsLateAnswer } from "../record/late-window.ts";
export { REMINDER_ICON } from "../render/reminder.ts";
export { recordHistory, reminderMarks, type HistoryLine, type ReminderMark } from "./record-history.ts";
export { backoffDelay } from "../kernel/backoff.ts";
export { createPendingCalls, parseFrame } from "../client/pending-calls.ts";
export { listAll, listPages, type CallMethod } from "../client/list-pages.ts";
export { GatewayError, type ErrorBody, type ErrorCode } from "../kernel/errors.ts";
export type { ReadAs } from "../parse/index.ts";
export { approvalSections, inputText, type ApprovalSection } from "../render/approval.ts";
export { ALLOW_WITH_CHANGES, approvalAnswer, approvalHeading, DIFF_LINE_WORDS, diffLines, editableText, editLabel, editRefusal, textPieces, type ApprovalAnswer, type DiffLine, type TextPiece } from "./approval-view.ts";
export type { ApprovalSubject, QuestionRecord, ResolvedBy } from "../record/record.ts";
export type { AskUserOption, AskUserQuestion } from "../contract/schema.ts";
