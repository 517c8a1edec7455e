import { h } from "./dom.js";
import { ALLOW_WITH_CHANGES, approvalHeading, approvalSections, DIFF_LINE_WORDS, diffLines, editableText, editLabel, inputText, textPieces } from "./shared.js";
/** @import { ApprovalSection, QuestionRecord } from "./shared.js" */

/** The FormError `qid` of a problem with an approval's edit box (no question id holds a colon). */
export const EDIT_QID = "approval:edit";

/**
 * An approval's subject in the Control UI (issue 35), built from the same pieces as the answer page
 * (src/web/approval-view.ts): text with every invisible character as a labelled mark, each file's diff under its own
 * heading with a +/− column and words for a screen reader. Nodes and text nodes only: nothing is parsed as HTML.
 */

/**
 * Text as nodes: plain runs, and each invisible character as a bordered mark named for a screen reader and on hover.
 * @param {string} text
 */
export function markedText(text) {
  return textPieces(text).map((piece) => ("mark" in piece ? h("span", { class: "mark", role: "img", "aria-label": piece.name, title: piece.name }, piece.mark) : piece.text));
}

/** @param {string} diff */
function diffNodes(diff) {
  return diffLines(diff).map((line) =>
    h(
      "span",
      { class: `diff-line diff-${line.kind}` },
      line.kind === "hunk" || line.kind === "meta" ? null : h("span", { class: "diff-sign", "aria-hidden": "true" }, line.sign),
      DIFF_LINE_WORDS[line.kind] ? h("span", { class: "visually-hidden" }, DIFF_LINE_WORDS[line.kind]) : null,
      line.text ? markedText(line.text) : " ",
    ),
  );
}

/** @param {ApprovalSection} section */
function sectionNodes(section) {
  return [
    h("h4", { class: "approval-part" }, markedText(section.title)),
    h("pre", { class: `approval-code approval-${section.kind}` }, section.kind === "diff" ? diffNodes(section.text) : markedText(section.text)),
  ];
}

/**
 * The whole subject, then the version allowed with changes once there is one.
 * @param {QuestionRecord} record
 */
export function renderApprovalSubject(record) {
  const subject = record.approval;
  if (!subject) return null;
  const edit = record.approvalEdit;
  const input = /** @type {Record<string, unknown> | null} */ (edit?.input ?? null);
  const commandOnly = subject.editable === "command" && typeof input?.command === "string";
  return h(
    "section",
    { class: "approval", "aria-label": approvalHeading(subject) },
    h("h3", { class: "approval-heading" }, markedText(approvalHeading(subject))),
    approvalSections(subject).flatMap(sectionNodes),
    edit
      ? [
          h("h4", { class: "approval-part approval-edited" }, commandOnly ? "Allowed with changes: the command run instead" : "Allowed with changes: the input used instead"),
          h("pre", { class: "approval-code approval-edited-text" }, markedText(commandOnly ? String(input?.command) : inputText(edit.input))),
        ]
      : null,
  );
}

/**
 * The edit box (issue 35 §3): the command, or the input as pretty JSON, to change before "Allow with changes".
 * Null where the subject cannot be edited.
 * @param {QuestionRecord} record
 * @param {{ id: string, value: string | undefined, error: string | undefined, busy: boolean, oninput: (text: string) => void }} box
 */
export function renderEditBox(record, { id, value, error, busy, oninput }) {
  const subject = record.approval;
  const original = subject ? editableText(subject) : undefined;
  if (!subject || original === undefined) return null;
  const text = value ?? original;
  const area = h("textarea", {
    id,
    class: "approval-edit-text",
    rows: Math.min(12, Math.max(3, text.split("\n").length + 1)),
    spellcheck: false,
    autocomplete: "off",
    disabled: busy,
    "data-key": "approval-edit",
    "aria-describedby": `${id}-hint${error ? ` ${id}-error` : ""}`,
    "aria-invalid": error ? "true" : undefined,
    oninput: () => oninput(area.value),
  });
  area.value = text;
  return h(
    "div",
    { class: "approval-edit" },
    h("label", { htmlFor: id }, editLabel(subject)),
    h("p", { class: "hint", id: `${id}-hint` }, `${ALLOW_WITH_CHANGES} allows your version instead. Left as it is, it is a plain Allow. Invisible characters stay as they are (marked above).`),
    area,
    error ? h("p", { class: "form-error", id: `${id}-error`, role: "alert" }, error) : null,
  );
}
