import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Config } from "../runtime/config.ts";
import { connectFromConfig } from "../client/from-config.ts";
import { ASK_USER_QUESTION_TOOL, createClaudeCodeAsker, type ClaudeDecision } from "../coding-agents/claude-code.ts";
import type { Target } from "../record/record.ts";
import { parseTarget } from "../record/targets.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import type { CliIO } from "./io.ts";
import { shellQuote } from "./self-command.ts";

export const HOOK_HELP = `Usage: ask-user-bridge hook claude-code [--to TARGET]... [--timeout SECONDS]
       ask-user-bridge hook claude-code --print-settings [--to TARGET]... [--timeout SECONDS]

A Claude Code command hook: Claude Code's own questions (AskUserQuestion) and permission prompts are asked of the
person through the gateway, wherever the targets say, and their answer goes back to Claude Code.

It reads the hook event JSON on stdin and prints the hook output JSON on stdout:
  PreToolUse for AskUserQuestion   the questions; answered: allow with the answers; no answer: deny, saying why
  PermissionRequest                one approval showing the whole request (the command, each file's diff, the
                                   tool's input): Allow (or Allow with changes, from the page): allow; a grant:
                                   allow with exactly the rule it names; Deny, Skip, no answer or the person's own
                                   words: deny (the words reach the model). A request over 256 KiB is left to
                                   Claude Code's own prompt
PreToolUse for another tool (a matcher you add yourself, e.g. "Bash") asks it as an approval, like
PermissionRequest but with no grants to offer. Any other event prints nothing. When the gateway cannot be reached it prints nothing (Claude Code then asks
in the terminal as usual) and says why on stderr. Connects like the other commands (GATEWAY_URL, GATEWAY_TOKEN,
DATA_DIR, from the environment or .env).

  --to TARGET        where to ask; repeatable (default: ASK_DEFAULT_TARGETS)
  --timeout SECONDS  how long the person has for each question (default 900, clamped to 30-3600)
  --print-settings   print the .claude/settings.json block to paste (hook timeouts longer than the question's)`;

/** The hook event fields we read; Claude Code sends more (session_id, cwd, transcript_path …). */
const hookEventSchema = z.looseObject({
  hook_event_name: z.string(),
  tool_name: z.string().optional(),
  tool_input: z.unknown().optional(),
  session_id: z.string().max(200).optional(),
  permission_suggestions: z.array(z.unknown()).optional(),
  /** The session's folder: relative paths, and Write and Edit diffs against the files on disk, start there. */
  cwd: z.string().max(4096).optional(),
});

const DEFAULT_TIMEOUT_SECONDS = 900;
/** The hook's own deadline beyond the question's: time to connect, ask and answer. */
const HOOK_TIMEOUT_MARGIN_SECONDS = 60;


/** The settings.json block: both hooks, each running this same binary with these flags. */
export function claudeSettings(args: string[], timeoutSeconds: number): object {
  const command = [process.execPath, process.argv[1] ?? "ask-user-bridge", "hook", "claude-code", ...args].map(shellQuote).join(" ");
  const hook = { type: "command", command, timeout: timeoutSeconds + HOOK_TIMEOUT_MARGIN_SECONDS };
  return {
    hooks: {
      PreToolUse: [{ matcher: ASK_USER_QUESTION_TOOL, hooks: [hook] }],
      PermissionRequest: [{ matcher: "*", hooks: [hook] }],
    },
  };
}

function hookOutput(event: "PreToolUse" | "PermissionRequest", decision: ClaudeDecision): object {
  if (event === "PermissionRequest") return { hookSpecificOutput: { hookEventName: event, decision } };
  return {
    hookSpecificOutput:
      decision.behavior === "allow"
        ? { hookEventName: event, permissionDecision: "allow", updatedInput: decision.updatedInput }
        : { hookEventName: event, permissionDecision: "deny", permissionDecisionReason: decision.message },
  };
}

export async function runHook(argv: string[], config: Config, io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { to: { type: "string", multiple: true }, timeout: { type: "string" }, "print-settings": { type: "boolean" } },
    true,
  );
  if (values.help) {
    io.out(HOOK_HELP);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== "claude-code") throw new UsageError("say which agent's hook: hook claude-code");
  const targets: Target[] = (values.to ?? []).map((text) => {
    const parsed = parseTarget(text);
    if (!parsed.ok) throw new UsageError(`--to ${parsed.message}`);
    return parsed.target;
  });
  const timeoutSeconds = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutSeconds !== undefined && !(Number.isInteger(timeoutSeconds) && timeoutSeconds > 0)) throw new UsageError(`--timeout: "${values.timeout}" is not a whole number of seconds`);
  if (values["print-settings"]) {
    const flags = [...(values.to ?? []).flatMap((t) => ["--to", t]), ...(values.timeout ? ["--timeout", values.timeout] : [])];
    io.out(JSON.stringify(claudeSettings(flags, Math.min(timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, 3600)), null, 2));
    return 0;
  }

  let event;
  try {
    event = hookEventSchema.parse(JSON.parse(readFileSync(0, "utf8")));
  } catch (error) {
    io.err(`hook claude-code: stdin is not a hook event (${(error as Error).message.slice(0, 200)}); nothing decided`);
    return 0;
  }
  const name = event.hook_event_name;
  const forUs = (name === "PreToolUse" || name === "PermissionRequest") && event.tool_name !== undefined;
  if (!forUs) return 0;

  let client;
  try {
    client = await connectFromConfig(config);
  } catch (error) {
    io.err(`hook claude-code: cannot reach the gateway (${(error as Error).message}); Claude Code asks in the terminal instead`);
    return 0;
  }
  try {
    const asker = createClaudeCodeAsker({
      client,
      ...(targets.length ? { targets } : {}),
      ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      ...(event.session_id ? { runId: `claude-code:${event.session_id}` } : {}),
    });
    const input = typeof event.tool_input === "object" && event.tool_input !== null ? (event.tool_input as Record<string, unknown>) : {};
    // AskUserQuestion is asked (approve routes it there); any other tool is an approval, from PermissionRequest, or
    // from a PreToolUse hook the person matched to it themselves (it has no suggestions, so it offers no grants).
    const decision = await asker.approve(event.tool_name!, input, {
      ...(name === "PermissionRequest" && event.permission_suggestions ? { suggestions: event.permission_suggestions } : {}),
      ...(event.cwd ? { cwd: event.cwd } : {}),
    });
    if (decision) io.out(JSON.stringify(hookOutput(name, decision)));
    return 0;
  } catch (error) {
    io.err(`hook claude-code: the question could not be asked (${(error as Error).message}); Claude Code asks in the terminal instead`);
    return 0;
  } finally {
    client.close();
  }
}
