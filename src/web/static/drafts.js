/**
 * What the person has chosen so far for a pending record: { step, choices: {qid: labels[]}, other: {qid: text} }.
 * Kept in sessionStorage, so a reload mid-question restores the step and the choices.
 */
const key = (id) => `aub.draft.${id}`;

export function loadDraft(record) {
  const draft = { step: 0, choices: {}, other: {} };
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem(key(record.id)) ?? "null");
  } catch {
    saved = null;
  }
  if (saved && typeof saved === "object") {
    if (Number.isInteger(saved.step)) draft.step = Math.max(0, Math.min(saved.step, record.questions.length - 1));
    for (const q of record.questions) {
      const labels = Array.isArray(saved.choices?.[q.id]) ? saved.choices[q.id] : [];
      draft.choices[q.id] = q.options.map((o) => o.label).filter((label) => labels.includes(label));
      if (typeof saved.other?.[q.id] === "string") draft.other[q.id] = saved.other[q.id];
    }
  }
  mergeHeldAnswers(record, draft);
  return draft;
}

export function saveDraft(id, draft) {
  try {
    sessionStorage.setItem(key(id), JSON.stringify(draft));
  } catch {
    // storage full or blocked: the draft still lives in memory
  }
}

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
 */
export function mergeHeldAnswers(record, draft) {
  for (const q of record.questions) {
    const held = record.partialAnswers?.[q.id];
    if (!Array.isArray(held) || held.length === 0) continue;
    if ((draft.choices[q.id] ?? []).length > 0 || (draft.other[q.id] ?? "").trim()) continue;
    const labels = q.options.map((o) => o.label);
    draft.choices[q.id] = held.filter((value) => labels.includes(value));
    const own = held.filter((value) => !labels.includes(value));
    if (own.length > 0) draft.other[q.id] = own.join(", ");
  }
}

/** The values a question would be answered with: chosen labels, then the Other text. */
export function valuesOf(question, draft) {
  const other = (draft.other[question.id] ?? "").trim();
  const chosen = draft.choices[question.id] ?? [];
  if (!question.multiSelect) return other ? [other] : chosen.slice(0, 1);
  return other ? [...chosen, other] : [...chosen];
}

export function answersOf(record, draft) {
  return Object.fromEntries(record.questions.map((q) => [q.id, valuesOf(q, draft)]));
}
