import { expiryClock, reminderNote, showTimeLeftInTitle, timeBar } from "./countdown.js";
import { h, rebuildKeepingFocus } from "./dom.js";
import { ownValue } from "./drafts.js";
import { renderQuestionForm } from "./question-form.js";
import { summarizeRecord } from "./shared.js";
import { answerableRecords, busy, composerRecord, currentRecord, draftFor, errors, isAnswerable, notes, pendingRecords, records, recordsByAge, setCollapsed, ui } from "./state.js";
import { lateOpen, renderEntry } from "./timeline.js";
/** @import { QuestionRecord } from "./shared.js" */
/** @import { createActions } from "./actions.js" */
/** @import { LinkStatus } from "./gateway-link.js" */

/**
 * The page's parts, from index.html.
 * @typedef {{ status: HTMLElement, timeline: HTMLElement, panel: HTMLElement, qbar: HTMLElement, composer: HTMLFormElement, composerText: HTMLTextAreaElement, composerSend: HTMLButtonElement }} PageElements
 */
/**
 * Where a redraw puts the focus: the current step's option, the Submit button, or the composer.
 * @typedef {"step" | "submit" | "composer"} Focus
 */

/** @type {Record<LinkStatus, string>} */
const STATUS_TEXT = { connecting: "Connecting…", open: "Live", reconnecting: "Reconnecting…", closed: "Offline", "signed-out": "Signed out" };

/**
 * Draws the page from the state. Wide: the timeline, and a dock with the panel (expanded), or the slim bar over
 * the composer (collapsed). Narrow (`narrowQuery`): pending questions are stacked cards in the timeline.
 * Parts are rebuilt only when what they show changed, and the focused control survives a rebuild.
 * @param {{ els: PageElements, actions: ReturnType<typeof createActions>, narrowQuery: MediaQueryList }} page
 */
