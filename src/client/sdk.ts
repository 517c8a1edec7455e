import type { GatewayClient } from "./index.ts";
import { noAnswerResult, type AskUserResult } from "../contract/result.ts";
import { GatewayError } from "../kernel/errors.ts";
import type { AnswerLink, EscalationStep, QuestionRecord, Target } from "../record/record.ts";
import type { AskFunction } from "../contract/tool.ts";

export interface AskUserOptions {
  signal?: AbortSignal;
  runId?: string;
  sessionKey?: string;
  targets?: Target[];
  /** Reminder offsets in seconds before expiry (default: the gateway's REMIND_BEFORE_SECONDS); `[]`: none. */
  reminders?: number[];
  /** Escalation steps: if still unanswered `afterSeconds` after asking, also deliver to `targets`. */
  escalate?: EscalationStep[];
  /** How long after expiry a late answer is still taken (default: the gateway's LATE_ANSWER_SECONDS); 0: never. */
  lateAnswerSeconds?: number;
  /** Every target gets an answer link (`/a/<token>`), passed to `onRequested` for callers that deliver them themselves. */
  links?: boolean;
  /** Called once the gateway has accepted the question (with its answer links when there are any). */
  onRequested?: (question: { id: string; expiresAtMs: number; links?: AnswerLink[] }) => void;
  /**
   * Called each time the pending question's record changes: a copy delivered (`record.deliveries`), a target retrying
   * or failed, with the platform's reason, or waiting because no bot of its platform is connected, at once
   * (`record.targetStates`), a partial answer. Needs the connection's
   * `question.updated` events (the default subscription).
   */
  onUpdate?: (record: QuestionRecord) => void;
}

const WAIT_SLICE_MS = 60_000;

/**
 * Asks through the gateway and resolves to the ask_user result (PRODUCT.md §1).
 * Survives gateway reconnects while waiting; an aborted signal cancels the question (reason `aborted`).
 * Throws GatewayError for invalid input (INVALID_PARAMS) or a session that already has a pending question.
 */
export async function askUser(client: GatewayClient, input: unknown, options: AskUserOptions = {}): Promise<AskUserResult> {
  const { signal } = options;
  if (signal?.aborted) return noAnswerResult("aborted");
  const fields = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : { questions: input };
  // Listening before the request: a bot may deliver before the request's own response arrives.
  let askedId: string | undefined;
  const early: QuestionRecord[] = [];
  const offUpdates = options.onUpdate
    ? client.on("question.updated", (record) => {
        if (askedId === undefined) early.push(record);
        else if (record.id === askedId) options.onUpdate!(record);
      })
    : undefined;
  let requested;
  try {
    requested = await client.request({
      ...fields,
      questions: fields.questions,
      ...(options.runId ? { runId: options.runId } : {}),
      ...(options.sessionKey ? { sessionKey: options.sessionKey } : {}),
      ...(options.targets ? { targets: options.targets } : {}),
      ...(options.reminders ? { reminders: options.reminders } : {}),
      ...(options.escalate ? { escalate: options.escalate } : {}),
      ...(options.lateAnswerSeconds !== undefined ? { lateAnswerSeconds: options.lateAnswerSeconds } : {}),
      ...(options.links ? { links: true } : {}),
    });
  } catch (error) {
    offUpdates?.();
    throw error;
  }
  const { id, expiresAtMs, links } = requested;
  askedId = id;
  options.onRequested?.({ id, expiresAtMs, ...(links ? { links } : {}) });
  for (const record of early.splice(0)) if (record.id === id) options.onUpdate?.(record);

  let abortCancel: Promise<unknown> | undefined;
  const onAbort = () => {
    abortCancel = cancelAborted(client, id);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  // Aborted while question.request was in flight: the listener above never fires, so cancel here.
  if (signal?.aborted) onAbort();
  try {
    for (;;) {
      if (signal?.aborted) {
        await abortCancel;
        return noAnswerResult("aborted");
      }
      const outcome = await Promise.race([waitOnce(client, id), abortedPromise(signal)]);
      if (outcome === "aborted" || outcome === "retry") continue;
      if (outcome.status !== "pending") {
        const { id: _id, record: _record, ...result } = outcome;
        return result as AskUserResult;
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    offUpdates?.();
  }
}

async function waitOnce(client: GatewayClient, id: string) {
  try {
    return await client.waitAnswer({ id, timeoutMs: WAIT_SLICE_MS });
  } catch (error) {
    // The link dropped or timed out: the question is durable, so wait for the link and ask again.
    if (error instanceof GatewayError && (error.code === "DISCONNECTED" || error.code === "TIMEOUT")) {
      await new Promise((r) => setTimeout(r, 200));
      return "retry" as const;
    }
    throw error;
  }
}

function abortedPromise(signal: AbortSignal | undefined): Promise<"aborted"> {
  return new Promise((resolve) => signal?.addEventListener("abort", () => resolve("aborted"), { once: true }));
}

async function cancelAborted(client: GatewayClient, id: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await client.resolve({ id, cancel: true, reason: "aborted", by: { surface: "api", via: "api" } });
      return;
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== "DISCONNECTED") return; // terminal already, or gone
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * An `ask` for createAskUserTool, backed by the gateway. `defaults` apply to every question it asks: where it goes,
 * and when nobody answers (reminders, escalation steps, the late-answer window).
 */
export function createGatewayAsk(
  client: GatewayClient,
  defaults: Pick<AskUserOptions, "targets" | "reminders" | "escalate" | "lateAnswerSeconds"> = {},
): AskFunction {
  return (input, { signal, session }) =>
    askUser(client, input, {
      ...(signal ? { signal } : {}),
      ...(session.key ? { sessionKey: session.key } : {}),
      ...(session.runId ? { runId: session.runId } : {}),
      ...(defaults.targets ? { targets: defaults.targets } : {}),
      ...(defaults.reminders ? { reminders: defaults.reminders } : {}),
      ...(defaults.escalate ? { escalate: defaults.escalate } : {}),
      ...(defaults.lateAnswerSeconds !== undefined ? { lateAnswerSeconds: defaults.lateAnswerSeconds } : {}),
    });
}
