import { answersOf, dropDraft, loadDraft, saveDraft, valuesOf } from "./drafts.js";
import { h, rebuildKeepingFocus } from "./dom.js";
import { createGatewayLink } from "./gateway-link.js";
import { renderQuestionForm } from "./question-form.js";
import { renderEntry } from "./timeline.js";

/** How many recent records a (re)load brings back besides every pending one. */
const HISTORY_LIMIT = 500;
const WEB_BY = { surface: "web", via: "web" };
const TEXT_BY = { surface: "web", via: "text" };
const NEEDS_ANSWER = "Choose an option, or type your own answer.";
const narrowQuery = window.matchMedia("(max-width: 599.98px)");

const els = {
  status: document.getElementById("status"),
  timeline: document.getElementById("timeline"),
  panel: document.getElementById("panel"),
  qbar: document.getElementById("qbar"),
  composer: document.getElementById("composer"),
  composerText: document.getElementById("composer-text"),
  composerSend: document.getElementById("composer-send"),
};

const records = new Map();
const drafts = new Map();
const busy = new Set();
const errors = new Map();
const notes = new Map();
const entries = new Map();
let currentId = null;
let collapsed = sessionStorage.getItem("aub.collapsed") === "1";
let loaded = false;
let connection = "connecting";
let replying = false;
let panelSignature = "";

const isNarrow = () => narrowQuery.matches;
const byAge = (a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1);
const pendingRecords = () => [...records.values()].filter((r) => r.status === "pending").sort(byAge);
const currentRecord = () => (currentId ? records.get(currentId) : undefined);

function draftFor(record) {
  let draft = drafts.get(record.id);
  if (!draft) {
    draft = loadDraft(record);
    drafts.set(record.id, draft);
  }
  return draft;
}

/** Stores a record; a terminal record is final, so a late pending copy never replaces it. */
function upsert(record) {
  if (!record || typeof record.id !== "string" || !Array.isArray(record.questions)) return;
  const known = records.get(record.id);
  if (known && known.status !== "pending" && record.status === "pending") return;
  records.set(record.id, record);
  if (record.status !== "pending") {
    drafts.delete(record.id);
    dropDraft(record.id);
    errors.delete(record.id);
  }
}

function setCollapsed(value) {
  collapsed = value;
  sessionStorage.setItem("aub.collapsed", value ? "1" : "0");
}

function addNote(id, kind, text) {
  notes.set(id, [...(notes.get(id) ?? []), { kind, text }]);
}

// ---- rendering -------------------------------------------------------------------------------------------------

function render(focus) {
  const open = pendingRecords();
  if (!open.some((r) => r.id === currentId)) currentId = open[0]?.id ?? null;
  if (open.length === 0 && collapsed) setCollapsed(false);
  renderStatus();
  renderTimeline();
  renderDock(open, focus);
}

function renderStatus() {
  const text = { connecting: "Connecting…", open: "Live", reconnecting: "Reconnecting…", closed: "Offline", "signed-out": "Signed out" }[connection];
  els.status.textContent = text ?? connection;
  els.status.dataset.state = connection;
}

