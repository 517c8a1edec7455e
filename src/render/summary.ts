/**
 * The compact summary that replaces every delivered prompt once its record is resolved (PRODUCT.md §2).
 * Plain text; each platform makes it safe with its own `toXText`.
 */
import type { AskUserQuestion } from "../contract/schema.ts";
import type { QuestionRecord, ResolvedBy } from "../record.ts";
import { ellipsize, graphemes } from "../text.ts";
import { whereAnswered } from "../surfaces.ts";
import { renderPromptText } from "./prompt-text.ts";

/** The person's own words are quoted and cut to this many graphemes (ellipsis included). */
export const OWN_WORDS_SUMMARY_MAX = 80;
const NAME_MAX = 64;
const DETAIL_MAX = 200;

export const SKIPPED_SUMMARY = "⏭ Skipped";
export const EXPIRED_SUMMARY = "⌛ No answer (expired)";
export const CANCELLED_SUMMARY = "✖ Cancelled";
export const ABORTED_SUMMARY = "✖ Cancelled (the agent stopped)";
export const NOT_DELIVERED_SUMMARY = "⚠ Not delivered";


/** Folds whitespace runs (newlines too) so a value stays on its line. */
function oneLine(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

function capitalize(text: string): string {
  const [first = "", ...rest] = graphemes(text);
  return first.toUpperCase() + rest.join("");
}

/** "in Telegram by Ada", "on the web", "via the API by ci-bot". */
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

function answeredSummary(record: QuestionRecord): string {
  const lines = record.questions.map((q) => {
    const values = record.answers?.[q.id] ?? [];
    const shown = values.length > 0 ? values.map((v) => formatAnswerValue(q, v)).join(", ") : "(no answer)";
    return `✅ ${q.header}: ${shown}`;
  });
  if (record.by) {
    const by = `— answered ${describeResolvedBy(record.by)}`;
    if (lines.length === 1) return `${lines[0]} ${by}`;
    lines.push(by);
  }
  return lines.join("\n");
}

function withBy(summary: string, by: ResolvedBy | undefined): string {
  return by ? `${summary} ${describeResolvedBy(by)}` : summary;
}

/**
 * The summary as plain text, one line per question when answered. A pending record has no
 * summary yet, so it renders as its numbered-text prompt.
 */
export function renderSummary(record: QuestionRecord): string {
  if (record.status === "pending") return renderPromptText(record.questions);
  if (record.reason === "delivery_failed") {
    const detail = record.detail ? oneLine(record.detail) : "";
    return detail ? `${NOT_DELIVERED_SUMMARY}: ${ellipsize(detail, DETAIL_MAX)}` : NOT_DELIVERED_SUMMARY;
  }
  if (record.status === "answered") return answeredSummary(record);
  if (record.status === "expired" || record.reason === "expired") return EXPIRED_SUMMARY;
  if (record.reason === "skipped") return withBy(SKIPPED_SUMMARY, record.by);
  if (record.reason === "aborted") return ABORTED_SUMMARY;
  return withBy(CANCELLED_SUMMARY, record.by);
}
