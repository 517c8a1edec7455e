import type { AskUserResult } from "../../contract/result.ts";
import { recordToResult, type QuestionRecord } from "../../record/record.ts";
import type { WebhookEvent, WebhookMessage } from "../store/kit/types.ts";

/**
 * A webhook's body: the envelope Standard Webhooks recommends, `{ type, timestamp, data }`, with the protocol's event
 * name as `type`, the event's own time (not the try's) as `timestamp`, and the record and its ask_user result as
 * `data`. Built from the outbox message alone, so every try sends the same bytes.
 */
export interface WebhookPayload {
  type: WebhookEvent;
  timestamp: string;
  data: { record: QuestionRecord; result: AskUserResult | undefined };
}

/** The ask_user result an event stands for: the record's, or for a late answer the late answer's own. */
export function webhookResult(event: WebhookEvent, record: QuestionRecord): AskUserResult | undefined {
  const late = record.lateAnswer;
  if (event === "question.lateAnswered" && late) return recordToResult({ ...record, status: "answered", answers: late.answers, by: late.by });
  return recordToResult(record);
}

export function webhookPayload(message: WebhookMessage): WebhookPayload {
  return {
    type: message.event,
    timestamp: new Date(message.eventAtMs).toISOString(),
    data: { record: message.record, result: webhookResult(message.event, message.record) },
  };
}

/** The body as sent (and signed). */
export function webhookBody(message: WebhookMessage): string {
  return JSON.stringify(webhookPayload(message));
}
