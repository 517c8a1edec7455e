import type { GatewayClient } from "../client/index.ts";
import { GatewayError } from "../kernel/errors.ts";
import type { Target } from "../record/record.ts";
import { askUser } from "../client/sdk.ts";
import { approvalDecision, approvalInput, noAnswerClause } from "./approval.ts";
import { answersForClaude, claudeQuestionsSchema, claudeQuestionsToSets } from "./claude-questions.ts";
import { claudeApprovalRequest } from "./claude-approval.ts";

/** Claude Code's tool for asking the person, which ask-user-bridge answers from wherever the person is. */
export const ASK_USER_QUESTION_TOOL = "AskUserQuestion";

/**
 * What Claude Code is told, in the shape its `canUseTool`, its permission prompt tool and its hooks share: allow
 * (with the input to run, the person's edit where they made one, and for a grant exactly the rules it names), or
 * deny with a message the model reads as the tool's error text.
 */
export type ClaudeDecision =
  | { behavior: "allow"; updatedInput: Record<string, unknown>; updatedPermissions?: unknown[] }
  | { behavior: "deny"; message: string };

export interface ClaudeCodeOptions {
  client: GatewayClient;
  /** Where the questions go (default: the gateway's ASK_DEFAULT_TARGETS). */
  targets?: Target[];
  /** How long the person has for each question (default: the gateway's, 900 s). */
  timeoutSeconds?: number;
  /** false: permission requests are not asked here (left to Claude Code); AskUserQuestion still is. Default true. */
  approvals?: boolean;
  /** Groups the questions of one Claude Code session, so `run.abort` can cancel them. */
  runId?: string;
  /** The session's folder, where Write and Edit are diffed against the files on disk (default: this process's). */
  cwd?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Claude Code's two kinds of asking, routed through the gateway, with one behaviour for every entry point (the Agent
 * SDK's `canUseTool`, the CLI's hooks, the `approve_tool_use` MCP tool):
 * - `askQuestions`: an AskUserQuestion, asked as ask_user question sets; answered → allow with `answers`;
 * - `approve`: a permission request as one Allow/Deny question; undefined when approvals are off.
 * No answer never chooses: expired, skipped, cancelled or undeliverable gives a denial that says so. A gateway that
 * cannot be reached throws (GatewayError), so the caller can fall back to Claude Code's own prompt.
 */
export function createClaudeCodeAsker(options: ClaudeCodeOptions) {
  const askOptions = (signal?: AbortSignal) => ({
    ...(options.targets ? { targets: options.targets } : {}),
    ...(options.runId ? { runId: options.runId } : {}),
    ...(signal ? { signal } : {}),
  });

  async function askQuestions(input: unknown, signal?: AbortSignal): Promise<ClaudeDecision> {
    const parsed = claudeQuestionsSchema.safeParse(input);
    if (!parsed.success) return { behavior: "deny", message: `The questions could not be read (${parsed.error.issues[0]?.message ?? "bad input"}); fix them and ask again.` };
    const answers: Record<string, string> = {};
    for (const set of claudeQuestionsToSets(parsed.data, options.timeoutSeconds)) {
      let result;
      try {
        result = await askUser(options.client, set.input, askOptions(signal));
      } catch (error) {
        if (error instanceof GatewayError && error.code === "INVALID_PARAMS") {
          return { behavior: "deny", message: `The questions could not be asked: ${error.message}. Fix them and ask again.` };
        }
        throw error;
      }
      if (result.status !== "answered") {
        const given = Object.keys(answers).length > 0 ? ` The person did answer: ${JSON.stringify(answers)}.` : "";
        return {
          behavior: "deny",
          message: `The person did not answer: ${noAnswerClause(result)}.${given} Do not pick an answer for them; continue with your own judgment, and say what you assumed.`,
        };
      }
      Object.assign(answers, answersForClaude(set, result));
    }
    return { behavior: "allow", updatedInput: { ...(isRecord(input) ? input : {}), answers } };
  }

  /**
   * A permission request, asked with its whole subject (claude-approval.ts). Allow runs the input (or the person's
   * edit of it); a grant hands back exactly its rules. A subject the gateway refuses (INVALID_PARAMS: over 256 KiB)
   * throws, so the caller falls back to Claude Code's own prompt, never to Allow.
   */
  async function approve(
    toolName: string,
    input: Record<string, unknown>,
    extra: { suggestions?: unknown[]; signal?: AbortSignal; cwd?: string } = {},
  ): Promise<ClaudeDecision | undefined> {
    if (options.approvals === false) return undefined;
    if (toolName === ASK_USER_QUESTION_TOOL) return askQuestions(input, extra.signal);
    const request = await claudeApprovalRequest(toolName, input, {
      ...(extra.suggestions?.length ? { suggestions: extra.suggestions } : {}),
      ...(extra.cwd ? { cwd: extra.cwd } : {}),
    });
    const result = await askUser(options.client, approvalInput(request, options.timeoutSeconds), askOptions(extra.signal));
    const decision = approvalDecision(result, request.approval?.grants);
    if (!decision.approved) return { behavior: "deny", message: decision.message };
    return {
      behavior: "allow",
      updatedInput: decision.editedInput ?? input,
      ...(decision.grant?.rules?.length ? { updatedPermissions: decision.grant.rules } : {}),
    };
  }

  return { askQuestions, approve };
}

export type ClaudeCodeAsker = ReturnType<typeof createClaudeCodeAsker>;
