import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ConfigError, type Config } from "../runtime/config.ts";
import type { Target } from "../record/record.ts";
import { formatTarget, parseTarget } from "../record/targets.ts";
import { EXAMPLE_TARGETS } from "../platforms/descriptors.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { connectFromConfig, gatewayToken, gatewayEndpoint } from "../client/from-config.ts";
import { DEFAULT_TASK_POLL_INTERVAL_MS } from "./mcp/ask-task.ts";
import { DEFAULT_PROGRESS_INTERVAL_MS } from "./mcp/progress.ts";
import { createMcpServer } from "./mcp/server.ts";
import { createMcpSession } from "./mcp/session.ts";
import { AskTaskStore } from "./mcp/task-store.ts";
import { selfCommand } from "./self-command.ts";

export const MCP_HELP = `Usage: ask-user-bridge mcp [--to TARGET]...

Runs an MCP server on stdin/stdout, so any MCP client (a coding assistant, a desktop chat app) can ask a person.
Tools:
  ask_user        asks 1-3 structured questions and waits for the answers (sends progress while waiting)
  ask_user_start  asks and returns the question id at once
  ask_user_wait   waits up to 50 s for the answer to a started question: "pending" or the final result
  ask_user_late_answers
                  the answers people gave after this session's questions expired, since its last call
  approve_tool_use
                  Claude Code's permission prompt tool (claude -p --permission-prompt-tool
                  mcp__<server>__approve_tool_use): an Allow/Deny question; no answer never allows

A client with MCP tasks (protocol 2025-11-25) may call ask_user as a task: it gets the task at once and polls it
(tasks/get, tasks/result) for as long as the person takes, with no tool-call timeout; tasks/cancel cancels the
question. Any other client gets the plain call.

  --to TARGET   where to ask; repeatable. SURFACE:CHAT or SURFACE:CHAT:USER+USER or web
                (e.g. ${EXAMPLE_TARGETS.join(", ")}).
                Default: the gateway's ASK_DEFAULT_TARGETS, else the web Control UI.

Talks to the gateway at GATEWAY_URL with GATEWAY_TOKEN. One server process is one session: it holds at most
one pending question, and a cancelled call or task, or a closed client, cancels it (reason "aborted").
stdout carries the MCP protocol; logs go to stderr.`;

/** How long the start-up check waits for the gateway's /healthz before it says the gateway did not answer. */
export const GATEWAY_CHECK_TIMEOUT_MS = 3_000;

/**
 * The client set-ups for this very install: the binary by its absolute path (never `npx -y ask-user-bridge`, which
 * would fetch whatever package of that name the registry holds).
 */
export function mcpClientSnippets(entry = process.argv[1]): string {
  const command = selfCommand(["mcp", "--to", EXAMPLE_TARGETS[0]!], entry);
  const [executable, ...args] = entry ? [process.execPath, ...process.execArgv, resolve(entry), "mcp", "--to", EXAMPLE_TARGETS[0]!] : ["ask-user-bridge", "mcp", "--to", EXAMPLE_TARGETS[0]!];
  const block = JSON.stringify({ command: executable, args, env: { GATEWAY_URL: "http://127.0.0.1:8787", GATEWAY_TOKEN: "<the gateway's token>" } });
  return `Add this install to an MCP client (after \`npm install -g\`, "ask-user-bridge" on the PATH works too):
  Claude Code:     claude mcp add ask-user --env GATEWAY_URL=http://127.0.0.1:8787 --env GATEWAY_TOKEN=<the gateway's token> -- ${command}
  Claude Desktop, Cursor (mcpServers) and VS Code (servers, with "type": "stdio"):
                   "ask-user": ${block}`;
}

