/**
 * Codex's approval requests as approval questions (what is asked), and the person's decision as the decision Codex
 * reads. Pure. Only an Allow approves (approval.ts): Deny, Skip, own words and no answer are `decline`, and the v2
 * decision has no room for words; the legacy `denied` decision carries the message, own words included.
 */
import type { z } from "zod";
import type { ApprovalDecision, ApprovalRequest } from "./approval.ts";
import type {
  CodexApprovalDecision,
  CodexReviewDecision,
  commandApprovalParams,
  FileChangeSummary,
  legacyCommandApprovalParams,
  legacyPatchApprovalParams,
} from "./codex-protocol.ts";

/** What `item/commandExecution/requestApproval` asks: the command as it will run, where, or the host it reaches. */
export function commandApprovalRequest(params: z.infer<typeof commandApprovalParams>): ApprovalRequest {
  const offered = params.availableDecisions;
  // A managed checkpoint takes a one-time decision only; otherwise offer what Codex offers (all, on older servers).
  const allowForSession = params.kind !== "humanCommand" && (offered ? offered.includes("acceptForSession") : true);
  const details = params.command ?? params.reason ?? undefined;
  const network = params.networkApprovalContext;
  const action = network
    ? `Codex to reach ${network.host} over ${network.protocol}`
    : params.kind === "writeStdin"
      ? "Codex to send input to a running command"
      : `Codex to run a command${params.cwd ? ` in ${params.cwd}` : ""}`;
  return { action, ...(details ? { details } : {}), allowForSession };
}

/** What `item/fileChange/requestApproval` asks: the files (when their item was seen), and a root to write under. */
export function fileChangeApprovalRequest(changes: FileChangeSummary[] | undefined, extra: { reason?: string | null; grantRoot?: string | null }): ApprovalRequest {
  const files = changes?.length ? changes.map(describeChange).join(", ") : (extra.reason ?? undefined);
  const what = !changes?.length ? "files" : changes.length === 1 ? "a file" : `${changes.length} files`;
  const action = extra.grantRoot ? `Codex to write under ${extra.grantRoot} for this session` : `Codex to change ${what}`;
  return { action, ...(files ? { details: files } : {}), allowForSession: true };
}

export function legacyCommandApprovalRequest(params: z.infer<typeof legacyCommandApprovalParams>): ApprovalRequest {
  const command = params.command.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`)).join(" ");
  return { action: `Codex to run a command${params.cwd ? ` in ${params.cwd}` : ""}`, ...(command ? { details: command } : {}), allowForSession: true };
}

export function legacyPatchApprovalRequest(params: z.infer<typeof legacyPatchApprovalParams>): ApprovalRequest {
  const changes = Object.entries(params.fileChanges).map(([path, change]) => ({ path, kind: change.type, ...(change.move_path ? { movePath: change.move_path } : {}) }));
  return fileChangeApprovalRequest(changes, params);
}

/** The v2 decision: `accept` / `acceptForSession` for an Allow, `decline` for everything else. */
export function toCodexDecision(decision: ApprovalDecision): CodexApprovalDecision {
  if (!decision.approved) return "decline";
  return decision.forSession ? "acceptForSession" : "accept";
}

/** The legacy decision: `approved` / `approved_for_session`, or `denied` with the message for the model. */
export function toReviewDecision(decision: ApprovalDecision): CodexReviewDecision {
  if (!decision.approved) return { denied: { rejection: decision.message } };
  return decision.forSession ? "approved_for_session" : "approved";
}

function describeChange(change: FileChangeSummary): string {
  if (change.kind === "update") return change.movePath ? `move ${change.path} to ${change.movePath}` : `edit ${change.path}`;
  return `${change.kind} ${change.path}`;
}
