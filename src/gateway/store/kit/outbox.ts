import { randomBytes } from "node:crypto";
import type { QuestionRecord } from "../../../record/record.ts";
import type { WebhookEvent, WebhookMessage, WebhookSettlement } from "./types.ts";

/**
 * The webhook outbox's shared parts: the rows a state change writes (one per URL, with a stable `msg_…` id and the
 * record as committed), and the SQL stores' row codec. Every backend writes these in the same commit as the change.
 */

/** A Standard Webhooks message id: `msg_` and 128 random bits (base64url: no `.`, which the signed text uses). */
export function newWebhookId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/** When the event happened: a resolution's time, or the late answer's. */
export function webhookEventAtMs(event: WebhookEvent, record: QuestionRecord): number {
  return (event === "question.lateAnswered" ? record.lateAnswer?.atMs : record.resolvedAtMs) ?? record.createdAtMs;
}

/** An outbox row as the SQL stores keep it. */
export interface OutboxRow {
  id: string;
  question_id: string;
  event: string;
  url: string;
  record_json: string;
  event_at_ms: number;
  attempts: number;
}

/** The new rows for `record`'s event: one per URL, due at once. */
export function outboxRowsFor(event: WebhookEvent, record: QuestionRecord, urls: readonly string[]): Array<Omit<OutboxRow, "attempts">> {
  const record_json = JSON.stringify(record);
  const event_at_ms = webhookEventAtMs(event, record);
  return urls.map((url) => ({ id: newWebhookId(), question_id: record.id, event, url, record_json, event_at_ms }));
}

export function outboxRowToMessage(row: OutboxRow): WebhookMessage {
  return {
    id: row.id,
    event: row.event as WebhookEvent,
    url: row.url,
    questionId: row.question_id,
    record: JSON.parse(row.record_json) as QuestionRecord,
    eventAtMs: Number(row.event_at_ms),
    attempts: Number(row.attempts),
  };
}

/** What a settlement writes: the next due moment (null once done), the last error, and the done marks. */
export function settlementColumns(settlement: WebhookSettlement): {
  due_at_ms: number | null;
  last_error: string | null;
  sent_at_ms: number | null;
  given_up_at_ms: number | null;
} {
  switch (settlement.outcome) {
    case "sent":
      return { due_at_ms: null, last_error: null, sent_at_ms: settlement.atMs, given_up_at_ms: null };
    case "retry":
      return { due_at_ms: settlement.retryAtMs, last_error: settlement.error, sent_at_ms: null, given_up_at_ms: null };
    case "given_up":
      return { due_at_ms: null, last_error: settlement.error, sent_at_ms: null, given_up_at_ms: settlement.atMs };
  }
}
