import { dropDraft, loadDraft, mergeHeldAnswers, saveDraft, valuesOf } from "./drafts.js";

/** The page's state: the records it knows, and what the person is doing with them. One page, one state. */
export const records = new Map();
export const drafts = new Map();
/** Record ids with a resolve in flight. */
export const busy = new Set();
/** Record id → { text, qid? }: why the last answer was not taken. */
export const errors = new Map();
/** Record id → [{ kind: "you" | "system" | "error", text }]: this page's own replies and their outcomes. */
export const notes = new Map();
export const ui = {
  /** The pending record shown in the panel (or bar). */
  currentId: null,
  collapsed: sessionStorage.getItem("aub.collapsed") === "1",
  /** True once the first question.list came back. */
  loaded: false,
  /** "connecting" | "open" | "reconnecting" | "closed" | "signed-out" */
  connection: "connecting",
  replying: false,
};

const byAge = (a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1);
export const recordsByAge = () => [...records.values()].sort(byAge);
export const pendingRecords = () => recordsByAge().filter((r) => r.status === "pending");
export const currentRecord = () => (ui.currentId ? records.get(ui.currentId) : undefined);
export const isAnswered = (question, draft) => valuesOf(question, draft).length > 0;

export function draftFor(record) {
  let draft = drafts.get(record.id);
  if (!draft) {
    draft = loadDraft(record);
    drafts.set(record.id, draft);
  }
  return draft;
}

/** Stores a record; a terminal record is final, so a late pending copy never replaces it. */
export function upsert(record) {
  if (!record || typeof record.id !== "string" || !Array.isArray(record.questions)) return;
  const known = records.get(record.id);
  if (known && known.status !== "pending" && record.status === "pending") return;
  records.set(record.id, record);
  const draft = drafts.get(record.id);
  if (draft && record.status === "pending" && record.partialAnswers) {
    // A partial typed reply was held: show those answers, and move on to the first question still open.
    mergeHeldAnswers(record, draft);
    if (isAnswered(record.questions[draft.step], draft)) {
      const open = record.questions.findIndex((q) => !isAnswered(q, draft));
      if (open >= 0) draft.step = open;
    }
    saveDraft(record.id, draft);
  }
  if (record.status !== "pending") {
    drafts.delete(record.id);
    dropDraft(record.id);
    errors.delete(record.id);
  }
}

export function forget(id) {
  records.delete(id);
  drafts.delete(id);
  dropDraft(id);
}

export function setCollapsed(value) {
  ui.collapsed = value;
  sessionStorage.setItem("aub.collapsed", value ? "1" : "0");
}

export function addNote(id, kind, text) {
  notes.set(id, [...(notes.get(id) ?? []), { kind, text }]);
}
