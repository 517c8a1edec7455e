import { expiryClock } from "./countdown.js";
import { formatTime, h } from "./dom.js";
import { summarizeRecord } from "./shared.js";
/** @import { AnswerSummary, AskUserQuestion, QuestionRecord } from "./shared.js" */
/** @import { Note } from "./state.js" */

/**
 * One timeline entry per record, oldest first. A resolved record keeps its compact summary for good (the same
 * summary chat shows, from src/render/summary.ts); a pending one carries its stacked question card (narrow, `card`),
 * or (wide) shows what is asked, except for the current one: the dock shows that, so it is not shown twice.
 * @param {QuestionRecord} record
 * @param {{ card: HTMLElement | null, notes: Note[], onOpen: () => void, isCurrent: boolean }} options
 */
export function renderEntry(record, { card, notes, onOpen, isCurrent }) {
  const head = h("div", { class: "entry-meta" }, h("span", {}, `Agent asked · ${formatTime(record.createdAtMs)}`));
  const summary = summarizeRecord(record);
  let body;
  if (!summary && card) {
    head.append(expiryClock(record.expiresAtMs));
    body = [card];
  } else if (!summary && isCurrent) {
    // The headers only, so that the log (which announces new entries) still says what arrived.
    body = [
      h(
        "div",
        { class: "entry-outcome waiting" },
        record.questions.map((q) => h("span", { class: "chip" }, q.header)),
        h("span", {}, "Waiting for your answer below"),
      ),
    ];
  } else if (!summary) {
    body = [
      asked(record.questions),
      h(
        "div",
        { class: "entry-outcome waiting" },
        h("span", {}, "Waiting for your answer"),
        h("button", { type: "button", class: "link", onclick: onOpen, "data-key": `open:${record.id}` }, "Answer"),
      ),
    ];
  } else {
    body = [
      asked(record.questions, summary.answers),
      h(
        "p",
        { class: `entry-outcome outcome-${summary.kind}` },
        h("span", { class: "outcome-icon", "aria-hidden": "true" }, summary.icon),
        summary.text,
        record.resolvedAtMs ? h("span", { class: "outcome-time" }, ` · ${formatTime(record.resolvedAtMs)}`) : null,
      ),
    ];
  }
  return h(
    "article",
    { class: `entry entry-${record.status}${!summary && card ? " entry-card" : ""}`, "data-id": record.id, "data-status": record.status },
    head,
    body,
    notes.map((note) => h("p", { class: `note note-${note.kind}` }, note.kind === "you" ? h("span", { class: "note-who" }, "You: ") : null, note.text)),
  );
}

/**
 * Each question as "Header  question text", with its answer beneath when there is one.
 * @param {AskUserQuestion[]} questions
 * @param {AnswerSummary[]} [answers]
 */
function asked(questions, answers) {
  return h(
    "ul",
    { class: "asked" },
    questions.map((q, i) =>
      h(
        "li",
        {},
        h("span", { class: "chip" }, q.header),
        h("span", { class: "asked-question" }, q.question),
        answers ? h("span", { class: "answer" }, answers[i]?.text ?? "") : null,
      ),
    ),
  );
}
