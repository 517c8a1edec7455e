import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { QuestionRecord } from "../../record/record.ts";
import { waitsForPerson } from "../../record/targets.ts";

export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The default gap between progress notifications while a tool call waits for a person. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

/**
 * While a call waits, sends `notifications/progress` every `intervalMs` when the client gave a progress token
 * (some clients reset their request timeout on progress). `progress` counts up; the message says how long.
 * Returns the function that stops it.
 */
export function startWaitProgress(extra: ToolCallExtra, intervalMs: number): () => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined || !(intervalMs > 0)) return () => {};
  const startedMs = Date.now();
  let progress = 0;
  const timer = setInterval(() => {
    if (extra.signal.aborted) return clearInterval(timer);
    progress += 1;
    const seconds = Math.round((Date.now() - startedMs) / 1000);
    extra
      .sendNotification({ method: "notifications/progress", params: { progressToken, progress, message: `Waiting for an answer (${seconds} s)` } })
      .catch(() => {}); // the client went away; the close handling cancels the question
  }, intervalMs);
  return () => clearInterval(timer);
}

/**
 * A task's statusMessage while its question waits: until when, and where the question went (delivered copies, the
 * Control UI, targets retrying or failed with the platform's reason). Without a record yet, only the question's id.
 */
export function waitingStatusText(question: { id: string; expiresAtMs: number }, record?: QuestionRecord): string {
  const until = `Waiting for the answer until ${new Date(question.expiresAtMs).toISOString()}`;
  if (!record) return `${until} (question ${question.id}).`;
  const delivered = [...new Set(record.deliveries.map((d) => `${d.surface}:${d.chat}`))];
  const parts = [
    ...(delivered.length ? [`delivered to ${delivered.join(", ")}`] : []),
    ...(record.targets.some((t) => t.surface === "web") ? ["shown in the Control UI"] : []),
    ...(record.targetStates ?? []).map((s) => `${s.surface}:${s.chat} ${s.state === "failed" ? "cannot receive it" : waitsForPerson(s) ? "is waiting for the person" : s.state === "waiting" ? "is waiting for a bot" : "is retrying"} (${s.reason})`),
  ];
  return parts.length ? `${until}: ${parts.join("; ")}.` : `${until} (question ${question.id}, not delivered yet).`;
}
