/**
 * The compact summary that replaces every delivered prompt once its record is resolved (PRODUCT.md §2). One
 * function decides it (`summarizeRecord`, a structured outcome); chat renders that as plain text (`renderSummary`,
 * made safe by each platform's own `toXText`), and the web Control UI draws it in its timeline from a browser build
 * of this module (src/web/browser-shared.ts), so both always say the same thing.
 */
import type { AskUserQuestion } from "../contract/schema.ts";
import type { QuestionRecord, ResolvedBy } from "../record/record.ts";
import { acceptsLateAnswer } from "../record/late-window.ts";
import { ellipsize, graphemes } from "../kernel/text.ts";
import { whereAnswered } from "../platforms/surfaces.ts";
import { renderPromptText } from "./prompt-text.ts";
import { ALLOW, APPROVAL_QUESTION_ID } from "./approval.ts";

/** The person's own words are quoted and cut to this many graphemes (ellipsis included). */
export const OWN_WORDS_SUMMARY_MAX = 80;
const NAME_MAX = 64;
const DETAIL_MAX = 200;

/** How a resolved record ended. An aborted record counts as cancelled; one no surface could deliver has failed. */
export type SummaryKind = "answered" | "skipped" | "expired" | "cancelled" | "failed";

/** One icon per outcome, in chat and in the browser alike. */
export const SUMMARY_ICONS = {
  answered: "✅",
  skipped: "⏭",
  expired: "⌛",
  cancelled: "✖",
  failed: "⚠",
} as const satisfies Record<SummaryKind, string>;

const SKIPPED = "Skipped";
const EXPIRED = "No answer (expired)";
const LATE_OPEN = "No answer in time — you can still answer; the agent will get it.";
const LATE = "(late)";
const CANCELLED = "Cancelled";
const ABORTED = "Cancelled (the agent stopped)";
const NOT_DELIVERED = "Not delivered";

export const SKIPPED_SUMMARY = `${SUMMARY_ICONS.skipped} ${SKIPPED}`;
export const EXPIRED_SUMMARY = `${SUMMARY_ICONS.expired} ${EXPIRED}`;
/** An expired copy while late answers are still taken: it keeps its controls (issue 20 §3). */
export const LATE_OPEN_SUMMARY = `${SUMMARY_ICONS.expired} ${LATE_OPEN}`;
export const CANCELLED_SUMMARY = `${SUMMARY_ICONS.cancelled} ${CANCELLED}`;
export const ABORTED_SUMMARY = `${SUMMARY_ICONS.cancelled} ${ABORTED}`;
export const NOT_DELIVERED_SUMMARY = `${SUMMARY_ICONS.failed} ${NOT_DELIVERED}`;

/** One answered question. */
export interface AnswerSummary {
  header: string;
  question: string;
  /** Labels as authored and own words quoted, comma-joined: "eu, ap, “mars”"; "(no answer)" when there is none. */
  text: string;
}

/** The outcome of a resolved record. */
export interface RecordSummary {
  kind: SummaryKind;
  icon: string;
  /**
   * The outcome in words, without the icon: "Answered on the web by Ada", "Skipped on the web",
   * "No answer (expired)", "Cancelled via the API", "Cancelled (the agent stopped)" or "Not delivered: …".
   */
  text: string;
  /** Where, and by whom, when `text` says so: "on the web by Ada". */
  by?: string;
  /** One per question, in order, when answered. */
  answers?: AnswerSummary[];
  /**
   * Expired records with a late window: `open` while a late answer is still taken (the copy keeps its controls),
   * `answered` once one came (the summary is that answer, marked "(late)").
   */
  late?: "open" | "answered";
}

