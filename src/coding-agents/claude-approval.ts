/**
 * A Claude Code permission request as a whole approval subject (issue 35): the tool's input as it will run, file
 * changes as diffs against the file on disk (the `diff` package), and grants that are exactly what the person reads:
 * "Allow for this session" narrowed to the exact command or path, and each persistent rule Claude Code suggests as
 * an option of its own that names the rule and the file it is saved in.
 */
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { ApprovalChange } from "../record/record.ts";
import { ALLOW_FOR_SESSION, type ApprovalRequest, type GrantOption } from "./approval.ts";
import { quoteForPrompt } from "./prompt-text.ts";
import { unifiedDiff } from "./unified-diff.ts";

/** A file larger than this is not read for a diff (the subject as a whole is at most 256 KiB anyway). */
const MAX_FILE_BYTES = 1024 * 1024;
/** The longest grant label (the gateway's APPROVAL_LABEL_MAX_GRAPHEMES); a longer rule is not offered. */
const GRANT_LABEL_MAX = 200;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** What the request asks, in words: "Claude Code to use Bash", "Claude Code to use the MCP tool create_issue of github". */
export function claudeAction(toolName: string): string {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  return quoteForPrompt(mcp ? `Claude Code to use the MCP tool ${mcp[2]} of ${mcp[1]}` : `Claude Code to use ${toolName}`, 120);
}

export interface ClaudeApprovalContext {
  /** The session's working directory (the hook event's `cwd`): relative paths resolve against it. */
  cwd?: string;
  /** Claude Code's permission suggestions, as it sent them. */
  suggestions?: readonly unknown[];
}

/** The whole approval request for one Claude Code permission prompt. */
export async function claudeApprovalRequest(toolName: string, input: Record<string, unknown>, context: ClaudeApprovalContext = {}): Promise<ApprovalRequest> {
  const changes = await fileChanges(toolName, input, context.cwd);
  const grants = claudeGrants(toolName, input, context);
  return {
    action: claudeAction(toolName),
    approval: {
      agent: "Claude Code",
      tool: toolName,
      input,
      ...(context.cwd ? { cwd: context.cwd } : {}),
      ...(changes ? { changes } : {}),
      ...(grants.length > 0 ? { grants } : {}),
      // A Bash command is edited as a command; any other tool's input as JSON (Claude Code takes it as updatedInput).
      editable: typeof input.command === "string" && toolName === "Bash" ? "command" : "input",
    },
  };
}

/** The diffs of a file tool (Write, Edit, MultiEdit), against the file on disk when there is one; else undefined. */
async function fileChanges(toolName: string, input: Record<string, unknown>, cwd: string | undefined): Promise<ApprovalChange[] | undefined> {
  const path = str(input.file_path);
  if (path === undefined || !["Write", "Edit", "MultiEdit"].includes(toolName)) return undefined;
  const current = await readCurrent(cwd && !isAbsolute(path) ? resolve(cwd, path) : path);
  if (toolName === "Write") {
    const content = str(input.content) ?? "";
    if (current === undefined) return [{ path, kind: "add", diff: unifiedDiff(path, "", content, true) }];
    return [{ path, kind: "update", diff: unifiedDiff(path, current, content) }];
  }
  const edits = toolName === "Edit" ? [input] : Array.isArray(input.edits) ? input.edits.filter(isObject) : [];
  let before = current;
  let after = current;
  for (const edit of edits) {
    const oldString = str(edit.old_string) ?? "";
    const newString = str(edit.new_string) ?? "";
    if (after === undefined || oldString === "" || !after.includes(oldString)) {
      // Not found on disk (or unreadable): the change is shown as the strings themselves, which is what will be tried.
      before = undefined;
      break;
    }
    after = edit.replace_all === true ? after.split(oldString).join(newString) : after.replace(oldString, () => newString);
  }
  if (before !== undefined && after !== undefined) return [{ path, kind: "update", diff: unifiedDiff(path, before, after) }];
  const diff = edits.map((edit) => unifiedDiff(path, str(edit.old_string) ?? "", str(edit.new_string) ?? "")).join("");
  return [{ path, kind: "update", diff }];
}