function renderTimeline() {
  const nearBottom = els.timeline.scrollHeight - els.timeline.scrollTop - els.timeline.clientHeight < 80;
  const narrow = isNarrow();
  const ordered = [...records.values()].sort(byAge);
  const children = [];
  let grew = false;
  for (const record of ordered) {
    const pending = record.status === "pending";
    const error = errors.get(record.id);
    const signature = [record.status, narrow, pending && narrow && busy.has(record.id), error?.text, error?.qid, notes.get(record.id)?.length, record.id === currentId].join("|");
    let entry = entries.get(record.id);
    if (!entry || entry.signature !== signature) {
      const build = () =>
        renderEntry(record, {
          card: pending && narrow ? stackedCard(record) : null,
          notes: notes.get(record.id) ?? [],
          isCurrent: record.id === currentId && !narrow,
          onOpen: () => openQuestion(record.id),
        });
      if (entry) {
        const old = entry.el;
        rebuildKeepingFocus(old.parentNode ?? old, () => {
          entry.el = build();
          old.replaceWith(entry.el);
        });
        entry.signature = signature;
      } else {
        entry = { el: build(), signature };
        entries.set(record.id, entry);
        grew = true;
      }
      if (!entry.el.isConnected) grew = true;
    }
    children.push(entry.el);
  }
  if (!loaded && children.length === 0) children.push(h("p", { class: "empty" }, "Connecting to the gateway…"));
  else if (children.length === 0) children.push(h("p", { class: "empty" }, "No questions yet. When an agent asks you something, it shows up here."));
  if (connection === "signed-out") {
    children.unshift(h("p", { class: "banner", role: "alert" }, "Your session has ended. ", h("a", { href: "/" }, "Sign in again")));
  }
  const same = children.length === els.timeline.children.length && children.every((el, i) => els.timeline.children[i] === el);
  if (!same) {
    // Move nodes only where needed, so the focused control in a card keeps its focus.
    children.forEach((el, i) => {
      if (els.timeline.children[i] !== el) els.timeline.insertBefore(el, els.timeline.children[i] ?? null);
    });
    while (els.timeline.children.length > children.length) els.timeline.lastElementChild.remove();
  }
  if (grew || nearBottom) els.timeline.scrollTop = els.timeline.scrollHeight;
}

function renderDock(open, focus) {
  const current = currentRecord();
  const narrow = isNarrow();
  const showPanel = Boolean(current) && !narrow && !collapsed;
  const showBar = Boolean(current) && !narrow && collapsed;
  els.panel.hidden = !showPanel;
  els.qbar.hidden = !showBar;
  els.composer.hidden = showPanel;
  document.body.classList.toggle("has-panel", showPanel);
  if (showPanel) renderPanel(current, open, focus);
  else {
    panelSignature = "";
    els.panel.replaceChildren();
  }
  if (showBar) renderBar(current, open);
  else els.qbar.replaceChildren();
  renderComposer(current);
}

function renderPanel(record, open, focus) {
  const draft = draftFor(record);
  const error = errors.get(record.id);
  const index = open.indexOf(record);
  const signature = [record.id, draft.step, index, open.length, busy.has(record.id), error?.text, error?.qid].join("|");
  if (signature !== panelSignature || focus) {
    panelSignature = signature;
    rebuildKeepingFocus(els.panel, () => {
      const top = h(
        "div",
        { class: "panel-top" },
        open.length > 1
          ? h(
              "div",
              { class: "pager" },
              h("button", { type: "button", class: "icon", "aria-label": "Previous question", disabled: index === 0, "data-key": "pager-prev", onclick: () => page(-1) }, "‹"),
              h("span", { class: "pager-label" }, `Question ${index + 1} of ${open.length}`),
              h("button", { type: "button", class: "icon", "aria-label": "Next question", disabled: index === open.length - 1, "data-key": "pager-next", onclick: () => page(1) }, "›"),
            )
          : h("span", { class: "panel-title" }, "The agent is asking"),
        h("button", { type: "button", class: "icon collapse", "aria-label": "Collapse question", title: "Collapse (Esc)", "aria-expanded": "true", "data-key": "collapse", onclick: collapse }, "▾"),
      );
      const form = renderQuestionForm({ record, draft, mode: "stepper", busy: busy.has(record.id), error, actions: stepperActions(record) });
      els.panel.replaceChildren(top, form);
    });
  }
  if (focus === "step") {
    const inputs = [...els.panel.querySelectorAll(".option input")];
    (inputs.find((input) => input.checked) ?? inputs[0])?.focus();
  } else if (focus === "submit") {
    els.panel.querySelector('[data-key="submit"]')?.focus();
  }
}

function renderBar(record, open) {
  const draft = draftFor(record);
  const q = record.questions[draft.step] ?? record.questions[0];
  const count = open.length > 1 ? `${open.indexOf(record) + 1} of ${open.length}` : record.questions.length > 1 ? `${record.questions.length} questions` : null;
  els.qbar.replaceChildren(
    h(
      "button",
      { type: "button", class: "qbar-open", title: "Show the question", "aria-expanded": "false", "data-key": "qbar", onclick: expand },
      h("span", { class: "chip" }, q.header),
      h("span", { class: "qbar-text" }, q.question),
      count ? h("span", { class: "qbar-count" }, count) : null,
      h("span", { class: "qbar-caret", "aria-hidden": "true" }, "▴"),
    ),
  );
}