/** Whether the gateway at `url` answers its /healthz: the words for the ready line. */
export async function gatewayCheck(url: string, timeoutMs = GATEWAY_CHECK_TIMEOUT_MS): Promise<string> {
  try {
    const res = await fetch(new URL("/healthz", url.replace(/^ws/u, "http")), { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    if (res.ok) return `gateway at ${url} answered`;
    return `gateway at ${url} did not answer (HTTP ${res.status} from /healthz); questions will fail until it does`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? ((error as Error).name === "TimeoutError" ? `no answer in ${timeoutMs / 1000} s` : (error as Error).message);
    return `gateway at ${url} did not answer (${cause}); questions will fail until it does`;
  }
}

export interface McpCommandOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Default: ASK_MCP_PROGRESS_INTERVAL_MS, else 10 s. */
  progressIntervalMs?: number;
  /** The poll interval a task suggests. Default: ASK_MCP_TASK_POLL_INTERVAL_MS, else 2 s. */
  taskPollIntervalMs?: number;
}

function msFromEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return fallback;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms <= 0) throw new ConfigError([`${name}: "${value}" is not a positive number of milliseconds`]);
  return ms;
}

/** `ask-user-bridge mcp`: serves MCP on stdio until the client goes away; returns the exit code. */
export async function runMcp(
  argv: string[],
  config: Config,
  io: { out: (s: string) => void; err: (s: string) => void },
  options: McpCommandOptions = {},
): Promise<number> {
  const { values } = parseCommandArgs(argv, { to: { type: "string", multiple: true } });
  if (values.help) {
    io.out(`${MCP_HELP}\n\n${mcpClientSnippets()}`);
    return 0;
  }
  const targets: Target[] | undefined = values.to?.map((text) => {
    const parsed = parseTarget(text);
    if (!parsed.ok) throw new UsageError(`--to ${parsed.message}`);
    return parsed.target;
  });
  try {
    gatewayToken(config); // fail at start-up, where the client shows it, not on the first question
  } catch (error) {
    throw new ConfigError([(error as Error).message]);
  }
  const progressIntervalMs = options.progressIntervalMs ?? msFromEnv("ASK_MCP_PROGRESS_INTERVAL_MS", DEFAULT_PROGRESS_INTERVAL_MS);
  const taskPollIntervalMs = options.taskPollIntervalMs ?? msFromEnv("ASK_MCP_TASK_POLL_INTERVAL_MS", DEFAULT_TASK_POLL_INTERVAL_MS);
  const sessionKey = `mcp-${randomBytes(8).toString("hex")}`;
  const log = (message: string) => io.err(`ask-user-bridge mcp: ${message}`);

  const session = createMcpSession({
    connect: () => connectFromConfig(config, { log: (m, e) => log(`${m}${e ? `: ${(e as Error).message ?? e}` : ""}`) }),
    sessionKey,
    ...(targets ? { targets } : {}),
    progressIntervalMs,
    log,
  });
  const taskStore = new AskTaskStore();
  const server = createMcpServer(session, { taskStore, taskPollIntervalMs, log });
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  server.onerror = (error) => log(`protocol error: ${error.message}`);
  const close = () => void server.close().catch(() => {});
  const onStdoutError = (error: Error) => {
    log(`stdout failed (${error.message}); closing`);
    close();
  };
  stdout.on("error", onStdoutError);
  stdin.once("end", close);
  stdin.once("close", close);
  process.once("SIGINT", close);
  process.once("SIGTERM", close);
  try {
    await server.connect(new StdioServerTransport(stdin, stdout));
    const where = targets ? targets.map(formatTarget).join(", ") : "the gateway's default targets";
    log(`ready (session ${sessionKey}; ${await gatewayCheck(gatewayEndpoint(config).url)}; asking ${where})`);
    await closed;
    log("client disconnected; cancelling any pending question");
    taskStore.abortAll();
    await session.shutdown();
    return 0;
  } finally {
    taskStore.cleanup(); // its TTL timers would keep the process alive
    stdin.off("end", close);
    stdin.off("close", close);
    process.off("SIGINT", close);
    process.off("SIGTERM", close);
    stdin.destroy();
  }
}
