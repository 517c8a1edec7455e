import { dropDraft, loadDraft, mergeHeldAnswers, saveDraft, valuesOf } from "./drafts.js";
import { acceptsLateAnswer, isStaleCopy } from "./shared.js";
/** @import { AskUserQuestion, QuestionRecord } from "./shared.js" */
/** @import { Draft } from "./drafts.js" */
/** @import { LinkStatus } from "./gateway-link.js" */

/**
 * Why the last answer was not taken, pinned to a question when `qid` says which.
 * @typedef {{ text: string, qid?: string }} FormError
 */
/**
 * One of this page's own replies ("you") and what became of it.
 * @typedef {{ kind: "you" | "system" | "error", text: string }} Note
 */

/**
 * The page's state: the records it knows, and what the person is doing with them. One page, one state.
 * @type {Map<string, QuestionRecord>}
 */
export const records = new Map();
/** @type {Map<string, Draft>} */
export const drafts = new Map();
/**
 * Record ids with a resolve in flight.
 * @type {Set<string>}
 */
export const busy = new Set();
/**
 * Record id → why the last answer was not taken.
 * @type {Map<string, FormError>}
 */
export const errors = new Map();
/**
 * Record id → this page's own replies and their outcomes.
 * @type {Map<string, Note[]>}
 */
export const notes = new Map();
export const ui = {
  /**
   * The pending record shown in the panel (or bar).
   * @type {string | null}
   */
  currentId: null,
  collapsed: sessionStorage.getItem("aub.collapsed") === "1",
  /** True once the first question.list came back. */
  loaded: false,
  /** @type {LinkStatus} */
  connection: "connecting",
  replying: false,
  /** A phone-sized viewport: pending questions are cards in the timeline, and there is no panel. */
  narrow: false,
  /**
   * On a phone, the card the person last touched: the composer answers it (by default, the newest card, which sits
   * right above the composer).
   * @type {string | null}
   */
  cardId: null,
  /**
   * The record whose Skip waits for a yes: answers were chosen, and skipping would discard them.
   * @type {string | null}
   */
  confirmSkip: null,
  /**
   * A record this page just resolved: the next redraw scrolls its summary into view.
   * @type {string | null}
   */
  reveal: null,
};

/**
 * @param {QuestionRecord} a
 * @param {QuestionRecord} b
 */
const byAge = (a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1);
export const recordsByAge = () => [...records.values()].sort(byAge);
export const pendingRecords = () => recordsByAge().filter((r) => r.status === "pending");
/**
 * True while the person can still answer: pending, or expired within its late window (issue 20 §3: the agent
 * heard no_answer, and will get the late answer).
 * @param {QuestionRecord} record
 * @param {number} [now]
 */
export const isAnswerable = (record, now = Date.now()) => record.status === "pending" || acceptsLateAnswer(record, now);
/**
 * Soonest deadline first: a pending record's expiry, a late one's end of window; a tie goes to the older record,
 * then to the smaller id, so two pages (or two reloads) always agree on the order.
 * @param {QuestionRecord} a
 * @param {QuestionRecord} b
 */
const byDeadline = (a, b) => deadlineOf(a) - deadlineOf(b) || byAge(a, b);
/** @param {QuestionRecord} record */
const deadlineOf = (record) => (record.status === "pending" ? record.expiresAtMs : (record.lateUntilMs ?? record.expiresAtMs));
/**
 * What the page offers to answer, in the order the panel's pager walks it: the pending records, the one that expires
 * soonest first, then those still taking a late answer, the window closing soonest first (they wait anyway: the
 * agent already went on without an answer). Every record has an expiry, so the order is total (ties: `byDeadline`).
 * @param {number} [now]
 */
export function answerableRecords(now = Date.now()) {
  const all = [...records.values()];
  const pending = all.filter((r) => r.status === "pending").sort(byDeadline);
  const late = all.filter((r) => r.status !== "pending" && isAnswerable(r, now)).sort(byDeadline);
  return [...pending, ...late];
}
export const currentRecord = () => (ui.currentId ? records.get(ui.currentId) : undefined);
/**
 * The record a reply typed in the composer answers, which its placeholder names: the panel's (or the bar's) on a
 * wide page; on a phone, the card last touched, else the newest card, the one just above the composer.
 * @returns {QuestionRecord | undefined}
 */
export function composerRecord() {
  if (ui.narrow) {
    const cards = recordsByAge().filter((r) => isAnswerable(r));
    return cards.find((r) => r.id === ui.cardId) ?? cards[cards.length - 1];
  }
  const open = answerableRecords();
  return open.find((r) => r.id === ui.currentId) ?? open[0];
}
/**
 * @param {AskUserQuestion} question
 * @param {Draft} draft
 */
export const isAnswered = (question, draft) => valuesOf(question, draft).length > 0;

/**
 * @param {QuestionRecord} record
 * @returns {Draft}
 */
export function draftFor(record) {
  let draft = drafts.get(record.id);
  if (!draft) {
    draft = loadDraft(record);
    drafts.set(record.id, draft);
  }
  return draft;
}

/**
 * Stores a record from the gateway; a terminal record is final, so a late pending copy never replaces it.
 * @param {unknown} value
 */
export function upsert(value) {
  const record = /** @type {Partial<QuestionRecord> | null | undefined} */ (value);
  if (!record || typeof record.id !== "string" || !Array.isArray(record.questions)) return;
  store(/** @type {QuestionRecord} */ (record));
}

/** @param {QuestionRecord} record */
function store(record) {
  const known = records.get(record.id);
  // A late answer is final too: an expired copy without it (a list response crossing the event) never reopens it.
  if (isStaleCopy(known, record) || (known?.lateAnswer && !record.lateAnswer)) return;
  records.set(record.id, record);
  const draft = drafts.get(record.id);
  const answerable = isAnswerable(record);
  if (draft && answerable && record.partialAnswers) {
    // A partial typed reply was held: show those answers, and move on to the first question still open.
    mergeHeldAnswers(record, draft);
    const step = record.questions[draft.step];
    if (step && isAnswered(step, draft)) {
      const open = record.questions.findIndex((q) => !isAnswered(q, draft));
      if (open >= 0) draft.step = open;
    }
    saveDraft(record.id, draft);
  }
  if (!answerable) {
    drafts.delete(record.id);
    dropDraft(record.id);
    errors.delete(record.id);
  }
}

/** @param {string} id */
export function forget(id) {
  records.delete(id);
  drafts.delete(id);
  dropDraft(id);
}

/** Signed out: the page forgets every record and what was being done with them (drafts stay in sessionStorage). */
export function forgetAll() {
  for (const map of [records, drafts, errors, notes]) map.clear();
  busy.clear();
  ui.currentId = null;
  ui.confirmSkip = null;
}

/** @param {boolean} value */
export function setCollapsed(value) {
  ui.collapsed = value;
  sessionStorage.setItem("aub.collapsed", value ? "1" : "0");
}

/**
 * @param {string} id
 * @param {Note["kind"]} kind
 * @param {string} text
 */
export function addNote(id, kind, text) {
  notes.set(id, [...(notes.get(id) ?? []), { kind, text }]);
}