function renderComposer(current) {
  const target = current ?? pendingRecords()[0];
  els.composerText.disabled = !target || replying;
  els.composerSend.disabled = !target || replying;
  els.composerText.placeholder = target
    ? `Reply to “${target.questions[0].header}”: a number, an option, your own words, or “skip”`
    : "No question is waiting for you.";
}

function stackedCard(record) {
  return renderQuestionForm({
    record,
    draft: draftFor(record),
    mode: "stacked",
    busy: busy.has(record.id),
    error: errors.get(record.id),
    actions: stackedActions(record),
  });
}

// ---- actions ---------------------------------------------------------------------------------------------------

function setError(record, error) {
  errors.set(record.id, error);
  render();
}

function clearError(record) {
  if (errors.delete(record.id)) render();
}

function isAnswered(q, draft) {
  return valuesOf(q, draft).length > 0;
}

function stepperActions(record) {
  const draft = draftFor(record);
  const last = record.questions.length - 1;
  const goTo = (step) => {
    draft.step = step;
    saveDraft(record.id, draft);
    errors.delete(record.id);
    render("step");
  };
  const next = () => {
    const q = record.questions[draft.step];
    if (!isAnswered(q, draft)) return setError(record, { qid: q.id, text: NEEDS_ANSWER });
    if (draft.step < last) goTo(draft.step + 1);
    else void submit(record);
  };
  return {
    changed: () => {
      saveDraft(record.id, draft);
      clearError(record);
    },
    chose: (_q, { advance }) => {
      saveDraft(record.id, draft);
      clearError(record);
      if (!advance) return;
      if (last === 0) void submit(record);
      else if (draft.step < last) goTo(draft.step + 1);
      else render("submit");
    },
    next,
    back: () => {
      if (draft.step > 0) goTo(draft.step - 1);
    },
    submit: () => void submit(record),
    skip: () => void resolve(record, { id: record.id, cancel: true, reason: "skipped", by: WEB_BY }),
  };
}

function stackedActions(record) {
  const draft = draftFor(record);
  return {
    changed: () => {
      saveDraft(record.id, draft);
      clearError(record);
    },
    chose: (q, { advance }) => {
      saveDraft(record.id, draft);
      clearError(record);
      if (advance && record.questions.length === 1 && !q.multiSelect) void submit(record);
    },
    next: () => void submit(record),
    back: () => {},
    submit: () => void submit(record),
    skip: () => void resolve(record, { id: record.id, cancel: true, reason: "skipped", by: WEB_BY }),
  };
}

async function submit(record) {
  const draft = draftFor(record);
  const missing = record.questions.findIndex((q) => !isAnswered(q, draft));
  if (missing >= 0) {
    draft.step = missing;
    saveDraft(record.id, draft);
    errors.set(record.id, { qid: record.questions[missing].id, text: NEEDS_ANSWER });
    render("step");
    return;
  }
  await resolve(record, { id: record.id, answers: answersOf(record, draft), by: WEB_BY });
}

async function resolve(record, params) {
  if (busy.has(record.id)) return;
  busy.add(record.id);
  errors.delete(record.id);
  render();
  try {
    upsert(await link.call("question.resolve", params));
  } catch (error) {
    if (error.code === "QUESTION_ALREADY_TERMINAL" || error.code === "QUESTION_NOT_FOUND") await refresh(record.id);
    else errors.set(record.id, { text: error.code === "DISCONNECTED" ? "Not connected. Your choices are kept: try again once the page reconnects." : error.message });
  } finally {
    busy.delete(record.id);
    render(isNarrow() ? undefined : "step");
  }
}

/** Re-reads one record (resolved elsewhere, or gone). */
async function refresh(id) {
  try {
    upsert(await link.call("question.get", { id }));
  } catch (error) {
    if (error.code === "QUESTION_NOT_FOUND") {
      records.delete(id);
      entries.get(id)?.el.remove();
      entries.delete(id);
    }
  }
}

function page(delta) {
  const open = pendingRecords();
  const next = open[open.findIndex((r) => r.id === currentId) + delta];
  if (next) {
    currentId = next.id;
    render("step");
  }
}

