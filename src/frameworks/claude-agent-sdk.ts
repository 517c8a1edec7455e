/**
 * Claude Code's own questions and permission prompts through the bridge, for the Claude Agent SDK
 * (`ask-user-bridge/claude-agent-sdk`). Needs the optional peer dependency `@anthropic-ai/claude-agent-sdk`.
 */
import type { CanUseTool, PermissionResult } from "@anthropic-ai/claude-agent-sdk";
import { createClaudeCodeAsker, type ClaudeCodeOptions, type ClaudeDecision } from "../coding-agents/claude-code.ts";
import { GatewayError } from "../kernel/errors.ts";

export type { ClaudeCodeOptions } from "../coding-agents/claude-code.ts";
export { requireApproval } from "../coding-agents/approval.ts";

/** With `approvals: false` the SDK still asks canUseTool; the bridge does not answer for the person, so it denies. */
const APPROVALS_OFF = "Permission requests are not routed to a person here (approvals: false), so this was not approved.";

/**
 * The `canUseTool` callback of the Claude Agent SDK's `query()`: AskUserQuestion is asked of the person (on their
 * phone, wherever the targets say) and answered with their choices; every other permission request becomes one
 * Allow/Deny question. No answer, a skip, Deny or the person's own words deny (the words steer the model); nothing
 * is ever chosen on the person's behalf. When the gateway cannot be reached, the tool is denied with that reason.
 *
 * Use it alone, not with a `PermissionRequest` hook as well: in SDK mode both run and the first answer wins, so one
 * permission would become two questions.
 */
export function createCanUseTool(options: ClaudeCodeOptions): CanUseTool {
  const asker = createClaudeCodeAsker(options);
  return async (toolName, input, { signal, suggestions }) => {
    try {
      const decision = await asker.approve(toolName, input, { signal, cwd: options.cwd ?? process.cwd(), ...(suggestions ? { suggestions } : {}) });
      return toPermissionResult(decision ?? { behavior: "deny", message: APPROVALS_OFF });
    } catch (error) {
      const why = error instanceof GatewayError ? `${error.code}: ${error.message}` : String((error as Error)?.message ?? error);
      return { behavior: "deny", message: `The person could not be asked (${why}), so this was not approved. Continue without it.` };
    }
  };
}

function toPermissionResult(decision: ClaudeDecision): PermissionResult {
  if (decision.behavior === "deny") return decision;
  return {
    behavior: "allow",
    updatedInput: decision.updatedInput,
    ...(decision.updatedPermissions ? { updatedPermissions: decision.updatedPermissions as NonNullable<Extract<PermissionResult, { behavior: "allow" }>["updatedPermissions"]> } : {}),
  };
}
