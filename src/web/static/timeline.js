import { renderApprovalSubject } from "./approval.js";
import { expiryClock, timeBar } from "./countdown.js";
import { formatTime, h } from "./dom.js";
import { recordHistory, summarizeRecord } from "./shared.js";
/** @import { AnswerSummary, AskUserQuestion, QuestionRecord, RecordSummary } from "./shared.js" */
/** @import { Note } from "./state.js" */

/**
 * One timeline entry per record, oldest first. A resolved record keeps its compact summary for good (the same
 * summary chat shows, from src/render/summary.ts); one the person can still answer (pending, or expired within its
 * late window) carries its stacked question card (narrow, `card`), or (wide) shows what is asked, except for the
 * current one: the dock shows that, so it is not shown twice. Reminders, escalation steps and the expiry a late
 * answer came after are listed in between, each with its time.
 * @param {QuestionRecord} record
 * @param {{ card: HTMLElement | null, notes: Note[], onOpen: () => void, isCurrent: boolean, now: number }} options
 */
export function renderEntry(record, { card, notes, onOpen, isCurrent, now }) {
  const head = h("div", { class: "entry-meta" }, h("span", {}, `Agent asked · ${formatTime(record.createdAtMs)}`));
  const summary = summarizeRecord(record, now);
  const answerable = !summary || summary.late === "open";
  const history = renderHistory(record);
  let body;
  if (answerable && card) {
    if (!summary) head.append(expiryClock(record.expiresAtMs));
    body = [summary ? null : timeBar(record), history, summary ? h("p", { class: "late-note" }, lateOpen(summary)) : null, card];
  } else if (answerable && isCurrent) {
    // The headers only, so that the log (which announces new entries) still says what arrived.
    body = [
      history,
      h(
        "div",
        { class: "entry-outcome waiting" },
        record.questions.map((q) => h("span", { class: "chip" }, q.header)),
        summary ? lateOpen(summary) : h("span", {}, "Waiting for your answer below"),
      ),
    ];
  } else if (answerable) {
    body = [
      asked(record.questions),
      approvalDetails(record),
      history,
      h(
        "div",
        { class: "entry-outcome waiting" },
        summary ? lateOpen(summary) : h("span", {}, "Waiting for your answer"),
        h("button", { type: "button", class: "link", onclick: onOpen, "data-key": `open:${record.id}` }, "Answer"),
      ),
    ];
  } else {
    const at = record.lateAnswer?.atMs ?? record.resolvedAtMs;
    body = [
      asked(record.questions, summary.answers),
      approvalDetails(record),
      history,
      h(
        "p",
        { class: `entry-outcome outcome-${summary.kind}` },
        h("span", { class: "outcome-icon", "aria-hidden": "true" }, summary.icon),
        summary.text,
        at ? h("span", { class: "outcome-time" }, ` · ${formatTime(at)}`) : null,
      ),
    ];
  }
  return h(
    "article",
    {
      class: `entry entry-${record.status}${answerable && card ? " entry-card" : ""}${summary?.late ? ` entry-late-${summary.late}` : ""}`,
      "data-id": record.id,
      "data-status": record.status,
    },
    head,
    body,
    notes.map((note) => h("p", { class: `note note-${note.kind}` }, note.kind === "you" ? h("span", { class: "note-who" }, "You: ") : null, note.text)),
  );
}

/**
 * An approval's whole subject (and the version allowed with changes), folded: the dock or the card shows it open.
 * @param {QuestionRecord} record
 */
function approvalDetails(record) {
  return record.approval ? h("details", { class: "approval-details" }, h("summary", {}, "The whole request"), renderApprovalSubject(record)) : null;
}

/**
 * "⌛ No answer in time — you can still answer; the agent will get it." (the summary's own words).
 * @param {RecordSummary} summary
 */
export function lateOpen(summary) {
  return h("span", { class: "late-open" }, h("span", { class: "outcome-icon", "aria-hidden": "true" }, summary.icon), ` ${summary.text}`);
}

/**
 * The reminders sent, the escalation steps taken, and the expiry before a late answer, each with its time.
 * @param {QuestionRecord} record
 */
function renderHistory(record) {
  const lines = recordHistory(record);
  if (lines.length === 0) return null;
  return h(
    "ul",
    { class: "history" },
    lines.map((line) =>
      h(
        "li",
        { class: `history-${line.kind}` },
        h("span", { class: "outcome-icon", "aria-hidden": "true" }, line.icon),
        line.text,
        h("span", { class: "outcome-time" }, ` · ${formatTime(line.atMs)}`),
      ),
    ),
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
