import type { GatewayClient } from "../client/index.ts";
import type { AskUserResult } from "../contract/result.ts";
import type { AskUserInputRaw } from "../contract/schema.ts";
import type { ApprovalGrant, ApprovalSubject, Target } from "../record/record.ts";
import { ALLOW, APPROVAL_QUESTION_ID, DENY } from "../render/approval.ts";
import { askUser } from "../client/sdk.ts";
import { quoteForPrompt } from "./prompt-text.ts";

/** The approval question's options: Allow and Deny first, always in this order (a typed `2` is Deny), then grants. */
export { ALLOW, DENY, APPROVAL_QUESTION_ID } from "../render/approval.ts";
/** The grant that allows what the person saw, for this session only. */
export const ALLOW_FOR_SESSION = "Allow for this session";

/** An option after Allow and Deny: what it grants (the record keeps it), and a line that says so. */
export interface GrantOption extends ApprovalGrant {
  description?: string;
}

/**
 * What a person is asked to approve. `action` names it in the question ("Claude Code to use Bash"); `approval` is the
 * whole subject every surface shows (issue 35), its `grants` the options after Allow and Deny. Without `approval`,
 * `details` is the subject (shown whole, never cut), and `allowForSession` adds the one grant "Allow for this session".
 */
export interface ApprovalRequest {
  action: string;
  details?: string;
  allowForSession?: boolean;
  approval?: Omit<ApprovalSubject, "grants"> & { grants?: GrantOption[] };
}

/**
 * What the person decided. Only Allow or a grant approves: own words, Deny, Skip and no answer never do. `grant` is
 * the grant chosen (its rules go back to the agent as they are); `editedInput`, the input the person edited before
 * allowing, to run instead.
 */
export type ApprovalDecision =
  | { approved: true; forSession: boolean; grant?: ApprovalGrant; editedInput?: Record<string, unknown> }
  | { approved: false; message: string; /** The person's own words, when they wrote instead of choosing. */ ownWords?: string };

const ACTION_MAX = 120;

/** The subject a request approves: its own, or its `details` as the input. */
function subjectOf(request: ApprovalRequest): ApprovalRequest["approval"] & object {
  if (request.approval) return request.approval;
  return {
    agent: "The agent",
    tool: quoteForPrompt(request.action, ACTION_MAX) || "this action",
    input: request.details ?? {},
    ...(request.allowForSession ? { grants: [{ label: ALLOW_FOR_SESSION, description: "And do not ask again for this in this session" }] } : {}),
  };
}

/** The one single-select question (ask_user input, with its `approval` subject) for an approval. */
export function approvalInput(request: ApprovalRequest, timeoutSeconds?: number): AskUserInputRaw & { approval: ApprovalSubject } {
  const action = quoteForPrompt(request.action, ACTION_MAX) || "this action";
  const { grants = [], ...subject } = subjectOf(request);
  return {
    questions: [
      {
        id: APPROVAL_QUESTION_ID,
        header: "Approval",
        question: `Allow ${action}?`,
        options: [
          { label: ALLOW, description: "Once, this time only" },
          { label: DENY, description: "Refuse; the agent goes on without it" },
          ...grants.map((grant) => ({ label: grant.label, ...(grant.description ? { description: grant.description } : {}) })),
        ],
      },
    ],
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    approval: { ...subject, ...(grants.length > 0 ? { grants: grants.map(({ description: _shown, ...grant }) => grant) } : {}) },
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

/**
 * The ask_user result of an approval question, as a decision: `grants` are the request's (what each option gives
 * back). Never approves without an Allow or a grant from the person.
 */
export function approvalDecision(result: AskUserResult, grants: readonly ApprovalGrant[] = []): ApprovalDecision {
  if (result.status !== "answered") {
    return { approved: false, message: `Not approved: ${noAnswerClause(result)}. Do not assume approval; continue without it, using your own judgment.` };
  }
  const value = result.answers.answers[APPROVAL_QUESTION_ID]?.[0] ?? "";
  if (value === ALLOW) {
    const edited = result.approvalEdit?.input;
    return { approved: true, forSession: false, ...(isObject(edited) ? { editedInput: edited } : {}) };
  }
  const grant = grants.find((g) => g.label === value);
  if (grant) return { approved: true, forSession: true, grant };
  if (value === DENY) return { approved: false, message: "The person denied this. Do not try it again another way; continue without it or ask what they want." };
  return { approved: false, ownWords: value, message: `The person did not approve this, and wrote instead: "${value}". Follow what they said.` };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export interface RequireApprovalOptions {
  /** Where to ask (default: the gateway's ASK_DEFAULT_TARGETS). */
  targets?: Target[];
  timeoutSeconds?: number;
  signal?: AbortSignal;
  runId?: string;
  sessionKey?: string;
}

/**
 * Asks a person to approve `action` before a side effect, as one Allow/Deny question that shows the whole `approval`
 * subject (or `details`) on every surface, and waits for the answer. `{ approved: true }` only when they chose Allow
 * or a grant (with `editedInput` when they edited the input first, which is what to run); otherwise `{ approved: false, message }` says why (denied, their
 * own words, skipped, expired, undeliverable), in words meant for the model. Gateway errors (unreachable, invalid
 * input) throw, as `askUser` does.
 */
export async function requireApproval(
  client: GatewayClient,
  request: ApprovalRequest & RequireApprovalOptions,
): Promise<{ approved: boolean; message?: string; /** The grant chosen, by its label. */ grant?: string; /** The input as the person edited it (when `approval.editable`). */ editedInput?: Record<string, unknown> }> {
  const { targets, timeoutSeconds, signal, runId, sessionKey } = request;
  const result = await askUser(client, approvalInput(request, timeoutSeconds), {
    ...(targets ? { targets } : {}),
    ...(signal ? { signal } : {}),
    ...(runId ? { runId } : {}),
    ...(sessionKey ? { sessionKey } : {}),
  });
  const decision = approvalDecision(result, request.approval?.grants);
  if (!decision.approved) return { approved: false, message: decision.message };
  return { approved: true, ...(decision.grant ? { grant: decision.grant.label } : {}), ...(decision.editedInput ? { editedInput: decision.editedInput } : {}) };
}
