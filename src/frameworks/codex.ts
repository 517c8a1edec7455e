/**
 * ask-user-bridge for Codex (`ask-user-bridge/codex`): answers `codex app-server`'s questions
 * (`item/tool/requestUserInput`) and approvals (`item/commandExecution/requestApproval`,
 * `item/fileChange/requestApproval`, and the legacy `execCommandApproval` / `applyPatchApproval`) through the
 * gateway. Needs no package: spawn the `codex` CLI (npm `@openai/codex`) yourself and attach to its stdio.
 */
export { createCodexServerRequestHandler, type CodexHandlerOptions, type CodexServerRequestHandler } from "../coding-agents/codex.ts";
export { attachToCodexAppServer, CodexAppServerError, type AttachOptions, type CodexAppServer } from "../coding-agents/codex-app-server.ts";
export { CODEX_METHODS, type CodexReply, type CodexUserInputResponse, type CodexApprovalDecision, type CodexReviewDecision } from "../coding-agents/codex-protocol.ts";