function collapse() {
  setCollapsed(true);
  render();
  els.composerText.focus();
}

function expand() {
  setCollapsed(false);
  render("step");
}

function openQuestion(id) {
  currentId = id;
  setCollapsed(false);
  render("step");
}

/** The composer's plain text goes through the same parser as a chat reply (question.reply). */
async function sendReply(event) {
  event.preventDefault();
  const text = els.composerText.value.trim();
  const record = currentRecord() ?? pendingRecords()[0];
  if (!text || !record || replying) return;
  replying = true;
  render();
  try {
    const outcome = await link.call("question.reply", { id: record.id, text, by: TEXT_BY });
    // An unreadable reply is not echoed: it may be something that must not be shown again (a credential).
    if (outcome.kind !== "invalid") {
      addNote(record.id, "you", text);
      els.composerText.value = "";
    }
    if (outcome.record) upsert(outcome.record);
    if (typeof outcome.readAs === "string" && outcome.readAs) addNote(record.id, "system", `Read as: ${outcome.readAs}`);
    if (outcome.kind === "partial") {
      const headers = (outcome.missing ?? []).map((qid) => record.questions.find((q) => q.id === qid)?.header ?? qid);
      addNote(record.id, "system", outcome.message ?? `Got it. Still needed: ${headers.join(", ")}.`);
    } else if (outcome.kind === "invalid") {
      addNote(record.id, "error", outcome.message ?? "That reply could not be read. Answer with a number, an option, or your own words.");
    }
    if (outcome.kind !== "partial" && outcome.kind !== "invalid") await refresh(record.id);
  } catch (error) {
    if (error.code === "QUESTION_ALREADY_TERMINAL") await refresh(record.id);
    else addNote(record.id, "error", error.code === "UNKNOWN_METHOD" ? "This gateway cannot read typed replies yet; use the question panel." : error.message);
  } finally {
    replying = false;
    render();
    els.composerText.focus();
  }
}

// ---- keyboard --------------------------------------------------------------------------------------------------

/** While the panel is open: number keys pick options, Enter advances, Escape collapses. */
function onKeydown(event) {
  if (els.panel.hidden || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
  const target = event.target;
  const typing = (target instanceof HTMLInputElement && target.type === "text") || target instanceof HTMLTextAreaElement;
  if (/^[1-9]$/.test(event.key) && !typing) {
    const input = els.panel.querySelectorAll(".option input")[Number(event.key) - 1];
    if (input && !input.disabled) {
      event.preventDefault();
      input.focus();
      input.click();
    }
  } else if (event.key === "Enter" && !event.shiftKey) {
    if (target instanceof HTMLButtonElement || target instanceof HTMLAnchorElement) return;
    if (typing && !els.panel.contains(target)) return;
    event.preventDefault();
    const record = currentRecord();
    if (record) stepperActions(record).next();
  } else if (event.key === "Escape") {
    event.preventDefault();
    collapse();
  }
}

// ---- the connection --------------------------------------------------------------------------------------------

/** After every (re)connection: every pending record, recent history, and a fresh look at anything we thought pending. */
async function resync() {
  try {
    const [open, recent] = await Promise.all([link.call("question.list", { status: "pending" }), link.call("question.list", { limit: HISTORY_LIMIT })]);
    const openIds = new Set(open.questions.map((r) => r.id));
    for (const record of [...recent.questions, ...open.questions]) upsert(record);
    const stale = [...records.values()].filter((r) => r.status === "pending" && !openIds.has(r.id));
    await Promise.all(stale.map((r) => refresh(r.id)));
    loaded = true;
    render();
  } catch (error) {
    if (error.code === "UNAUTHORIZED") link.stop("signed-out");
  }
}

const link = createGatewayLink({
  onOpen: () => void resync(),
  onEvent: (name, record) => {
    if (!name.startsWith("question.")) return;
    upsert(record);
    render();
  },
  onStatus: (status) => {
    connection = status;
    render();
  },
});

els.composer.addEventListener("submit", sendReply);
els.composerText.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    els.composer.requestSubmit();
  }
});
document.addEventListener("keydown", onKeydown);
narrowQuery.addEventListener("change", () => render());
window.addEventListener("online", () => link.nudge());
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") link.nudge();
});

render();
link.start();
