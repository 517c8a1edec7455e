import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpSession } from "./session.ts";
import { isMcpToolName, MCP_TOOLS } from "./tools.ts";

export const MCP_SERVER_INFO = { name: "ask-user-bridge", version: "0.1.0" } as const;

const INSTRUCTIONS = [
  "ask_user asks a person (on Telegram, Discord, Slack or the web) and waits for the answer.",
  "If your tool calls time out before a person can answer, call ask_user_start instead, then ask_user_wait with the id it returns until the result is no longer pending.",
  "This server holds at most one pending question at a time.",
  "A person may still answer after a question expired: ask_user_late_answers returns such late answers since its last call.",
].join(" ");

/** The low-level MCP server: lists the four tools and hands calls to the session (raw JSON Schema, progress, cancellation). */
export function createMcpServer(session: McpSession): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: MCP_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args } = request.params;
    if (!isMcpToolName(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}"; this server has ${MCP_TOOLS.map((t) => t.name).join(", ")}`);
    return session.callTool(name, args, extra);
  });
  return server;
}