/** Folds whitespace runs (newlines too) so a value stays on its line. */
function oneLine(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

function capitalize(text: string): string {
  const [first = "", ...rest] = graphemes(text);
  return first.toUpperCase() + rest.join("");
}

/** "in <platform> by Ada", "on the web", "via the API by ci-bot". */
export function describeResolvedBy(by: ResolvedBy): string {
  const surface = oneLine(by.surface);
  const where = whereAnswered(surface) ?? `in ${capitalize(ellipsize(surface, NAME_MAX))}`;
  const who = by.userName ?? by.user;
  return who && oneLine(who) ? `${where} by ${ellipsize(oneLine(who), NAME_MAX)}` : where;
}

/** A label as authored, or the person's own words quoted, on one line and cut to about 80 characters. */
export function formatAnswerValue(question: AskUserQuestion, value: string): string {
  if (question.options.some((o) => o.label === value)) return value;
  return `“${ellipsize(oneLine(value), OWN_WORDS_SUMMARY_MAX)}”`;
}

function outcome(kind: SummaryKind, words: string, by?: string): RecordSummary {
  return by ? { kind, icon: SUMMARY_ICONS[kind], text: `${words} ${by}`, by } : { kind, icon: SUMMARY_ICONS[kind], text: words };
}

/** An approval allowed with an edited input (issue 35 §3), on every surface's summary. */
export const ALLOWED_WITH_CHANGES = "Allowed with changes";

function answerSummaries(record: QuestionRecord, given: Record<string, string[]> | undefined): AnswerSummary[] {
  return record.questions.map((q) => {
    const values = (given && Object.hasOwn(given, q.id) ? given[q.id] : undefined) ?? [];
    const edited = record.approvalEdit !== undefined && q.id === APPROVAL_QUESTION_ID && values[0] === ALLOW;
    const text = edited ? ALLOWED_WITH_CHANGES : values.length > 0 ? values.map((v) => formatAnswerValue(q, v)).join(", ") : "(no answer)";
    return { header: q.header, question: q.question, text };
  });
}

/**
 * How a resolved record ended, in words and per question; undefined while it is pending. An expired record with a
 * late window reads as still answerable until `nowMs` passes it, and as its late answer once one came.
 */
export function summarizeRecord(record: QuestionRecord, nowMs: number = Date.now()): RecordSummary | undefined {
  if (record.status === "pending") return undefined;
  const by = record.by ? describeResolvedBy(record.by) : undefined;
  if (record.reason === "delivery_failed") {
    const detail = record.detail ? oneLine(record.detail) : "";
    return outcome("failed", detail ? `${NOT_DELIVERED}: ${ellipsize(detail, DETAIL_MAX)}` : NOT_DELIVERED);
  }
  if (record.status === "answered") return { ...outcome("answered", "Answered", by), answers: answerSummaries(record, record.answers) };
  if (record.status === "expired" && record.lateAnswer) {
    const lateBy = describeResolvedBy(record.lateAnswer.by);
    return { ...outcome("answered", `${LATE} Answered`, lateBy), answers: answerSummaries(record, record.lateAnswer.answers), late: "answered" };
  }
  if (acceptsLateAnswer(record, nowMs)) return { ...outcome("expired", LATE_OPEN), late: "open" };
  if (record.status === "expired" || record.reason === "expired") return outcome("expired", EXPIRED);
  if (record.reason === "skipped") return outcome("skipped", SKIPPED, by);
  if (record.reason === "aborted") return outcome("cancelled", ABORTED);
  return outcome("cancelled", CANCELLED, by);
}

/**
 * The summary as plain text: "✅ Header: answer — answered on the web by Ada" (one line per question when there
 * are several, then the "— answered …" line), or the icon and the outcome ("⏭ Skipped on the web"). A pending
 * record has no summary yet, so it renders as its numbered-text prompt.
 */
export function renderSummary(record: QuestionRecord, nowMs: number = Date.now()): string {
  const summary = summarizeRecord(record, nowMs);
  if (!summary) return renderPromptText(record.questions);
  if (!summary.answers) return `${summary.icon} ${summary.text}`;
  const mark = summary.late === "answered" ? ` ${LATE}` : "";
  const lines = summary.answers.map((a) => `${summary.icon}${mark} ${a.header}: ${a.text}`);
  if (summary.by) {
    const by = `— answered${summary.late === "answered" ? " late" : ""} ${summary.by}`;
    if (lines.length === 1) return `${lines[0]} ${by}`;
    lines.push(by);
  }
  return lines.join("\n");
}
