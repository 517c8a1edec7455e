/**
 * `ask-user-bridge mcp` as a child process driven by the MCP SDK's own Client over stdio, and the gateway look-ups
 * its tests make (the question a call asked, its final record).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BIN, rpcOk, sleep, tempDir, TOKEN } from "./gateway.ts";

export interface McpRun {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}

const clients = new Set<Client>();

/** Spawns the compiled `mcp` command with GATEWAY_URL / GATEWAY_TOKEN for the gateway and connects a Client to it. */
export async function startMcp(gatewayUrl: string, args: string[] = [], env: Record<string, string> = {}): Promise<McpRun> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    cwd: tempDir("aub-cwd-"),
    env: { GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-mcp-"), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "ask-user-bridge-test", version: "0.0.0" });
  clients.add(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

/** Closes every client startMcp connected (each server exits when its stdin ends). */
export async function closeMcpClients(): Promise<void> {
  await Promise.all([...clients].map((c) => c.close().catch(() => {})));
  clients.clear();
}

/** One single-select question with a text unique to the test, so concurrent tests find their own record. */
export function deployQuestion(question: string, extra: Record<string, unknown> = {}) {
  return {
    questions: [{ id: "deploy_target", header: "Deployment target", question, options: [{ label: "Staging (Recommended)" }, { label: "Production" }] }],
    ...extra,
  };
}

/** Polls question.list until a pending record whose first question is `question` appears. */
export async function pendingRecord(gatewayUrl: string, question: string, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { questions } = await rpcOk(gatewayUrl, "question.list", { status: "pending" });
    const found = questions.find((r: any) => r.questions[0]?.question === question);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no pending question "${question}" within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Polls question.get until the record is no longer pending. */
export async function terminalRecord(gatewayUrl: string, id: string, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await rpcOk(gatewayUrl, "question.get", { id });
    if (record.status !== "pending") return record;
    if (Date.now() > deadline) throw new Error(`question ${id} still pending after ${timeoutMs} ms`);
    await sleep(50);
  }
}

export const textOf = (result: CallToolResult | Record<string, unknown>) =>
  (result.content as CallToolResult["content"]).map((c) => (c.type === "text" ? c.text : "")).join("\n");
