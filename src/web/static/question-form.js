import { EDIT_QID, renderApprovalSubject, renderEditBox } from "./approval.js";
import { h } from "./dom.js";
import { valuesOf } from "./drafts.js";
import { ALLOW_WITH_CHANGES } from "./shared.js";
/** @import { AskUserQuestion, QuestionRecord } from "./shared.js" */
/** @import { Draft } from "./drafts.js" */
/** @import { FormError } from "./state.js" */

/**
 * What a form's controls ask for; the caller decides what follows.
 * @typedef {object} FormActions
 * @property {() => void} changed A choice or the Other text changed.
 * @property {(question: AskUserQuestion, how: { advance: boolean }) => void} chose An option was chosen; `advance`: on purpose, not by arrow keys.
 * @property {() => void} next
 * @property {() => void} back
 * @property {() => void} submit
 * @property {() => void} skip Skips the whole prompt; with answers chosen, asks first (`confirmingSkip`), then skips.
 * @property {() => void} keepAnswers Closes that confirm step, keeping the answers.
 * @property {(text: string) => void} edited An approval's edit box changed.
 * @property {() => void} allowEdited "Allow with changes": Allow, with the edit box's version when it was changed.
 */

/**
 * Where the stepper is: "Question 2 of 3" in words (the legend, so a screen reader reads it with the question),
 * and a bar per question for the eye.
 * @param {number} index
 * @param {number} total
 */
function stepCounter(index, total) {
  const bars = Array.from({ length: total }, (_, i) => h("span", { class: i < index ? "done" : i === index ? "now" : "" }));
  return h("span", { class: "step" }, h("span", { class: "step-text" }, `Question ${index + 1} of ${total}`), h("span", { class: "step-bars", "aria-hidden": "true" }, bars));
}

/**
 * A pending record's questions as a form, either one question at a time ("stepper": the docked panel) or all
 * stacked ("stacked": the phone card). Choices are written into `draft` as they happen.
 * `late`: the question expired and takes a late answer, which cannot be a skip, so there is no Skip.
 * Skip skips the whole prompt, so with several questions it says so ("Skip all"); `confirmingSkip`: it was pressed
 * with answers chosen, and the actions row asks whether to discard them.
 * @param {{ record: QuestionRecord, draft: Draft, mode: "stepper" | "stacked", late?: boolean, confirmingSkip?: boolean, busy: boolean, error: FormError | undefined, actions: FormActions }} form
 */
