import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import type { Config } from "../runtime/config.ts";
import { connectFromConfig } from "../client/from-config.ts";
import { ASK_USER_QUESTION_TOOL, createClaudeCodeAsker, type ClaudeDecision } from "../coding-agents/claude-code.ts";
import type { Target } from "../record/record.ts";
import { parseTarget } from "../record/targets.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import type { CliIO } from "./io.ts";
import { selfEntry, shellQuote } from "./self-command.ts";

export const HOOK_HELP = `Usage: ask-user-bridge hook claude-code [--to TARGET]... [--timeout SECONDS]
       ask-user-bridge hook claude-code --print-settings [--to TARGET]... [--timeout SECONDS]
       ask-user-bridge hook claude-code --install [--project DIR] [--to TARGET]... [--timeout SECONDS]
       ask-user-bridge hook claude-code --test [--to TARGET]... [--timeout SECONDS]

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
PermissionRequest but with no grants to offer. Any other event prints nothing. When the gateway cannot be reached
it decides nothing (Claude Code then asks in the terminal as usual) and says why where the person sees it (Claude
Code's systemMessage) and on stderr. Connects like the other commands (GATEWAY_URL, GATEWAY_TOKEN, DATA_DIR from
the environment or .env; else the gateway this user started last, from any folder, or the one --gateway NAME
names).

  --to TARGET        where to ask; repeatable (default: ASK_DEFAULT_TARGETS)
  --timeout SECONDS  how long the person has for each question (default 900, clamped to 30-3600)
  --print-settings   print the .claude/settings.json block to paste (hook timeouts longer than the question's)
  --install          merge that block into DIR/.claude/settings.json (--project DIR; default: this folder): keeps
                     what is there, replaces an earlier ask-user-bridge hook, backs the file up first
  --test             ask a sample permission request (a harmless Bash command) through the gateway, wait for the
                     answer and print the decision Claude Code would get: the whole path, without a model`;

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
  const command = [process.execPath, process.argv[1] ? selfEntry(process.argv[1]) : "ask-user-bridge", "hook", "claude-code", ...args].map(shellQuote).join(" ");
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
    { to: { type: "string", multiple: true }, timeout: { type: "string" }, "print-settings": { type: "boolean" }, install: { type: "boolean" }, project: { type: "string" }, test: { type: "boolean" } },
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
  const flags = [...(values.to ?? []).flatMap((t) => ["--to", t]), ...(values.timeout ? ["--timeout", values.timeout] : []), ...(config.GATEWAY_NAME ? ["--gateway", config.GATEWAY_NAME] : [])];
  const settings = () => claudeSettings(flags, Math.min(timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, 3600));
  if (values.project !== undefined && !values.install) throw new UsageError("--project goes with --install");
  if (values["print-settings"]) {
    io.out(JSON.stringify(settings(), null, 2));
    return 0;
  }
  if (values.install) {
    const { file, backup, changed } = installClaudeSettings(resolve(values.project ?? "."), settings());
    io.out(changed ? `Installed the ask-user-bridge hooks in ${file}${backup ? ` (the previous file is in ${backup})` : ""}.` : `${file} already has these hooks; nothing changed.`);
    return 0;
  }
  if (values.test) return testHook(config, io, { targets, timeoutSeconds: timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS });

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
    // Never silence: Claude Code shows a systemMessage to the person, and still asks in its own prompt.
    const why = `ask-user-bridge could not reach its gateway (${(error as Error).message}), so this was not sent to your phone; Claude Code asks here instead.`;
    io.out(JSON.stringify({ systemMessage: why }));
    io.err(`hook claude-code: ${why}`);
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
    const why = `ask-user-bridge could not ask this on your phone (${(error as Error).message}); Claude Code asks here instead.`;
    io.out(JSON.stringify({ systemMessage: why }));
    io.err(`hook claude-code: ${why}`);
    return 0;
  } finally {
    client.close();
  }
}

/** Our hooks' commands, known by the subcommand they run (an earlier install's, whatever its path or flags). */
const OURS = /\bhook claude-code\b/u;

type HookEntry = { matcher?: string; hooks?: Array<{ command?: string }> };

/**
 * Merges the hooks block into `<dir>/.claude/settings.json`: every other setting and hook is kept, an earlier
 * ask-user-bridge hook is replaced (so a second install changes nothing), and an existing file is copied to
 * `settings.json.bak` before it is rewritten.
 */
export function installClaudeSettings(dir: string, block: object): { file: string; backup?: string; changed: boolean } {
  const file = join(dir, ".claude", "settings.json");
  const before = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  let current: Record<string, unknown> = {};
  if (before !== undefined && before.trim() !== "") {
    try {
      const parsed: unknown = JSON.parse(before);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("it is not a JSON object");
      current = parsed as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`${file} cannot be read as JSON (${(error as Error).message}); fix it, or paste the block from --print-settings yourself`);
    }
  }
  const hooks = { ...((current.hooks as Record<string, HookEntry[]> | undefined) ?? {}) };
  for (const [event, entries] of Object.entries((block as { hooks: Record<string, HookEntry[]> }).hooks)) {
    const kept = (Array.isArray(hooks[event]) ? hooks[event]! : []).flatMap((entry) => {
      const others = (entry.hooks ?? []).filter((hook) => !OURS.test(hook.command ?? ""));
      return others.length > 0 ? [{ ...entry, hooks: others }] : entry.hooks?.length ? [] : [entry];
    });
    hooks[event] = [...kept, ...entries];
  }
  const next = `${JSON.stringify({ ...current, hooks }, null, 2)}\n`;
  if (next === before) return { file, changed: false };
  mkdirSync(dirname(file), { recursive: true });
  let backup: string | undefined;
  if (before !== undefined) {
    backup = `${file}.bak`;
    copyFileSync(file, backup);
  }
  writeFileSync(file, next);
  return { file, ...(backup ? { backup } : {}), changed: true };
}

/** `--test`: a sample permission request, asked as the hook asks it; the decision Claude Code would get, printed. */
async function testHook(config: Config, io: CliIO, options: { targets: Target[]; timeoutSeconds: number }): Promise<number> {
  const client = await connectFromConfig(config);
  try {
    const asker = createClaudeCodeAsker({ client, ...(options.targets.length ? { targets: options.targets } : {}), timeoutSeconds: options.timeoutSeconds });
    io.err("hook claude-code --test: asked a sample permission request (Bash: echo hello from ask-user-bridge); answer it where your targets are");
    const decision = (await asker.approve("Bash", { command: "echo hello from ask-user-bridge", description: "A test of the ask-user-bridge hook" }, { cwd: process.cwd() }))!;
    io.out(JSON.stringify(hookOutput("PermissionRequest", decision)));
    return decision.behavior === "allow" ? 0 : 3;
  } finally {
    client.close();
  }
}
