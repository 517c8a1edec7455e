/**
 * The answer page's approval (issue 35): the whole subject above the question (the agent and tool, the command
 * wrapped, the directory, each file's diff under its own heading with a +/− column and words for a screen reader,
 * every invisible character as a labelled mark), the edit box and its "Allow with changes" below it, and, once
 * answered, the version that was allowed. HTML strings, every value escaped: the subject is the agent's, so hostile.
 */
import type { QuestionRecord } from "../record/record.ts";
import { approvalSections, inputText, type ApprovalSection } from "../render/approval.ts";
import { escapeHtml } from "./html-escape.ts";
import { ALLOW_WITH_CHANGES, approvalHeading, DIFF_LINE_WORDS, diffLines, editableText, editLabel, textPieces } from "./approval-view.ts";

/** The edit box's id and the form field it posts; also the `qid` of an error about it. */
export const EDIT_FIELD = "approval-edit";
/** The action an "Allow with changes" button posts. */
export const ALLOW_EDITED_ACTION = "allow-edited";

/** Text with its invisible characters as labelled marks (a bordered span, named for a screen reader and on hover). */
export function markedHtml(text: string): string {
  return textPieces(text)
    .map((piece) => ("mark" in piece ? `<span class="mark" role="img" aria-label="${escapeHtml(piece.name)}" title="${escapeHtml(piece.name)}">${escapeHtml(piece.mark)}</span>` : escapeHtml(piece.text)))
    .join("");
}

function diffHtml(diff: string): string {
  return diffLines(diff)
    .map((line) => {
      const words = DIFF_LINE_WORDS[line.kind] ? `<span class="visually-hidden">${DIFF_LINE_WORDS[line.kind]}</span>` : "";
      const sign = line.kind === "hunk" || line.kind === "meta" ? "" : `<span class="diff-sign" aria-hidden="true">${escapeHtml(line.sign)}</span>`;
      return `<span class="diff-line diff-${line.kind}">${sign}${words}${markedHtml(line.text) || " "}</span>`;
    })
    .join("");
}

function sectionHtml(section: ApprovalSection): string {
  const body = section.kind === "diff" ? `<pre class="approval-code approval-diff">${diffHtml(section.text)}</pre>` : `<pre class="approval-code approval-${section.kind}">${markedHtml(section.text)}</pre>`;
  return `<h2 class="approval-part">${markedHtml(section.title)}</h2>\n${body}`;
}

/** The edited version, as it was allowed: the command alone where only the command could change, else the input. */
function editedHtml(record: QuestionRecord): string {
  const edit = record.approvalEdit;
  if (!edit || !record.approval) return "";
  const input = edit.input as Record<string, unknown> | null;
  const text = record.approval.editable === "command" && typeof input?.command === "string" ? input.command : inputText(edit.input);
  const title = record.approval.editable === "command" && typeof input?.command === "string" ? "Allowed with changes: the command run instead" : "Allowed with changes: the input used instead";
  return `\n<h2 class="approval-part approval-edited">${escapeHtml(title)}</h2>\n<pre class="approval-code approval-edited-text">${markedHtml(text)}</pre>`;
}

/** The whole subject, and the edited version once one was allowed; empty for a record that is no approval. */
export function approvalSubjectHtml(record: QuestionRecord): string {
  const subject = record.approval;
  if (!subject) return "";
  return `<section class="approval" aria-labelledby="approval-heading">
<h1 id="approval-heading">${markedHtml(approvalHeading(subject))}</h1>
${approvalSections(subject).map(sectionHtml).join("\n")}${editedHtml(record)}
</section>`;
}

/**
 * The edit box, prefilled with the command or the pretty JSON input (or what the person typed, when the page comes
 * back with an error); empty where the subject cannot be edited. The textarea's first line feed is one the HTML
 * parser drops, so a value that starts with a line break keeps it.
 */
export function editBoxHtml(record: QuestionRecord, typed: string | undefined, error: string | undefined): string {
  const subject = record.approval;
  const original = subject ? editableText(subject) : undefined;
  if (!subject || original === undefined) return "";
  const text = typed ?? original;
  const rows = Math.min(16, Math.max(3, text.split("\n").length + 1));
  const errorHtml = error ? `\n<p class="form-error" id="${EDIT_FIELD}-error" role="alert">${escapeHtml(error)}</p>` : "";
  const described = `${EDIT_FIELD}-hint${error ? ` ${EDIT_FIELD}-error` : ""}`;
  return `<div class="approval-edit">
<label for="${EDIT_FIELD}">${escapeHtml(editLabel(subject))}</label>
<p class="hint" id="${EDIT_FIELD}-hint">${escapeHtml(ALLOW_WITH_CHANGES)} allows your version instead. Left as it is, it is a plain Allow. Invisible characters stay as they are (marked above).</p>
<textarea id="${EDIT_FIELD}" name="${EDIT_FIELD}" class="approval-edit-text" rows="${rows}" spellcheck="false" autocapitalize="off" autocomplete="off" aria-describedby="${described}"${error ? ' aria-invalid="true"' : ""}>
${escapeHtml(text)}</textarea>${errorHtml}
</div>`;
}

/** The "Allow with changes" button, after the primary one (Enter in a text field presses the first). */
export function allowEditedButtonHtml(record: QuestionRecord): string {
  return record.approval && editableText(record.approval) !== undefined ? `\n<button type="submit" name="action" value="${ALLOW_EDITED_ACTION}" class="allow-edited">${escapeHtml(ALLOW_WITH_CHANGES)}</button>` : "";
}