/** The file's text, or undefined when it does not exist, cannot be read, or is too large to diff. */
async function readCurrent(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > MAX_FILE_BYTES) return undefined;
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Where Claude Code saves a persistent rule, by the suggestion's destination, and how far it reaches. */
const SAVED_IN: Record<string, { file: string; where: string }> = {
  localSettings: { file: ".claude/settings.local.json", where: "here" },
  projectSettings: { file: ".claude/settings.json", where: "in this project" },
  userSettings: { file: "~/.claude/settings.json", where: "everywhere" },
};

/** A rule as Claude Code writes it: `Bash(git push *)`, `WebSearch`. */
export function formatRule(rule: unknown): string | undefined {
  if (!isObject(rule) || typeof rule.toolName !== "string") return undefined;
  return typeof rule.ruleContent === "string" && rule.ruleContent !== "" ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName;
}

/**
 * The grants offered after Allow and Deny: "Allow for this session" with the one exact rule the person saw (only
 * where Claude Code offered a grant at all, and only where such a rule can be written), then the first persistent
 * `addRules` suggestion as "Always allow `<rules>` here (saved in <file>)", passed back exactly as suggested.
 */
export function claudeGrants(toolName: string, input: Record<string, unknown>, context: ClaudeApprovalContext): GrantOption[] {
  const suggestions = context.suggestions ?? [];
  if (suggestions.length === 0) return [];
  const grants: GrantOption[] = [];
  const exact = exactRule(toolName, input, context.cwd);
  if (exact) {
    grants.push({
      label: ALLOW_FOR_SESSION,
      description: `Only ${exact.what}, until Claude Code exits`,
      rules: [{ type: "addRules", rules: [{ toolName: exact.toolName, ruleContent: exact.ruleContent }], behavior: "allow", destination: "session" }],
    });
  }
  for (const suggestion of suggestions) {
    if (!isObject(suggestion) || suggestion.type !== "addRules" || suggestion.behavior !== "allow" || !Array.isArray(suggestion.rules)) continue;
    const saved = typeof suggestion.destination === "string" ? SAVED_IN[suggestion.destination] : undefined;
    const rules = suggestion.rules.map(formatRule);
    if (!saved || rules.length === 0 || rules.some((rule) => rule === undefined)) continue;
    const label = `Always allow \`${rules.join("`, `")}\` ${saved.where} (saved in ${saved.file})`;
    if ([...label].length > GRANT_LABEL_MAX || /[\p{Cc}\p{Cf}]/u.test(label)) continue;
    grants.push({ label, description: "Claude Code will not ask again for anything this rule matches", rules: [suggestion] });
    break;
  }
  return grants;
}

/** Characters that make a rule's content a pattern rather than one exact command or path. */
const PATTERN = /[*?[\]{}]/u;
const FILE_TOOLS: Record<string, string> = { Write: "Edit", Edit: "Edit", MultiEdit: "Edit", NotebookEdit: "Edit", Read: "Read" };

/** The one rule that allows exactly this command or this file, or undefined when none can be written. */
function exactRule(toolName: string, input: Record<string, unknown>, cwd: string | undefined): { toolName: string; ruleContent: string; what: string } | undefined {
  if (toolName === "Bash") {
    const command = str(input.command);
    if (!command || PATTERN.test(command) || /[()\n\r]/u.test(command) || command.endsWith(":*")) return undefined;
    return { toolName, ruleContent: command, what: "this exact command" };
  }
  const ruleTool = FILE_TOOLS[toolName];
  const path = str(input.file_path) ?? str(input.notebook_path);
  if (!ruleTool || !path) return undefined;
  const absolute = isAbsolute(path) ? path : cwd ? resolve(cwd, path) : undefined;
  if (!absolute || PATTERN.test(absolute) || /[()\n\r\\]/u.test(absolute)) return undefined;
  // `//path` is an absolute path in Claude Code's permission rules (a single `/` is relative to the settings file).
  return { toolName: ruleTool, ruleContent: `/${absolute}`, what: `${toolName === "Read" ? "reading" : "changes to"} this file` };
}
