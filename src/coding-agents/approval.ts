import type { GatewayClient } from "../client/index.ts";
import type { AskUserResult } from "../contract/result.ts";
import type { AskUserInputRaw } from "../contract/schema.ts";
import type { Target } from "../record/record.ts";
import { askUser } from "../client/sdk.ts";
import { quoteForPrompt } from "./prompt-text.ts";

/** The approval question's options, in this order; `Allow for this session` only where the agent offers it. */
export const ALLOW = "Allow";
export const ALLOW_FOR_SESSION = "Allow for this session";
export const DENY = "Deny";
export const APPROVAL_QUESTION_ID = "approval";

/** What a person is asked to approve: `action` names it ("Claude Code to use Bash"), `details` its main input. */
export interface ApprovalRequest {
  action: string;
  details?: string;
  /** Offer `Allow for this session` (the agent will not ask again for the same thing). */
  allowForSession?: boolean;
}

/** What the person decided. Only an `Allow` answer approves: own words, Deny, Skip and no answer never do. */
export type ApprovalDecision =
  | { approved: true; forSession: boolean }
  | { approved: false; message: string; /** The person's own words, when they wrote instead of choosing. */ ownWords?: string };

const ACTION_MAX = 120;
const DETAILS_MAX = 400;

/** The one single-select Allow/Deny question (ask_user input) for an approval. */
export function approvalInput(request: ApprovalRequest, timeoutSeconds?: number): AskUserInputRaw {
  const action = quoteForPrompt(request.action, ACTION_MAX) || "this action";
  const details = request.details === undefined ? "" : quoteForPrompt(request.details, DETAILS_MAX);
  return {
    questions: [
      {
        id: APPROVAL_QUESTION_ID,
        header: "Approval",
        question: details ? `Allow ${action}: "${details}"?` : `Allow ${action}?`,
        options: [
          { label: ALLOW, description: "Once, this time only" },
          ...(request.allowForSession ? [{ label: ALLOW_FOR_SESSION, description: "And do not ask again for this in this session" }] : []),
          { label: DENY, description: "Refuse; the agent goes on without it" },
        ],
      },
    ],
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
  };
}

const WHY: Record<string, string> = {
  expired: "nobody answered in time",
  skipped: "the person skipped the question",
  cancelled: "the question was cancelled",
  aborted: "the run was aborted",
};

/** Why a question got no answer, as a clause for the model ("nobody answered in time"). */
export function noAnswerClause(result: Exclude<AskUserResult, { status: "answered" }>): string {
  if (result.status === "delivery_failed") return `the question could not be delivered (${result.reason})`;
  return WHY[result.reason] ?? `there was no answer (${result.reason})`;
}

/** The ask_user result of an approval question, as a decision. Never approves without an Allow from the person. */
export function approvalDecision(result: AskUserResult): ApprovalDecision {
  if (result.status !== "answered") {
    return { approved: false, message: `Not approved: ${noAnswerClause(result)}. Do not assume approval; continue without it, using your own judgment.` };
  }
  const value = result.answers.answers[APPROVAL_QUESTION_ID]?.[0] ?? "";
  if (value === ALLOW) return { approved: true, forSession: false };
  if (value === ALLOW_FOR_SESSION) return { approved: true, forSession: true };
  if (value === DENY) return { approved: false, message: "The person denied this. Do not try it again another way; continue without it or ask what they want." };
  return { approved: false, ownWords: value, message: `The person did not approve this, and wrote instead: "${value}". Follow what they said.` };
}

export interface RequireApprovalOptions {
  /** Where to ask (default: the gateway's ASK_DEFAULT_TARGETS). */
  targets?: Target[];
  timeoutSeconds?: number;
  signal?: AbortSignal;
  runId?: string;
  sessionKey?: string;
}

/**
 * Asks a person to approve `action` before a side effect, as one Allow/Deny question, and waits for the answer.
 * `{ approved: true }` only when they chose Allow; otherwise `{ approved: false, message }` says why (denied, their
 * own words, skipped, expired, undeliverable), in words meant for the model. Gateway errors (unreachable, invalid
 * input) throw, as `askUser` does.
 */
export async function requireApproval(
  client: GatewayClient,
  request: ApprovalRequest & RequireApprovalOptions,
): Promise<{ approved: boolean; message?: string }> {
  const { targets, timeoutSeconds, signal, runId, sessionKey } = request;
  const result = await askUser(client, approvalInput(request, timeoutSeconds), {
    ...(targets ? { targets } : {}),
    ...(signal ? { signal } : {}),
    ...(runId ? { runId } : {}),
    ...(sessionKey ? { sessionKey } : {}),
  });
  const decision = approvalDecision(result);
  return decision.approved ? { approved: true } : { approved: false, message: decision.message };
}
