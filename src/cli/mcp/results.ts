import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContractIssue } from "../../contract/normalize.ts";
import { formatIssues } from "../../contract/normalize.ts";
import { withOwnWords, type AskUserResult } from "../../contract/result.ts";
import { GatewayError } from "../../kernel/errors.ts";
import type { LateAnsweredRecord } from "../../client/index.ts";

/** What the result text needs to know about each question: its answer key and its header. */
export type QuestionHeaders = ReadonlyArray<{ id: string; header: string }>;

/**
 * One `Header: answer` line per question, or a sentence for a result without answers. `lateUntilMs`: the expired
 * question still takes a late answer until then, so the text says where to find one.
 */
export function resultToText(result: AskUserResult, questions: QuestionHeaders, lateUntilMs?: number): string {
  switch (result.status) {
    case "answered": {
      const answers = result.answers.answers;
      const known = new Set(questions.map((q) => q.id));
      const own = new Set(result.answeredBy?.ownWords ?? []);
      const lines = questions.filter((q) => answers[q.id]).map((q) => `${q.header}: ${answers[q.id]!.join(", ")}${own.has(q.id) ? " (in their own words)" : ""}`);
      for (const [id, values] of Object.entries(answers)) if (!known.has(id)) lines.push(`${id}: ${values.join(", ")}`);
      return lines.join("\n");
    }
    case "no_answer":
      return result.reason === "expired" && lateUntilMs !== undefined
        ? `No answer (expired). Continue with your best judgment. The person may still answer until ${new Date(lateUntilMs).toISOString()}: ask_user_late_answers returns such late answers.`
        : `No answer (${result.reason}). Continue with your best judgment.`;
    case "delivery_failed":
      return `The question could not be delivered: ${result.reason}. Continue with your best judgment.`;
  }
}

/** The final result, as text lines and as structured content (the result JSON). */
export function resultToToolResult(result: AskUserResult, questions: QuestionHeaders, extra: { id?: string } = {}, lateUntilMs?: number): CallToolResult {
  return {
    content: [{ type: "text", text: resultToText(result, questions, lateUntilMs) }],
    structuredContent: { ...result, ...extra },
  };
}

export function startedToToolResult(question: { id: string; expiresAtMs: number }): CallToolResult {
  const call = JSON.stringify({ id: question.id });
  return {
    content: [
      {
        type: "text",
        text: `Asked the user (question ${question.id}; it expires at ${new Date(question.expiresAtMs).toISOString()}). Call ask_user_wait with ${call} to get the answer.`,
      },
    ],
    structuredContent: { id: question.id, expiresAtMs: question.expiresAtMs },
  };
}

export function pendingToToolResult(id: string, note = ""): CallToolResult {
  return {
    content: [{ type: "text", text: `${note}No answer yet to question ${id}. Call ask_user_wait again with ${JSON.stringify({ id })}.` }],
    structuredContent: { status: "pending", id },
  };
}

export function toolError(text: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: "text", text }], ...(structuredContent ? { structuredContent } : {}) };
}

/** Invalid tool input: one `path: message` line per problem, so the model can fix every field at once. */
export function invalidInputToToolResult(tool: string, issues: ContractIssue[]): CallToolResult {
  return toolError(`${tool} input is invalid:\n${formatIssues(issues)}`, { status: "invalid_input", issues });
}

/** A gateway failure (or any other error) as a tool error with a clear text. */
export function errorToToolResult(tool: string, error: unknown, hint = ""): CallToolResult {
  if (error instanceof GatewayError) {
    if (error.issues?.length) return invalidInputToToolResult(tool, error.issues);
    return toolError(`${error.code}: ${error.message}${hint ? `. ${hint}` : ""}`, { status: "error", code: error.code, message: error.message });
  }
  const message = error instanceof Error ? error.message : String(error);
  return toolError(`${tool} failed: ${message}`, { status: "error", code: "INTERNAL", message });
}

/**
 * A finished task's statusMessage, from the result its tasks/result returns: the outcome in a few words, or the
 * error's text (invalid input names each field).
 */
export function resultToStatusMessage(result: CallToolResult): string {
  const outcome = result.structuredContent as { status?: string; reason?: string } | undefined;
  switch (outcome?.status) {
    case "answered":
      return "Answered.";
    case "no_answer":
      return `No answer (${outcome.reason}).`;
    case "delivery_failed":
      return `The question could not be delivered: ${outcome.reason}.`;
    default:
      return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  }
}

/** One late answer as ask_user_late_answers returns it. */
export interface LateAnswerEntry {
  id: string;
  questions: Array<{ id: string; header: string; question: string }>;
  answers: Record<string, string[]>;
  answeredBy: { surface: string; user?: string; via: string; ownWords?: string[] };
  answeredAtMs: number;
  /** When the question expired (and the agent heard no_answer). */
  expiredAtMs: number;
}

export function lateAnswerToEntry(record: LateAnsweredRecord): LateAnswerEntry {
  const { by } = record.lateAnswer;
  return {
    id: record.id,
    questions: record.questions.map((q) => ({ id: q.id, header: q.header, question: q.question })),
    answers: record.lateAnswer.answers,
    answeredBy: withOwnWords({ surface: by.surface, ...(by.user ? { user: by.user } : {}), via: by.via }, record.questions, record.lateAnswer.answers),
    answeredAtMs: record.lateAnswer.atMs,
    expiredAtMs: record.resolvedAtMs ?? record.expiresAtMs,
  };
}

/** The late answers since the last call: a paragraph of `Header: answer` lines each, and the entries as JSON. */
export function lateAnswersToToolResult(records: readonly LateAnsweredRecord[]): CallToolResult {
  const entries = records.map(lateAnswerToEntry);
  const text =
    entries.length === 0
      ? "No new late answers."
      : entries
          .map((entry, i) => {
            const record = records[i]!;
            const lines = resultToText({ status: "answered", answers: { answers: entry.answers } }, record.questions);
            const when = new Date(entry.answeredAtMs).toISOString();
            return `Question ${entry.id} ("${record.questions[0]?.question ?? ""}") expired, then was answered at ${when}:\n${lines}`;
          })
          .join("\n\n");
  return { content: [{ type: "text", text }], structuredContent: { lateAnswers: entries } };
}
