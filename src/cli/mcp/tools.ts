import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { askUserInputJsonSchema } from "../../contract/schema.ts";
import { ASK_USER_DESCRIPTION } from "../../contract/tool.ts";

/** The longest one ask_user_wait call waits: below the ~60 s after which many MCP clients give up on a request. */
export const ASK_USER_WAIT_MAX_SECONDS = 50;

export const MCP_TOOL_NAMES = ["ask_user", "ask_user_start", "ask_user_wait", "ask_user_late_answers", "approve_tool_use"] as const;
export type McpToolName = (typeof MCP_TOOL_NAMES)[number];

export const askUserWaitInputSchema = z.strictObject({
  id: z.string().min(1).max(128).describe("The question id that ask_user_start returned."),
  timeoutSeconds: z
    .number()
    .int()
    .min(0)
    .max(ASK_USER_WAIT_MAX_SECONDS)
    .optional()
    .describe(`Integer seconds to wait for the answer; default and maximum ${ASK_USER_WAIT_MAX_SECONDS}.`),
});

/** What `claude -p --permission-prompt-tool` sends: the tool Claude Code wants to run, and its input. */
export const approveToolUseInputSchema = z.looseObject({
  tool_name: z.string().min(1).max(200).describe("The tool Claude Code wants to use (Bash, Write, an mcp__ tool …)."),
  input: z.record(z.string(), z.unknown()).describe("The tool's input, as Claude Code would run it."),
  tool_use_id: z.string().max(200).optional(),
  /** The grants Claude Code suggests (read, narrowed and shown as options; never passed on unread). */
  permission_suggestions: z.array(z.unknown()).max(50).optional(),
});

const APPROVE_TOOL_USE_DESCRIPTION = [
  "Claude Code's permission prompt tool (claude -p --permission-prompt-tool mcp__<server>__approve_tool_use): asks a person",
  "to Allow or Deny a tool use, wherever they are, and answers with the JSON Claude Code expects:",
  '{"behavior":"allow","updatedInput":{...}} or {"behavior":"deny","message":"..."}. No answer never allows. Not for the model to call.',
].join("\n");

/** ask_user_late_answers takes no input. */
export const askUserLateAnswersInputSchema = z.strictObject({});

const ASK_USER_LATE_ANSWERS_DESCRIPTION = [
  "List the answers people gave after one of your questions had expired (ask_user returned no_answer, reason expired),",
  "since the last call of this tool in this session. Each entry has the question id, its questions, the answers and who gave them.",
  "Check it now and then after a no_answer: if a late answer changes what you decided, say so and adjust.",
].join("\n");

const ASK_USER_START_DESCRIPTION = [
  "Start an ask_user question and return its id at once, without waiting for the answer.",
  "It takes exactly the same input as ask_user, and all of ask_user's guidance applies.",
  `Then call ask_user_wait with the id, again and again while it returns "pending", until it returns the final result.`,
  "Use this pair instead of ask_user when tool calls in your client time out after about a minute: people often take longer to answer.",
].join("\n");

const ASK_USER_WAIT_DESCRIPTION = [
  `Wait up to ${ASK_USER_WAIT_MAX_SECONDS} seconds for the answer to a question started with ask_user_start.`,
  `Returns {"status":"pending","id":...} when there is no answer yet (call ask_user_wait again with the same id),`,
  "or the final ask_user result: answered, no_answer (expired, skipped, cancelled or aborted) or delivery_failed.",
  "Cancelling this call only stops this wait; the question stays open.",
].join("\n");

/** The tools this server lists. ask_user and ask_user_start share the SDK tool's JSON Schema; only ask_user runs as a task. */
export const MCP_TOOLS: Tool[] = [
  {
    name: "ask_user",
    title: "Ask the user",
    description: ASK_USER_DESCRIPTION,
    inputSchema: askUserInputJsonSchema as Tool["inputSchema"],
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    // A host with MCP tasks (2025-11-25) may call it as a task and poll for as long as the person takes.
    execution: { taskSupport: "optional" },
  },
  {
    name: "ask_user_start",
    title: "Ask the user (start, don't wait)",
    description: ASK_USER_START_DESCRIPTION,
    inputSchema: askUserInputJsonSchema as Tool["inputSchema"],
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: "ask_user_wait",
    title: "Wait for the user's answer",
    description: ASK_USER_WAIT_DESCRIPTION,
    inputSchema: z.toJSONSchema(askUserWaitInputSchema, { target: "draft-2020-12" }) as Tool["inputSchema"],
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  {
    name: "ask_user_late_answers",
    title: "Late answers to expired questions",
    description: ASK_USER_LATE_ANSWERS_DESCRIPTION,
    inputSchema: z.toJSONSchema(askUserLateAnswersInputSchema, { target: "draft-2020-12" }) as Tool["inputSchema"],
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: true },
  },
  {
    name: "approve_tool_use",
    title: "Approve a tool use (Claude Code's permission prompt)",
    description: APPROVE_TOOL_USE_DESCRIPTION,
    inputSchema: z.toJSONSchema(approveToolUseInputSchema, { target: "draft-2020-12" }) as Tool["inputSchema"],
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
];

export function isMcpToolName(name: string): name is McpToolName {
  return (MCP_TOOL_NAMES as readonly string[]).includes(name);
}

/** True when the tool says a client may call it as a task (`execution.taskSupport`). */
export function runsAsTask(name: McpToolName): boolean {
  const support = MCP_TOOLS.find((t) => t.name === name)?.execution?.taskSupport;
  return support === "optional" || support === "required";
}
