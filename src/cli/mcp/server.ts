import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { PLATFORM_NAMES, PLATFORM_SURFACES } from "../../platforms/index.ts";
import { startAskUserTask } from "./ask-task.ts";
import type { McpSession } from "./session.ts";
import type { AskTaskStore } from "./task-store.ts";
import { isMcpToolName, MCP_TOOLS, runsAsTask } from "./tools.ts";

export const MCP_SERVER_INFO = { name: "ask-user-bridge", version: "0.1.0" } as const;

const INSTRUCTIONS = [
  `ask_user asks a person (on ${PLATFORM_NAMES.map((name) => PLATFORM_SURFACES[name].title).join(", ")} or the web) and waits for the answer.`,
  "If your tool calls time out before a person can answer, call ask_user_start instead, then ask_user_wait with the id it returns until the result is no longer pending.",
  "This server holds at most one pending question at a time.",
  "A person may still answer after a question expired: ask_user_late_answers returns such late answers since its last call.",
].join(" ");

export interface McpServerOptions {
  /** Holds ask_user's tasks; the SDK serves tasks/get, tasks/result, tasks/list and tasks/cancel from it. */
  taskStore: AskTaskStore;
  /** The poll interval a task suggests to the client. */
  taskPollIntervalMs: number;
  log?: (message: string) => void;
}

/**
 * The low-level MCP server: lists the four tools and hands calls to the session (raw JSON Schema, progress,
 * cancellation). It declares the 2025-11-25 tasks capability: a tools/call with a `task` runs ask_user as a task;
 * one without is today's plain call.
 */
export function createMcpServer(session: McpSession, { taskStore, taskPollIntervalMs, log }: McpServerOptions): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    instructions: INSTRUCTIONS,
    taskStore,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: MCP_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args, task } = request.params;
    if (!isMcpToolName(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}"; this server has ${MCP_TOOLS.map((t) => t.name).join(", ")}`);
    if (!task) return session.callTool(name, args, extra);
    // The spec's answer to a task for a tool that does not run as one.
    if (!runsAsTask(name)) throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task; call it without "task"`);
    return startAskUserTask(session, args, extra, { store: taskStore, pollIntervalMs: taskPollIntervalMs, ...(log ? { log } : {}) });
  });
  return server;
}
