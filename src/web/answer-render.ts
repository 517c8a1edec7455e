/**
 * The answer page's HTML (issue 29 §2), rendered on the server so it works with JavaScript off: the question form
 * (radios, checkboxes for multi-select, descriptions, the own-words field, 1-3 questions), the ended state (the
 * shared summary), and the refusals. No inline script or style (the Control UI's policy); every value is escaped.
 */
import { LIMITS, type AskUserQuestion } from "../contract/schema.ts";
import type { QuestionRecord } from "../record/record.ts";
import { LATE_OPEN_SUMMARY, summarizeRecord } from "../render/summary.ts";
import { allowEditedButtonHtml, approvalSubjectHtml, EDIT_FIELD, editBoxHtml } from "./answer-approval.ts";
import { escapeHtml } from "./html-escape.ts";

export { escapeHtml };

/** What the person chose, per question id: option indexes and own words (kept when an answer is refused). */
export interface FormChoices {
  options: Map<string, number[]>;
  own: Map<string, string>;
}

export const noChoices = (): FormChoices => ({ options: new Map(), own: new Map() });

export interface FormView {
  record: QuestionRecord;
  csrf: string;
  choices: FormChoices;
  /** Opened from a per-option link: one Confirm button. */
  confirm: boolean;
  /** Expired, within its late window: a late answer, and no Skip. */
  late: boolean;
  /** A refused answer: the message, on its question (or on the approval's edit box, `EDIT_FIELD`) when known. */
  error?: { qid?: string; text: string };
  /** An approval's edit box as the person left it (the page came back with an error). */
  editText?: string;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} · ask-user-bridge</title>
<link rel="stylesheet" href="answer.css">
</head>
<body class="answer">
<main class="answer-card">
${body}
</main>
</body>
</html>
`;
}

function questionBlock(q: AskUserQuestion, qi: number, view: FormView): string {
  const chosen = new Set(view.choices.options.get(q.id) ?? []);
  const type = q.multiSelect ? "checkbox" : "radio";
  const options = q.options
    .map((option, oi) => {
      const desc = option.description ? `<span class="option-desc">${escapeHtml(option.description)}</span>` : "";
      return `<label class="option"><input type="${type}" name="a:${escapeHtml(q.id)}" value="${oi}"${chosen.has(oi) ? " checked" : ""}><span class="option-body"><span class="option-label">${escapeHtml(option.label)}</span>${desc}</span></label>`;
    })
    .join("\n");
  const ownId = `own-${qi}`;
  const error = view.error?.qid === q.id ? `\n<p class="form-error" role="alert">${escapeHtml(view.error.text)}</p>` : "";
  return `<fieldset class="question"${error ? ' aria-invalid="true"' : ""}>
<legend><span class="chip">${escapeHtml(q.header)}</span><span class="question-text">${escapeHtml(q.question)}</span></legend>
<p class="hint">${q.multiSelect ? "Choose any that apply, or type your own." : "Choose one, or type your own."}</p>
<div class="options" role="${q.multiSelect ? "group" : "radiogroup"}" aria-label="${escapeHtml(q.header)}">
${options}
</div>
<div class="other"><label for="${ownId}">Other</label><input id="${ownId}" type="text" name="own:${escapeHtml(q.id)}" maxlength="${LIMITS.answerMaxLength}" placeholder="Type your own answer" autocomplete="off" value="${escapeHtml(view.choices.own.get(q.id) ?? "")}"></div>${error}
</fieldset>`;
}

/** The form: the primary button first (Enter presses it), then Skip unless the answer is late or being confirmed. */
export function renderFormPage(view: FormView): string {
  const { record } = view;
  const general = view.error && !view.error.qid ? `<p class="form-error" role="alert">${escapeHtml(view.error.text)}</p>\n` : "";
  const note = view.late ? `<p class="note">${escapeHtml(LATE_OPEN_SUMMARY)}</p>\n` : view.confirm ? `<p class="note">Check your choice, then confirm.</p>\n` : "";
  // A per-option link's page has one button, Confirm; a late answer cannot be a skip.
  const skip = view.late || view.confirm ? "" : `\n<button type="submit" name="action" value="skip" class="skip">Skip</button>`;
  const title = record.questions.length === 1 ? record.questions[0]!.header : "Questions";
  return page(
    title,
    `${approvalSubjectHtml(record)}${record.approval ? "\n" : ""}${note}<form method="post" autocomplete="off">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
${record.questions.map((q, qi) => questionBlock(q, qi, view)).join("\n")}
${editBoxHtml(record, view.editText, view.error?.qid === EDIT_FIELD ? view.error.text : undefined)}
${general}<div class="actions">
<button type="submit" name="action" value="answer" class="primary">${view.confirm ? "Confirm" : "Submit"}</button>${allowEditedButtonHtml(record)}${skip}
</div>
</form>`,
  );
}

/** How the question ended, in the shared summary's words: answered by whom and what, skipped, expired, cancelled. */
export function renderEndedPage(record: QuestionRecord, nowMs: number, notice?: string): string {
  const summary = summarizeRecord(record, nowMs);
  const head = summary ? `${summary.icon} ${summary.text}` : "This question is no longer open.";
  const answers = summary?.answers
    ? `\n<ul class="summary-answers">\n${summary.answers.map((a) => `<li><span class="chip">${escapeHtml(a.header)}</span>${escapeHtml(a.text)}</li>`).join("\n")}\n</ul>`
    : "";
  const lead = notice ? `<p class="note" role="status">${escapeHtml(notice)}</p>\n` : "";
  const subject = record.approval ? `\n${approvalSubjectHtml(record)}` : "";
  return page(summary?.text ?? "Question", `${lead}<p class="summary" role="status">${escapeHtml(head)}</p>${answers}${subject}`);
}

/** A plain refusal: a forged or unknown link (never saying whether the question exists), a refused form post. */
export function renderMessagePage(heading: string, text: string): string {
  return page(heading, `<h1>${escapeHtml(heading)}</h1>\n<p class="note">${escapeHtml(text)}</p>`);
}