export function renderQuestionForm({ record, draft, mode, late = false, confirmingSkip = false, busy, error, actions }) {
  const stepper = mode === "stepper";
  const total = record.questions.length;
  const last = total - 1;
  let arrowAt = -Infinity;

  /**
   * @param {AskUserQuestion} q
   * @param {number} qi
   */
  function questionBlock(q, qi) {
    const name = `${record.id}-${q.id}`;
    const chosen = new Set(draft.choices.get(q.id) ?? []);
    const other = h("input", {
      type: "text",
      class: "other-input",
      id: `${name}-other`,
      value: draft.other.get(q.id) ?? "",
      maxLength: 4000,
      placeholder: "Type your own answer",
      autocomplete: "off",
      disabled: busy,
      "data-key": `other:${q.id}`,
      oninput: () => {
        draft.other.set(q.id, other.value);
        if (!q.multiSelect && other.value.trim()) {
          draft.choices.set(q.id, []);
          for (const input of inputs) input.checked = false;
        }
        actions.changed();
      },
    });
    const inputs = q.options.map((option, oi) =>
      h("input", {
        type: q.multiSelect ? "checkbox" : "radio",
        name,
        value: option.label,
        checked: chosen.has(option.label),
        disabled: busy,
        "data-key": `option:${q.id}:${oi}`,
        /** @param {MouseEvent} event */
        onclick: (event) => {
          if (q.multiSelect) {
            const picked = new Set(inputs.filter((input) => input.checked).map((input) => input.value));
            draft.choices.set(q.id, q.options.map((o) => o.label).filter((label) => picked.has(label)));
            actions.changed();
            return;
          }
          draft.choices.set(q.id, [option.label]);
          draft.other.set(q.id, "");
          other.value = "";
          // Arrow keys move through a radio group without meaning "this one": only a real choice advances.
          actions.chose(q, { advance: event.timeStamp - arrowAt > 150 });
        },
      }),
    );
    const showError = error?.qid === q.id;
    return h(
      "fieldset",
      { class: "question", "data-qid": q.id, "aria-invalid": showError ? "true" : undefined },
      h(
        "legend",
        {},
        stepper && total > 1 ? stepCounter(qi, total) : null,
        h("span", { class: "chip" }, q.header),
        h("span", { class: "question-text" }, q.question),
      ),
      h("p", { class: "hint" }, q.multiSelect ? "Choose any that apply, or type your own." : "Choose one, or type your own."),
      h(
        "div",
        { class: "options", role: q.multiSelect ? "group" : "radiogroup", "aria-label": q.header },
        q.options.map((option, oi) =>
          h(
            "label",
            { class: "option" },
            inputs[oi],
            h("span", { class: "option-key", "aria-hidden": "true" }, String(oi + 1)),
            h(
              "span",
              { class: "option-body" },
              h("span", { class: "option-label" }, option.label),
              option.description ? h("span", { class: "option-desc" }, option.description) : null,
            ),
          ),
        ),
      ),
      h("div", { class: "other" }, h("label", { htmlFor: other.id }, "Other"), other),
      showError ? h("p", { class: "form-error", role: "alert" }, error.text) : null,
    );
  }

  const shown = stepper ? record.questions.slice(draft.step, draft.step + 1) : record.questions;
  const blocks = shown.map((q) => questionBlock(q, record.questions.indexOf(q)));
  /**
   * @param {string} label
   * @param {string} key
   * @param {() => void} onclick
   * @param {{ primary?: boolean, disabled?: boolean }} [look]
   */
  const button = (label, key, onclick, { primary = false, disabled = false } = {}) =>
    h("button", { type: "button", class: primary ? "primary" : "", disabled: busy || disabled, "data-key": key, onclick }, label);
  const onLastStep = !stepper || draft.step >= last;
  const editable = record.approval ? renderEditBox(record, { id: `${record.id}-${mode}-edit`, value: draft.edit, error: error?.qid === EDIT_QID ? error.text : undefined, busy, oninput: actions.edited }) : null;
  const generalError = error && !error.qid ? h("p", { class: "form-error", role: "alert" }, error.text) : null;
  const skipLabel = total > 1 ? "Skip all" : "Skip";
  // The stepper's buttons name the step they go to, so "Next" is never confused with the pager's "Next waiting question".
  const stepName = (/** @type {number} */ step) => `question ${step + 1} of ${total}`;
  const actionsRow =
    confirmingSkip && !late
      ? skipConfirm(record, draft, { busy, skipLabel, actions })
      : h(
          "div",
          { class: "qform-actions" },
          late ? null : button(skipLabel, "skip", actions.skip),
          h("span", { class: "spacer" }),
          stepper && total > 1
            ? withName(button("Back", "back", actions.back, { disabled: draft.step === 0 }), draft.step > 0 ? `Back: ${stepName(draft.step - 1)}` : "Back")
            : null,
          onLastStep
            ? button(busy ? "Sending…" : "Submit", "submit", actions.submit, { primary: true })
            : withName(button("Next", "next", actions.next, { primary: true }), `Next: ${stepName(draft.step + 1)}`),
          editable ? button(ALLOW_WITH_CHANGES, "allow-edited", actions.allowEdited) : null,
        );

  return h(
    "form",
    {
      class: `qform qform-${mode}`,
      novalidate: true,
      "aria-busy": busy ? "true" : "false",
      /** @param {SubmitEvent} event */
      onsubmit: (event) => {
        event.preventDefault();
        actions.next();
      },
      /** @param {KeyboardEvent} event */
      onkeydown: (event) => {
        if (event.key.startsWith("Arrow")) arrowAt = event.timeStamp;
      },
    },
    renderApprovalSubject(record),
    blocks,
    editable,
    generalError,
    actionsRow,
  );
}

/**
 * @param {HTMLElement} el
 * @param {string} name
 */
function withName(el, name) {
  el.setAttribute("aria-label", name);
  return el;
}

/**
 * In place of the actions row, once Skip was pressed with answers chosen: what skipping would discard, named, and
 * a choice between keeping them (the default, focused) and skipping. Part of the form, not a `window.confirm`: it
 * survives a redraw, and Escape keeps the answers.
 * @param {QuestionRecord} record
 * @param {Draft} draft
 * @param {{ busy: boolean, skipLabel: string, actions: FormActions }} options
 */
function skipConfirm(record, draft, { busy, skipLabel, actions }) {
  const chosen = record.questions.map((q) => ({ q, values: valuesOf(q, draft) })).filter((c) => c.values.length > 0);
  const total = record.questions.length;
  const titleId = `${record.id}-skip-title`;
  const textId = `${record.id}-skip-text`;
  return h(
    "div",
    {
      class: "skip-confirm",
      role: "alertdialog",
      "aria-labelledby": titleId,
      "aria-describedby": textId,
      /** @param {KeyboardEvent} event */
      onkeydown: (event) => {
        if (event.key !== "Escape") return;
        event.preventDefault();
        actions.keepAnswers();
      },
    },
    h("p", { class: "skip-confirm-title", id: titleId }, total > 1 ? `Skip all ${total} questions?` : "Skip this question?"),
    h(
      "p",
      { class: "skip-confirm-text", id: textId },
      `${chosen.length > 1 ? "The answers you chose" : "The answer you chose"} will be discarded: `,
      chosen.map(({ q, values }, i) => [i > 0 ? "; " : null, h("span", { class: "chip" }, q.header), ` ${values.join(", ")}`]).flat(),
      ". The agent hears that you skipped.",
    ),
    h(
      "div",
      { class: "qform-actions" },
      h("button", { type: "button", disabled: busy, "data-key": "skip-cancel", onclick: actions.keepAnswers }, "Keep my answers"),
      h("span", { class: "spacer" }),
      h("button", { type: "button", class: "danger", disabled: busy, "data-key": "skip-confirm", onclick: actions.skip }, `${skipLabel} and discard`),
    ),
  );
}
