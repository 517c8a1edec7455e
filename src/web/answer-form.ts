/** The answer page's posted form, read into answers (validated by the service afterwards), and its refusals in words. */
import { GatewayError } from "../kernel/errors.ts";
import { looksLikeCredential } from "../parse/index.ts";
import type { ApprovalEdit, QuestionRecord } from "../record/record.ts";
import { ALLOW_EDITED_ACTION, EDIT_FIELD } from "./answer-approval.ts";
import type { FormChoices } from "./answer-render.ts";
import { approvalAnswer, editableText, editRefusal } from "./approval-view.ts";

const NEEDS_ANSWER = "Choose an option, or type your own answer.";
const NOT_AN_OPTION = "That choice is not one of this question's options.";
const CREDENTIAL_REFUSED = "That looks like a password, key or token, so it was not recorded. Use the secrets flow for credentials.";

/**
 * What the form says, per question: the checked options (`a:<id>`, by index) and the own words (`own:<id>`), and the
 * answers they make (labels as authored, then the own words). A single-select question with both an option and own
 * words gets both, so the service refuses it as two values; the service also finds a question with nothing. Own words
 * that look like a credential are never kept for showing again. `problem`: a forged option index.
 */
export function choicesFromForm(record: QuestionRecord, form: URLSearchParams): FormChoices & { answers: Record<string, string[]>; problem?: { qid: string; text: string } } {
  const choices: FormChoices = { options: new Map(), own: new Map() };
  const answers: Record<string, string[]> = {};
  let problem: { qid: string; text: string } | undefined;
  for (const q of record.questions) {
    const picked = form.getAll(`a:${q.id}`);
    const indexes = [...new Set(picked.filter((v) => /^[0-9]$/.test(v)).map(Number))].filter((i) => i < q.options.length).sort((a, b) => a - b);
    const own = (form.get(`own:${q.id}`) ?? "").trim();
    choices.options.set(q.id, indexes);
    if (own && !looksLikeCredential(own)) choices.own.set(q.id, own);
    answers[q.id] = [...indexes.map((i) => q.options[i]!.label), ...(own ? [own] : [])];
    if (problem) continue;
    if (indexes.length !== picked.length) problem = { qid: q.id, text: NOT_AN_OPTION };
  }
  return { ...choices, answers, ...(problem ? { problem } : {}) };
}

/** A refused answer in the page's words, on its question when the service names it; undefined when it is no refusal. */
export function refusalOf(record: QuestionRecord, error: GatewayError): { qid?: string; text: string } | undefined {
  const edit = editRefusal(error);
  if (edit !== undefined) return { qid: EDIT_FIELD, text: edit };
  if (error.code === "REVIEW_REQUIRED") return { text: error.message };
  if (error.code !== "QUESTION_INVALID_ANSWER" && error.code !== "CREDENTIAL_REFUSED") return undefined;
  const issue = (error.issues ?? []).find((i) => typeof i.path === "string" && i.path.startsWith("answers."));
  const q = issue && record.questions.find((question) => `answers.${question.id}` === issue.path);
  if (error.code === "CREDENTIAL_REFUSED") return q ? { qid: q.id, text: CREDENTIAL_REFUSED } : { text: CREDENTIAL_REFUSED };
  const text = issue ? String(issue.message) : error.message;
  const sentence = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  if (!q) return { text: sentence };
  if (/single-select/.test(text)) return { qid: q.id, text: "Choose one option or type your own answer, not both." };
  return { qid: q.id, text: /needs at least one value/.test(text) ? NEEDS_ANSWER : sentence };
}

/**
 * An approval's edit box read with the rest of the form (`approvalAnswer`: the one rule both surfaces follow): the
 * answers and the edit to send, or a problem on the box. `text`: the box as posted, to show again on an error.
 */
export function approvalFromForm(
  record: QuestionRecord,
  form: URLSearchParams,
  answers: Record<string, string[]>,
): { answers: Record<string, string[]>; edit?: ApprovalEdit; problem?: { qid: string; text: string }; text?: string } {
  const subject = record.approval;
  const posted = form.get(EDIT_FIELD);
  if (!subject || editableText(subject) === undefined || posted === null) return { answers };
  const text = posted.replace(/\r\n?/gu, "\n");
  const outcome = approvalAnswer(subject, answers, posted, form.get("action") === ALLOW_EDITED_ACTION);
  if ("problem" in outcome) return { answers, problem: { qid: EDIT_FIELD, text: outcome.problem }, text };
  return { ...outcome, text };
}
