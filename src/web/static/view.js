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
 * Where a redraw puts the focus: the current step's option, the Submit button, the composer, or a record's Skip
 * button or the "Keep my answers" of its confirm step (in the panel, or in its card on a phone).
 * @typedef {"step" | "submit" | "composer" | { key: "skip" | "skip-cancel", id: string }} Focus
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
  /**
   * The timeline shows its newest entries: it follows them down unless the person scrolled up to read, and stays at
   * the bottom when the dock below it grows (a taller step, the panel opening) and takes its height.
   */
  let pinned = true;
  /** What the composer was last sized for (its placeholder, and whether it showed): a change sizes it again. */
  let composerFit = "";
  els.timeline.addEventListener("scroll", () => (pinned = fromBottom() < 40), { passive: true });
  new ResizeObserver(() => {
    if (pinned) scrollToEnd();
  }).observe(els.timeline);

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
    if (!open.some((r) => r.id === ui.confirmSkip)) ui.confirmSkip = null;
    if (open.length === 0 && ui.collapsed) setCollapsed(false);
    els.status.textContent = STATUS_TEXT[ui.connection];
    els.status.dataset.state = ui.connection;
    showTimeLeftInTitle(pendingRecords(), now);
    const grew = renderTimeline(now);
    renderDock(open, focus);
    // Scrolled once the dock has its new height, or the newest entries would sit under it.
    if (grew || pinned) scrollToEnd();
    const revealed = ui.reveal ? entries.get(ui.reveal)?.el : undefined;
    ui.reveal = null;
    if (revealed?.isConnected) reveal(revealed);
    if (typeof focus === "object") focusControl(focus);
  }

  function fromBottom() {
    const { timeline } = els;
    return timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight;
  }

  /**
   * Brings an entry's outcome (its last line) into sight, scrolling as little as needed: at the bottom already, the
   * timeline stays there, with the newest entries.
   * @param {HTMLElement} el
   */
  function reveal(el) {
    const box = el.getBoundingClientRect();
    const view = els.timeline.getBoundingClientRect();
    const gap = 12;
    if (box.bottom > view.bottom - gap) els.timeline.scrollTop += box.bottom - view.bottom + gap;
    else if (box.bottom < view.top + gap) els.timeline.scrollTop -= view.top - box.top + gap;
  }

  function scrollToEnd() {
    els.timeline.scrollTop = els.timeline.scrollHeight;
    pinned = true;
  }

  /**
   * A record's Skip, or its confirm step's "Keep my answers": in the panel when it shows that record, else in its card.
   * @param {{ key: string, id: string }} focus
   */
  function focusControl({ key, id }) {
    const scope = !els.panel.hidden && ui.currentId === id ? els.panel : entries.get(id)?.el;
    const control = scope?.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (control instanceof HTMLElement) control.focus();
  }

  /**
   * Every second: the title's time left, and a redraw when a late window closed (the controls go).
   * @param {number} now
   */
  function tick(now) {
    showTimeLeftInTitle(pendingRecords(), now);
    if (answerableRecords(now).map((r) => r.id).join(" ") !== answerableKey) render();
  }

  /**
   * @param {number} now
   * @returns {boolean} whether an entry was added
   */
  function renderTimeline(now) {
    const { timeline } = els;
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
        card && ui.confirmSkip === record.id,
      ].join("|");
      const entry = entries.get(record.id);
      if (entry?.signature === signature) return markReplyTarget(entry.el, record.id === replyTarget);
      const el = renderEntry(record, {
        card: card
          ? renderQuestionForm({
              record,
              draft: draftFor(record),
              mode: "stacked",
              late: record.status !== "pending",
              confirmingSkip: ui.confirmSkip === record.id,
              busy: busy.has(record.id),
              error,
              actions: actions.stacked(record),
            })
          : null,
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
    return grew;
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
    const confirmingSkip = ui.confirmSkip === record.id;
    const signature = [record.id, record.expiresAtMs, late, record.remindersSent?.length, draft.step, index, open.length, busy.has(record.id), error?.text, error?.qid, confirmingSkip].join("|");
    if (signature !== panelSignature || focus) {
      panelSignature = signature;
      rebuildKeepingFocus(els.panel, () => {
        const pager =
          open.length > 1
            ? h(
                "div",
                { class: "pager" },
                h("button", { type: "button", class: "icon", "aria-label": "Previous waiting question", disabled: index === 0, "data-key": "pager-prev", onclick: () => actions.page(-1) }, "‹"),
                h("span", { class: "pager-label" }, `${index + 1} of ${open.length} waiting`),
                h("button", { type: "button", class: "icon", "aria-label": "Next waiting question", disabled: index === open.length - 1, "data-key": "pager-next", onclick: () => actions.page(1) }, "›"),
              )
            : h("span", { class: "panel-title" }, "The agent is asking");
        const collapse = h(
          "button",
          { type: "button", class: "icon", "aria-label": "Collapse question", title: "Collapse (Esc)", "aria-expanded": "true", "data-key": "collapse", onclick: actions.collapse },
          "▾",
        );
        const form = renderQuestionForm({ record, draft, mode: "stepper", late, confirmingSkip, busy: busy.has(record.id), error, actions: actions.stepper(record) });
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
    const placeholder = composerPlaceholder(target);
    els.composerText.placeholder = placeholder;
    const fit = [placeholder, els.composer.hidden, ui.narrow].join("|");
    if (fit !== composerFit) {
      composerFit = fit;
      fitComposer();
    }
  }

  /**
   * What the composer's placeholder says (shorter on a phone, where it still wraps rather than being cut off).
   * @param {QuestionRecord | undefined} target
   */
  function composerPlaceholder(target) {
    if (!target) return "No question is waiting for you.";
    const open = target.questions.filter((q) => !ownValue(target.partialAnswers, q.id));
    // A late answer cannot skip: the agent already went on without one.
    const skip = target.status === "pending" ? ", or “skip”" : "";
    const headers = open.map((q) => q.header).join(", ");
    const header = `“${(open[0] ?? target.questions[0])?.header}”`;
    if (ui.narrow) return open.length > 1 ? `One line each: ${headers}${skip}` : `Reply to ${header}: a number or words`;
    return open.length > 1 ? `Reply: one line per question (${headers})${skip}` : `Reply to ${header}: a number, an option or your own words`;
  }

  /**
   * The composer grows with the reply (one line per question), up to the CSS max-height; empty, it is as tall as its
   * placeholder, which wraps like text, so none of it is cut off on a narrow screen.
   */
  function fitComposer() {
    const text = els.composerText;
    if (els.composer.hidden) return;
    text.style.height = "auto";
    let height = text.scrollHeight;
    if (!text.value && text.placeholder) {
      text.value = text.placeholder;
      height = text.scrollHeight;
      text.value = "";
    }
    // scrollHeight leaves out the border (the box is border-box).
    text.style.height = `${height + text.offsetHeight - text.clientHeight}px`;
  }

  return { render, tick, fitComposer };
}
