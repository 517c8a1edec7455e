/**
 * Answers `codex app-server`'s server requests through the gateway: `item/tool/requestUserInput` becomes ask_user
 * questions, command and file-change approvals become the approval question. The rules are approval.ts's: only a
 * person's Allow approves; no answer, a skip, a Deny, own words, a gateway error and unreadable params decline.
 */
import type { z } from "zod";
import type { GatewayClient } from "../client/index.ts";
import type { AskUserResult } from "../contract/result.ts";
import type { Target } from "../record/record.ts";
import { askUser } from "../client/sdk.ts";
import { approvalDecision, approvalInput, type ApprovalDecision, type ApprovalRequest } from "./approval.ts";
import {
  commandApprovalRequest,
  fileChangeApprovalRequest,
  legacyCommandApprovalRequest,
  legacyPatchApprovalRequest,
  toCodexDecision,
  toReviewDecision,
} from "./codex-approvals.ts";
import { createFileChangeIndex } from "./codex-file-changes.ts";
import {
  CODEX_METHODS,
  commandApprovalParams,
  fileChangeApprovalParams,
  INVALID_PARAMS,
  legacyCommandApprovalParams,
  legacyPatchApprovalParams,
  requestUserInputParams,
  type CodexReply,
  type CodexUserInputResponse,
} from "./codex-protocol.ts";
import { codexQuestionsToSets, setAnswersToCodex } from "./codex-questions.ts";

export interface CodexHandlerOptions {
  client: GatewayClient;
  /** Where to ask (default: the gateway's ASK_DEFAULT_TARGETS). */
  targets?: Target[];
  timeoutSeconds?: number;
  /** false: approvals are not answered here (the handler returns undefined for them). Default true. */
  approvals?: boolean;
  /** Told of each gateway error; the request then goes on as unanswered (never approved). */
  onError?: (error: unknown, method: string) => void;
}

/** A server request's JSON-RPC reply, or undefined when the method is not one this handler answers. */
export interface CodexServerRequestHandler {
  (method: string, params: unknown, options?: { signal?: AbortSignal }): Promise<CodexReply | undefined>;
  /** Give it every app-server notification: a file-change approval names the files its `item/started` listed. */
  observe(method: string, params: unknown): void;
}

type Ask = (input: unknown, method: string, threadId: string | undefined, signal?: AbortSignal) => Promise<AskUserResult>;
type Route = (params: unknown, signal?: AbortSignal) => Promise<CodexReply>;

export function createCodexServerRequestHandler(options: CodexHandlerOptions): CodexServerRequestHandler {
  const files = createFileChangeIndex();
  const ask: Ask = async (input, method, threadId, signal) => {
    try {
      return await askUser(options.client, input, {
        ...(options.targets ? { targets: options.targets } : {}),
        ...(signal ? { signal } : {}),
        ...(threadId && threadId.length <= 128 ? { runId: threadId } : {}),
      });
    } catch (error) {
      options.onError?.(error, method);
      return { status: "delivery_failed", reason: error instanceof Error ? error.message : String(error) };
    }
  };

  /** One approval method: its params read (unreadable ones decline), asked, and the decision in its shape. */
  const approval =
    <S extends z.ZodType>(method: string, schema: S, read: (params: z.infer<S>) => [ApprovalRequest, string], decide: (d: ApprovalDecision) => unknown): Route =>
    async (params, signal) => {
      const parsed = readParams(schema, params);
      if (!parsed.ok) return { result: { decision: decide(approvalDecision({ status: "delivery_failed", reason: `Codex sent params that could not be read (${parsed.message})` })) } };
      const [request, threadId] = read(parsed.data);
      const result = await ask(approvalInput(request, options.timeoutSeconds), method, threadId, signal);
      return { result: { decision: decide(approvalDecision(result, request.approval?.grants)) } };
    };

  const routes: Record<string, Route> = {
    [CODEX_METHODS.requestUserInput]: (params, signal) => answerUserInput(params, ask, options.timeoutSeconds, signal),
  };
  if (options.approvals !== false) {
    const { commandApproval, fileChangeApproval, legacyCommandApproval, legacyPatchApproval } = CODEX_METHODS;
    routes[commandApproval] = approval(commandApproval, commandApprovalParams, (p) => [commandApprovalRequest(p), p.threadId], toCodexDecision);
    routes[fileChangeApproval] = approval(fileChangeApproval, fileChangeApprovalParams, (p) => [fileChangeApprovalRequest(files.changes(p.itemId), p), p.threadId], toCodexDecision);
    routes[legacyCommandApproval] = approval(legacyCommandApproval, legacyCommandApprovalParams, (p) => [legacyCommandApprovalRequest(p), p.conversationId], toReviewDecision);
    routes[legacyPatchApproval] = approval(legacyPatchApproval, legacyPatchApprovalParams, (p) => [legacyPatchApprovalRequest(p), p.conversationId], toReviewDecision);
  }

  const handler = async (method: string, params: unknown, { signal }: { signal?: AbortSignal } = {}) =>
    Object.hasOwn(routes, method) ? routes[method]!(params, signal) : undefined;
  return Object.assign(handler, { observe: files.observe });
}

/**
 * Asks the questions, up to 3 at a time, and returns what was answered. After a set that got no answer the rest are
 * not asked (nobody is there), except after a skip: the person may still answer the next ones.
 */
async function answerUserInput(params: unknown, ask: Ask, timeoutSeconds: number | undefined, signal?: AbortSignal): Promise<CodexReply> {
  const parsed = readParams(requestUserInputParams, params);
  if (!parsed.ok) return { error: { code: INVALID_PARAMS, message: `item/tool/requestUserInput: ${parsed.message}` } };
  const response: CodexUserInputResponse = { answers: {} };
  for (const set of codexQuestionsToSets(parsed.data.questions, timeoutSeconds)) {
    const result = await ask(set.input, CODEX_METHODS.requestUserInput, parsed.data.threadId, signal);
    Object.assign(response.answers, setAnswersToCodex(set, result));
    if (result.status !== "answered" && !(result.status === "no_answer" && result.reason === "skipped")) break;
  }
  return { result: response };
}

/** The params as the schema reads them, or why not; never throws (a direct caller may pass a throwing getter). */
function readParams<S extends z.ZodType>(schema: S, params: unknown): { ok: true; data: z.infer<S> } | { ok: false; message: string } {
  try {
    const parsed = schema.safeParse(params);
    if (parsed.success) return { ok: true, data: parsed.data };
    const issue = parsed.error.issues[0];
    return { ok: false, message: issue ? `${issue.path.map(String).join(".") || "params"}: ${issue.message}` : "invalid params" };
  } catch (error) {
    return { ok: false, message: `params could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}