export function createView({ els, actions, narrowQuery }) {
  /** @type {Map<string, { el: HTMLElement, signature: string }>} */
  const entries = new Map();
  let panelSignature = "";
  /** The records the page offered to answer at its last render: one leaving its late window redraws the page. */
  let answerableKey = "";

  // On a phone the composer answers the card last touched (a tap, or the focus moving into it). Only the mark and
  // the placeholder change: nothing is rebuilt or scrolled under the finger.
  /** @param {Event} event */
  const touchedCard = (event) => {
    const card = event.target instanceof Element ? event.target.closest(".entry-card[data-id]") : null;
    const id = card instanceof HTMLElement ? card.dataset.id : undefined;
    if (!id || ui.cardId === id) return;
    ui.cardId = id;
    const target = composerRecord();
    for (const [entryId, entry] of entries) markReplyTarget(entry.el, entryId === replyTargetId(target));
    renderComposer(target);
  };
  els.timeline.addEventListener("focusin", touchedCard);
  els.timeline.addEventListener("pointerdown", touchedCard);

  /** @param {Focus} [focus] */
  function render(focus) {
    const now = Date.now();
    ui.narrow = narrowQuery.matches;
    const open = answerableRecords(now);
    answerableKey = open.map((r) => r.id).join(" ");
    if (!open.some((r) => r.id === ui.currentId)) ui.currentId = open[0]?.id ?? null;
    if (open.length === 0 && ui.collapsed) setCollapsed(false);
    els.status.textContent = STATUS_TEXT[ui.connection];
    els.status.dataset.state = ui.connection;
    showTimeLeftInTitle(pendingRecords(), now);
    renderTimeline(now);
    renderDock(open, focus);
  }

  /**
   * Every second: the title's time left, and a redraw when a late window closed (the controls go).
   * @param {number} now
   */
  function tick(now) {
    showTimeLeftInTitle(pendingRecords(), now);
    if (answerableRecords(now).map((r) => r.id).join(" ") !== answerableKey) render();
  }

  /** @param {number} now */
  function renderTimeline(now) {
    const { timeline } = els;
    const nearBottom = timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight < 80;
    const narrow = ui.narrow;
    const replyTarget = replyTargetId(composerRecord());
    let grew = false;
    for (const id of entries.keys()) if (!records.has(id)) entries.delete(id);
    const children = recordsByAge().map((record) => {
      const answerable = isAnswerable(record, now);
      const card = answerable && narrow;
      const error = errors.get(record.id);
      // Wide, the current question is in the dock (panel or bar), so its entry only points there.
      const isCurrent = !narrow && record.id === ui.currentId;
      const signature = [
        record.status,
        answerable,
        narrow,
        card && busy.has(record.id),
        error?.text,
        error?.qid,
        notes.get(record.id)?.length,
        isCurrent,
        record.remindersSent?.length,
        record.escalated?.length,
        record.lateAnswer?.atMs,
      ].join("|");
      const entry = entries.get(record.id);
      if (entry?.signature === signature) return markReplyTarget(entry.el, record.id === replyTarget);
      const el = renderEntry(record, {
        card: card ? renderQuestionForm({ record, draft: draftFor(record), mode: "stacked", late: record.status !== "pending", busy: busy.has(record.id), error, actions: actions.stacked(record) }) : null,
        notes: notes.get(record.id) ?? [],
        isCurrent,
        now,
        onOpen: () => actions.open(record.id),
      });
      if (entry?.el.isConnected) rebuildKeepingFocus(entry.el, () => entry.el.replaceWith(el));
      else grew = true;
      entries.set(record.id, { el, signature });
      return markReplyTarget(el, record.id === replyTarget);
    });
    if (ui.connection === "signed-out") {
      children.unshift(h("p", { class: "banner", role: "alert" }, "Your session has ended. ", h("a", { href: "/" }, "Sign in again")));
    } else if (children.length === 0) {
      children.push(h("p", { class: "empty" }, ui.loaded ? "No questions yet. When an agent asks you something, it shows up here." : "Connecting to the gateway…"));
    }
    // Move nodes only where needed, so a focused control in a card keeps its focus.
    children.forEach((el, i) => {
      if (timeline.children[i] !== el) timeline.insertBefore(el, timeline.children[i] ?? null);
    });
    while (timeline.children.length > children.length) timeline.lastElementChild?.remove();
    if (grew || nearBottom) timeline.scrollTop = timeline.scrollHeight;
  }

  /**
   * The card to mark as the one the composer answers: only on a phone, and only when there are several.
   * @param {QuestionRecord | undefined} target
   */
  function replyTargetId(target) {
    return ui.narrow && answerableRecords().length > 1 ? target?.id : undefined;
  }

  /**
   * With several cards on a phone, the one the composer answers is marked (its placeholder names it too).
   * @param {HTMLElement} el
   * @param {boolean} target
   */
  function markReplyTarget(el, target) {
    el.classList.toggle("entry-reply-target", target);
    return el;
  }

  /**
   * @param {QuestionRecord[]} open
   * @param {Focus} [focus]
   */
  function renderDock(open, focus) {
    const current = currentRecord();
    const wide = current !== undefined && !narrowQuery.matches;
    const showPanel = wide && !ui.collapsed;
    const showBar = wide && ui.collapsed;
    els.panel.hidden = !showPanel;
    els.qbar.hidden = !showBar;
    els.composer.hidden = showPanel;
    if (showPanel && current) renderPanel(current, open, focus);
    else {
      panelSignature = "";
      els.panel.replaceChildren();
    }
    if (showBar && current) renderBar(current, open);
    else els.qbar.replaceChildren();
    renderComposer(composerRecord());
    if (focus === "composer" && !els.composer.hidden) els.composerText.focus();
  }

  /**
   * @param {QuestionRecord} record
   * @param {QuestionRecord[]} open
   * @param {Focus} [focus]
   */
  function renderPanel(record, open, focus) {
    const draft = draftFor(record);
    const error = errors.get(record.id);
    const index = open.indexOf(record);
    const late = record.status !== "pending";
    const signature = [record.id, record.expiresAtMs, late, record.remindersSent?.length, draft.step, index, open.length, busy.has(record.id), error?.text, error?.qid].join("|");
    if (signature !== panelSignature || focus) {
      panelSignature = signature;
      rebuildKeepingFocus(els.panel, () => {
        const pager =
          open.length > 1
            ? h(
                "div",
                { class: "pager" },
                h("button", { type: "button", class: "icon", "aria-label": "Previous question", disabled: index === 0, "data-key": "pager-prev", onclick: () => actions.page(-1) }, "‹"),
                h("span", { class: "pager-label" }, `${index + 1} of ${open.length} waiting`),
                h("button", { type: "button", class: "icon", "aria-label": "Next question", disabled: index === open.length - 1, "data-key": "pager-next", onclick: () => actions.page(1) }, "›"),
              )
            : h("span", { class: "panel-title" }, "The agent is asking");
        const collapse = h(
          "button",
          { type: "button", class: "icon", "aria-label": "Collapse question", title: "Collapse (Esc)", "aria-expanded": "true", "data-key": "collapse", onclick: actions.collapse },
          "▾",
        );
        const form = renderQuestionForm({ record, draft, mode: "stepper", late, busy: busy.has(record.id), error, actions: actions.stepper(record) });
        const top = h("div", { class: "panel-top" }, pager, late ? null : reminderNote(record), late ? null : expiryClock(record.expiresAtMs), collapse);
        els.panel.replaceChildren(top, late ? lateNote(record) : timeBar(record), form);
      });
    }
    if (focus === "step") {
      const inputs = [.../** @type {NodeListOf<HTMLInputElement>} */ (els.panel.querySelectorAll(".option input"))];
      (inputs.find((input) => input.checked) ?? inputs[0])?.focus();
    } else if (focus === "submit") {
      /** @type {HTMLButtonElement | null} */ (els.panel.querySelector('[data-key="submit"]'))?.focus();
    }
  }

  /**
   * @param {QuestionRecord} record
   * @param {QuestionRecord[]} open
   */
  function renderBar(record, open) {
    const q = record.questions[draftFor(record).step] ?? record.questions[0];
    if (!q) return;
    const count = open.length > 1 ? `${open.indexOf(record) + 1} of ${open.length}` : record.questions.length > 1 ? `${record.questions.length} questions` : null;
    els.qbar.replaceChildren(
      h(
        "button",
        { type: "button", class: "qbar-open", title: "Show the question", "aria-expanded": "false", "data-key": "qbar", onclick: actions.expand },
        h("span", { class: "chip" }, q.header),
        h("span", { class: "qbar-text" }, q.question),
        count ? h("span", { class: "qbar-count" }, count) : null,
        // For the eye: inside the button, a ticking clock would change the button's name every second.
        record.status === "pending" ? withAttributes(expiryClock(record.expiresAtMs), { "aria-hidden": "true" }) : null,
        h("span", { class: "qbar-caret", "aria-hidden": "true" }, "▴"),
      ),
    );
  }

  /**
   * Above the form of a question that expired but still takes a late answer: the summary's own words.
   * @param {QuestionRecord} record
   */
  function lateNote(record) {
    const summary = summarizeRecord(record);
    return h("p", { class: "late-note" }, summary ? lateOpen(summary) : null);
  }

  /**
   * @param {HTMLElement} el
   * @param {Record<string, string>} attributes
   */
  function withAttributes(el, attributes) {
    for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
    return el;
  }

  /** @param {QuestionRecord | undefined} target */
  function renderComposer(target) {
    els.composerText.disabled = !target || ui.replying;
    els.composerSend.disabled = !target || ui.replying;
    if (!target) {
      els.composerText.placeholder = "No question is waiting for you.";
      return;
    }
    const open = target.questions.filter((q) => !ownValue(target.partialAnswers, q.id));
    // A late answer cannot skip: the agent already went on without one.
    const skip = target.status === "pending" ? ", or “skip”" : "";
    els.composerText.placeholder =
      open.length > 1
        ? `Reply: one line per question (${open.map((q) => q.header).join(", ")})${skip}`
        : `Reply to “${(open[0] ?? target.questions[0])?.header}”: a number, an option or your own words`;
  }

  return { render, tick };
}
