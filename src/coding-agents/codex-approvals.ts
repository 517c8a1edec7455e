/**
 * Codex's approval requests as approval questions (what is asked), and the person's decision as the decision Codex
 * reads. Pure. Only an Allow approves (approval.ts): Deny, Skip, own words and no answer are `decline`, and the v2
 * decision has no room for words; the legacy `denied` decision carries the message, own words included.
 */
import type { z } from "zod";
import { ALLOW_FOR_SESSION, type ApprovalDecision, type ApprovalRequest, type GrantOption } from "./approval.ts";
import type { ApprovalChange } from "../record/record.ts";
import { unifiedDiff } from "./unified-diff.ts";
import type {
  CodexApprovalDecision,
  CodexReviewDecision,
  commandApprovalParams,
  FileChangeSummary,
  legacyCommandApprovalParams,
  legacyPatchApprovalParams,
} from "./codex-protocol.ts";

/** The grant Codex keeps itself ("accept for this session"): no rules pass back, only the decision. */
function sessionGrant(description: string): GrantOption[] {
  return [{ label: ALLOW_FOR_SESSION, description }];
}

/** What `item/commandExecution/requestApproval` asks: the command as it will run, where, or the host it reaches. */
export function commandApprovalRequest(params: z.infer<typeof commandApprovalParams>): ApprovalRequest {
  const offered = params.availableDecisions;
  // A managed checkpoint takes a one-time decision only; otherwise offer what Codex offers (all, on older servers).
  const allowForSession = params.kind !== "humanCommand" && (offered ? offered.includes("acceptForSession") : true);
  const network = params.networkApprovalContext;
  const action = network
    ? `Codex to reach ${network.host} over ${network.protocol}`
    : params.kind === "writeStdin"
      ? "Codex to send input to a running command"
      : `Codex to run a command${params.cwd ? ` in ${params.cwd}` : ""}`;
  const input = {
    ...(params.command ? { command: params.command } : {}),
    ...(params.reason ? { reason: params.reason } : {}),
    ...(params.kind && params.kind !== "command" ? { kind: params.kind } : {}),
    ...(network ? { host: network.host, protocol: network.protocol } : {}),
  };
  return {
    action,
    approval: {
      agent: "Codex",
      tool: network ? "network" : "command",
      input,
      ...(params.cwd ? { cwd: params.cwd } : {}),
      // Codex's decision has no room for an edited command, so the page offers no editor (issue 35 §3).
      ...(allowForSession ? { grants: sessionGrant(network ? `Also ${network.host}, for the rest of this Codex session` : "This exact command again, for the rest of this Codex session") } : {}),
    },
  };
}

/** What `item/fileChange/requestApproval` asks: the files with their diffs (when their item was seen), and a root to write under. */
export function fileChangeApprovalRequest(changes: FileChangeSummary[] | undefined, extra: { reason?: string | null; grantRoot?: string | null }): ApprovalRequest {
  const what = !changes?.length ? "files" : changes.length === 1 ? "a file" : `${changes.length} files`;
  const action = extra.grantRoot ? `Codex to write under ${extra.grantRoot} for this session` : `Codex to change ${what}`;
  const input = {
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(extra.grantRoot ? { grantRoot: extra.grantRoot } : {}),
    // Codex names the files in an item it announced before; without it, say so rather than show nothing.
    ...(!changes?.length ? { files: "not announced by Codex before this request" } : {}),
  };
  return {
    action,
    approval: {
      agent: "Codex",
      tool: "fileChange",
      input,
      ...(changes?.length ? { changes: changes.map(toApprovalChange) } : {}),
      grants: sessionGrant(extra.grantRoot ? `And let Codex write under ${extra.grantRoot} for the rest of this session` : "These files' changes, for the rest of this Codex session"),
    },
  };
}

export function legacyCommandApprovalRequest(params: z.infer<typeof legacyCommandApprovalParams>): ApprovalRequest {
  const command = params.command.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`)).join(" ");
  return {
    action: `Codex to run a command${params.cwd ? ` in ${params.cwd}` : ""}`,
    approval: {
      agent: "Codex",
      tool: "command",
      input: { command, argv: params.command, ...(params.reason ? { reason: params.reason } : {}) },
      ...(params.cwd ? { cwd: params.cwd } : {}),
      grants: sessionGrant("This exact command again, for the rest of this Codex session"),
    },
  };
}

export function legacyPatchApprovalRequest(params: z.infer<typeof legacyPatchApprovalParams>): ApprovalRequest {
  const changes = Object.entries(params.fileChanges).map(([path, change]): FileChangeSummary => {
    const diff = change.type === "update" ? change.unified_diff : change.content ? unifiedDiff(path, change.type === "delete" ? change.content : "", change.type === "add" ? change.content : "", change.type === "add") : undefined;
    return { path, kind: change.type, ...(change.move_path ? { movePath: change.move_path } : {}), ...(typeof diff === "string" ? { diff } : {}) };
  });
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

/** A change as the approval shows it; a change without a diff says so in place of one. */
function toApprovalChange(change: FileChangeSummary): ApprovalChange {
  return { path: change.path, kind: change.kind, diff: change.diff ?? "(Codex sent no diff for this file)", ...(change.movePath ? { movePath: change.movePath } : {}) };
}
