/**
 * What the person has chosen so far for a pending record, kept in sessionStorage so that a reload mid-question
 * restores the step and the choices: `choices` maps a question id to the labels ticked, `other` to the Other text.
 * Maps, not objects: a question id may be any snake_case word, `constructor` included, and an object would answer
 * for an id it was never given (`{}.constructor` is a function).
 * `edit`: an approval's edit box as the person left it (absent: never touched).
 * @typedef {{ step: number, choices: Map<string, string[]>, other: Map<string, string>, edit?: string }} Draft
 */
/** @import { AskUserQuestion, QuestionRecord } from "./shared.js" */

/** @param {string} id */
const key = (id) => `aub.draft.${id}`;

/**
 * An object's own property, never one it inherits: JSON and the gateway key answers by question id.
 * @template T
 * @param {Readonly<Record<string, T>> | null | undefined} object
 * @param {string} id
 * @returns {T | undefined}
 */
export const ownValue = (object, id) => (object && Object.hasOwn(object, id) ? object[id] : undefined);

/**
 * @param {QuestionRecord} record
 * @returns {Draft}
 */
export function loadDraft(record) {
  /** @type {Draft} */
  const draft = { step: 0, choices: new Map(), other: new Map() };
  /** @type {{ step?: unknown, choices?: Record<string, unknown>, other?: Record<string, unknown>, edit?: unknown } | null} */
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem(key(record.id)) ?? "null");
  } catch {
    saved = null;
  }
  if (saved && typeof saved === "object") {
    if (typeof saved.edit === "string" && record.approval) draft.edit = saved.edit;
    if (typeof saved.step === "number" && Number.isInteger(saved.step)) draft.step = Math.max(0, Math.min(saved.step, record.questions.length - 1));
    for (const q of record.questions) {
      const labels = ownValue(saved.choices, q.id);
      const ticked = Array.isArray(labels) ? labels : [];
      draft.choices.set(q.id, q.options.map((o) => o.label).filter((label) => ticked.includes(label)));
      const other = ownValue(saved.other, q.id);
      if (typeof other === "string") draft.other.set(q.id, other);
    }
  }
  mergeHeldAnswers(record, draft);
  return draft;
}

/**
 * @param {string} id
 * @param {Draft} draft
 */
export function saveDraft(id, draft) {
  try {
    const saved = { step: draft.step, choices: Object.fromEntries(draft.choices), other: Object.fromEntries(draft.other), ...(draft.edit !== undefined ? { edit: draft.edit } : {}) };
    sessionStorage.setItem(key(id), JSON.stringify(saved));
  } catch {
    // storage full or blocked: the draft still lives in memory
  }
}

/** @param {string} id */
export function dropDraft(id) {
  try {
    sessionStorage.removeItem(key(id));
  } catch {
    // nothing to drop
  }
}

/**
 * Answers the gateway holds from a partial typed reply fill the questions the draft has nothing for yet.
 * A held value that is an option label checks it; anything else goes into Other.
 * @param {QuestionRecord} record
 * @param {Draft} draft
 */
export function mergeHeldAnswers(record, draft) {
  for (const q of record.questions) {
    const held = ownValue(record.partialAnswers, q.id);
    if (!Array.isArray(held) || held.length === 0) continue;
    if ((draft.choices.get(q.id) ?? []).length > 0 || (draft.other.get(q.id) ?? "").trim()) continue;
    const labels = q.options.map((o) => o.label);
    draft.choices.set(q.id, held.filter((value) => labels.includes(value)));
    const own = held.filter((value) => !labels.includes(value));
    if (own.length > 0) draft.other.set(q.id, own.join(", "));
  }
}

/**
 * The values a question would be answered with: chosen labels, then the Other text.
 * @param {AskUserQuestion} question
 * @param {Draft} draft
 * @returns {string[]}
 */
export function valuesOf(question, draft) {
  const other = (draft.other.get(question.id) ?? "").trim();
  const chosen = draft.choices.get(question.id) ?? [];
  if (!question.multiSelect) return other ? [other] : chosen.slice(0, 1);
  return other ? [...chosen, other] : [...chosen];
}

/**
 * @param {QuestionRecord} record
 * @param {Draft} draft
 * @returns {Record<string, string[]>}
 */
export function answersOf(record, draft) {
  return Object.fromEntries(record.questions.map((q) => [q.id, valuesOf(q, draft)]));
}
