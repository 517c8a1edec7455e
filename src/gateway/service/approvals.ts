/**
 * Approval questions (issue 35): the shape a question with an `approval` subject must have, and the rules an answer
 * to one must keep: Allow (or a grant) only where the whole request was shown, an edit only with Allow and only on a
 * surface that showed the editor.
 */
import type { AskUserQuestion } from "../../contract/schema.ts";
import { GatewayError } from "../../kernel/errors.ts";
import { approvalShownWhole } from "../../platforms/approval-views.ts";
import { MAX_APPROVAL_BYTES } from "../../protocol/methods.ts";
import type { ApprovalEdit, ApprovalSubject, QuestionRecord, ResolvedBy } from "../../record/record.ts";
import { ALLOW, APPROVAL_QUESTION_ID, approvingLabels, DENY, REVIEW_FIRST_REPLY } from "../../render/approval.ts";
import { SURFACES } from "../../contract/result.ts";

/**
 * The problems of an approval's questions: exactly one single-select question, id `approval`, whose options are
 * Allow, Deny, then each grant's label, in that order (a typed `2` is Deny on every approval).
 */
export function approvalQuestionIssues(questions: readonly AskUserQuestion[], approval: ApprovalSubject): Array<{ path: string; message: string }> {
  const expected = [ALLOW, DENY, ...(approval.grants ?? []).map((grant) => grant.label.trim())];
  const question = questions[0];
  if (questions.length !== 1 || question === undefined) return [{ path: "questions", message: "an approval asks exactly one question" }];
  const issues: Array<{ path: string; message: string }> = [];
  if (question.id !== APPROVAL_QUESTION_ID) issues.push({ path: "questions.0.id", message: `an approval's question has the id "${APPROVAL_QUESTION_ID}"` });
  if (question.multiSelect) issues.push({ path: "questions.0.multiSelect", message: "an approval's question is single-select" });
  const labels = question.options.map((option) => option.label);
  if (labels.length !== expected.length || labels.some((label, i) => label !== expected[i])) {
    issues.push({ path: "questions.0.options", message: `an approval's options are ${expected.map((label) => JSON.stringify(label)).join(", ")}, in that order (Allow, Deny, then approval.grants)` });
  }
  return issues;
}

const CHAT_SURFACES = new Set<string>(SURFACES.filter((surface) => surface !== "web"));
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks an answer to an approval, and returns the edit to record (undefined: none, or the same input unchanged).
 * REVIEW_REQUIRED: an approving option from a chat whose copy could not show the whole subject. Any record that is
 * not an approval takes no edit.
 */
export function checkApprovalAnswer(record: Pick<QuestionRecord, "id" | "questions" | "approval">, answers: Record<string, string[]>, by: ResolvedBy, edit: ApprovalEdit | undefined): ApprovalEdit | undefined {
  const subject = record.approval;
  if (subject === undefined) {
    if (edit !== undefined) throw new GatewayError("INVALID_PARAMS", `edit: question ${record.id} is not an approval`);
    return undefined;
  }
  const value = answers[APPROVAL_QUESTION_ID]?.[0];
  // The answer page (a chat target's Review… link: its surface, `via: "web"`) and the Control UI show it all; a
  // chat shows what its copy could carry.
  const inChat = CHAT_SURFACES.has(by.surface) && by.via !== "web";
  if (value !== undefined && approvingLabels(subject).includes(value) && inChat && !approvalShownWhole(record as QuestionRecord, by.surface as never)) {
    throw new GatewayError("REVIEW_REQUIRED", REVIEW_FIRST_REPLY);
  }
  if (edit === undefined) return undefined;
  if (value !== ALLOW) throw new GatewayError("INVALID_PARAMS", `edit: only an Allow takes an edited input (the answer is ${JSON.stringify(value ?? "")})`);
  if (inChat) throw new GatewayError("INVALID_PARAMS", `edit: an edited input is approved on the answer page or the Control UI, not from ${by.surface}`);
  return editedInput(subject, edit);
}

/** The edit as recorded: the whole edited input, checked against what `editable` allows; undefined when unchanged. */
function editedInput(subject: ApprovalSubject, edit: ApprovalEdit): ApprovalEdit | undefined {
  if (subject.editable === undefined) throw new GatewayError("INVALID_PARAMS", "edit: this approval's input cannot be edited (the agent takes it only as it is)");
  const input = edit.input;
  if (!isObject(input)) throw new GatewayError("INVALID_PARAMS", "edit.input: must be a JSON object");
  if (new TextEncoder().encode(JSON.stringify(input)).length > MAX_APPROVAL_BYTES) throw new GatewayError("INVALID_PARAMS", `edit.input: must be at most ${MAX_APPROVAL_BYTES} bytes`);
  if (subject.editable === "command") {
    const original = isObject(subject.input) ? subject.input : {};
    if (typeof input.command !== "string" || input.command.trim() === "") throw new GatewayError("INVALID_PARAMS", "edit.input.command: must be the edited command, not empty");
    const keys = new Set([...Object.keys(original), ...Object.keys(input)]);
    for (const key of keys) {
      if (key !== "command" && JSON.stringify(original[key]) !== JSON.stringify(input[key])) throw new GatewayError("INVALID_PARAMS", `edit.input.${key}: only the command may be edited here`);
    }
  }
  return JSON.stringify(input) === JSON.stringify(subject.input) ? undefined : { input };
}
