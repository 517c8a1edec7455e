import { h } from "./dom.js";
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
 * @property {() => void} skip
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
 * @param {{ record: QuestionRecord, draft: Draft, mode: "stepper" | "stacked", late?: boolean, busy: boolean, error: FormError | undefined, actions: FormActions }} form
 */
export function renderQuestionForm({ record, draft, mode, late = false, busy, error, actions }) {
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
  const generalError = error && !error.qid ? h("p", { class: "form-error", role: "alert" }, error.text) : null;

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
    blocks,
    generalError,
    h(
      "div",
      { class: "qform-actions" },
      late ? null : button("Skip", "skip", actions.skip),
      h("span", { class: "spacer" }),
      stepper && total > 1 ? button("Back", "back", actions.back, { disabled: draft.step === 0 }) : null,
      onLastStep ? button(busy ? "Sending…" : "Submit", "submit", actions.submit, { primary: true }) : button("Next", "next", actions.next, { primary: true }),
    ),
  );
}
