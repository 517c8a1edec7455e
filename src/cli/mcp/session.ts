import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayClient } from "../../client/index.ts";
import { formatPath, normalizeAskUserInput } from "../../contract/normalize.ts";
import { GatewayError } from "../../kernel/errors.ts";
import type { QuestionRecord, Target } from "../../record/record.ts";
import { askUser } from "../../client/sdk.ts";
import { startWaitProgress, type ToolCallExtra } from "./progress.ts";
import {
  errorToToolResult,
  invalidInputToToolResult,
  lateAnswersToToolResult,
  pendingToToolResult,
  resultToToolResult,
  startedToToolResult,
} from "./results.ts";
import { createClaudeCodeAsker } from "../../coding-agents/claude-code.ts";
import { approveToolUseInputSchema, ASK_USER_WAIT_MAX_SECONDS, askUserLateAnswersInputSchema, askUserWaitInputSchema, type McpToolName } from "./tools.ts";

export interface McpSessionOptions {
  /** Opens the gateway link; called on first use, and again after a failed attempt. */
  connect: () => Promise<GatewayClient>;
  /** One MCP server process is one session: at most one pending question. */
  sessionKey: string;
  /** Where questions go; omitted means the gateway's ASK_DEFAULT_TARGETS. */
  targets?: Target[];
  progressIntervalMs: number;
  log?: (message: string) => void;
}

/** One ask_user call: the plain call's own request, or a task's background work. */
export interface AskUserCall {
  /** Aborted: the question is cancelled (reason aborted). */
  signal: AbortSignal;
  /** The request that asked: progress notifications go to its progress token, if it gave one. */
  extra: ToolCallExtra;
  /** Called once the gateway has accepted the question. */
  onRequested?: (question: { id: string; expiresAtMs: number }) => void;
  /**
   * Called with the pending question's record once it is asked, then each time it changes (a copy delivered, a
   * target retrying or failed).
   */
  onUpdate?: (record: QuestionRecord) => void;
}

export interface McpSession {
  callTool(name: McpToolName, args: unknown, extra: ToolCallExtra): Promise<CallToolResult>;
  /** ask_user for a task: the call's signal and listeners are the task's; the result is the plain call's. */
  askUser(args: unknown, call: AskUserCall): Promise<CallToolResult>;
  /**
   * The client went away: waits for running calls (their signals are aborted: the SDK aborts plain calls, and the
   * caller aborts tasks first with AskTaskStore.abortAll), then cancels open questions (reason aborted).
   */
  shutdown(): Promise<void>;
}

const SHUTDOWN_WAIT_MS = 5_000;
const BY_API = { surface: "api", via: "api" } as const;

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);

export function createMcpSession(options: McpSessionOptions): McpSession {
  const { sessionKey, targets, progressIntervalMs, log = () => {} } = options;
  /** Questions this session asked that may still be pending. */
  const openIds = new Set<string>();
  const running = new Set<Promise<unknown>>();
  let link: Promise<GatewayClient> | undefined;

  const gateway = () =>
    (link ??= options.connect().catch((error: unknown) => {
      link = undefined;
      throw error;
    }));

  const requestFields = (args: Record<string, unknown>) => ({
    ...args,
    questions: args.questions,
    sessionKey,
    ...(targets ? { targets } : {}),
  });

  const gatewayFailure = (tool: string, error: unknown): CallToolResult => {
    if (error instanceof GatewayError && error.code === "SESSION_HAS_PENDING_QUESTION" && openIds.size > 0) {
      const id = [...openIds].at(-1)!;
      return errorToToolResult(tool, error, `Question ${id} is still open: get its answer with ask_user_wait ${JSON.stringify({ id })} before asking again.`);
    }
    return errorToToolResult(tool, error);
  };

  async function cancelAborted(client: GatewayClient, id: string): Promise<void> {
    try {
      await client.resolve({ id, cancel: true, reason: "aborted", by: BY_API });
      log(`cancelled ${id} (aborted)`);
    } catch (error) {
      if (!(error instanceof GatewayError && error.code === "QUESTION_ALREADY_TERMINAL")) log(`could not cancel ${id}: ${(error as Error).message}`);
    }
    openIds.delete(id);
  }

  async function runAskUser(args: unknown, { signal, extra, onRequested, onUpdate }: AskUserCall): Promise<CallToolResult> {
    const normalized = normalizeAskUserInput(args);
    if (!normalized.ok) return invalidInputToToolResult("ask_user", normalized.issues);
    const stopProgress = startWaitProgress(extra, progressIntervalMs);
    let askedId: string | undefined;
    let updated = false;
    const update =
      onUpdate &&
      ((record: QuestionRecord) => {
        updated = true;
        onUpdate(record);
      });
    try {
      const client = await gateway();
      const result = await askUser(client, args, {
        signal,
        sessionKey,
        ...(targets ? { targets } : {}),
        onRequested: (question) => {
          askedId = question.id;
          openIds.add(question.id);
          log(`asked ${question.id}; waiting`);
          onRequested?.(question);
          // The record as asked, unless an update (newer) comes first.
          if (update) client.get(question.id).then((record) => updated || update(record), () => {});
        },
        ...(update ? { onUpdate: update } : {}),
      });
      if (askedId) openIds.delete(askedId);
      const expired = askedId && result.status === "no_answer" && result.reason === "expired";
      const lateUntilMs = expired ? (await client.get(askedId!).catch(() => undefined))?.lateUntilMs : undefined;
      return resultToToolResult(result, normalized.value.questions, {}, lateUntilMs);
    } catch (error) {
      return gatewayFailure("ask_user", error);
    } finally {
      stopProgress();
    }
  }

  async function runAskUserStart(args: unknown, extra: ToolCallExtra): Promise<CallToolResult> {
    const normalized = normalizeAskUserInput(args);
    if (!normalized.ok) return invalidInputToToolResult("ask_user_start", normalized.issues);
    try {
      const client = await gateway();
      const { id, expiresAtMs } = await client.request(requestFields(args as Record<string, unknown>));
      openIds.add(id);
      log(`asked ${id} (ask_user_start)`);
      // Cancelled (or disconnected) while the request was in flight: nobody will ever learn the id.
      if (extra.signal.aborted) await cancelAborted(client, id);
      return startedToToolResult({ id, expiresAtMs });
    } catch (error) {
      return gatewayFailure("ask_user_start", error);
    }
  }

  async function runAskUserWait(args: unknown, extra: ToolCallExtra): Promise<CallToolResult> {
    const parsed = askUserWaitInputSchema.safeParse(args);
    if (!parsed.success) {
      const issues = parsed.error.issues.flatMap((i) =>
        i.code === "unrecognized_keys" ? i.keys.map((key) => ({ path: formatPath([...i.path, key]), message: "unknown field" })) : [{ path: formatPath(i.path), message: i.message }],
      );
      return invalidInputToToolResult("ask_user_wait", issues);
    }
    const { id, timeoutSeconds = ASK_USER_WAIT_MAX_SECONDS } = parsed.data;
    const stopProgress = startWaitProgress(extra, progressIntervalMs);
    try {
      const client = await gateway();
      // A cancelled wait only stops waiting: clients send notifications/cancelled when their own timeout fires.
      const stopped = new Promise<"stopped">((resolve) => extra.signal.addEventListener("abort", () => resolve("stopped"), { once: true }));
      const outcome = await Promise.race([client.waitAnswer({ id, timeoutMs: timeoutSeconds * 1000 }), stopped]);
      if (outcome === "stopped" || outcome.status === "pending") return pendingToToolResult(id);
      openIds.delete(id);
      const { id: _id, record, ...result } = outcome;
      return resultToToolResult(result, record.questions, { id }, record.lateUntilMs);
    } catch (error) {
      if (error instanceof GatewayError && (error.code === "DISCONNECTED" || error.code === "TIMEOUT")) {
        return pendingToToolResult(id, `The gateway link dropped while waiting (${error.message}); the question is kept. `);
      }
      return errorToToolResult("ask_user_wait", error);
    } finally {
      stopProgress();
    }
  }

  /**
   * ask_user_late_answers' cursor: late answers up to this time were returned, and which ones at exactly this time
   * (two may share a millisecond), so each is returned once.
   */
  let lateCursor = { atMs: 0, ids: new Set<string>() };

  async function runLateAnswers(args: unknown): Promise<CallToolResult> {
    const parsed = askUserLateAnswersInputSchema.safeParse(args);
    if (!parsed.success) {
      return invalidInputToToolResult("ask_user_late_answers", parsed.error.issues.flatMap((i) =>
        i.code === "unrecognized_keys" ? i.keys.map((key) => ({ path: formatPath([...i.path, key]), message: "unknown field" })) : [{ path: formatPath(i.path), message: i.message }],
      ));
    }
    try {
      const client = await gateway();
      const fresh = (await client.lateAnswers({ sessionKey }))
        .filter((r) => r.lateAnswer.atMs > lateCursor.atMs || (r.lateAnswer.atMs === lateCursor.atMs && !lateCursor.ids.has(r.id)))
        .sort((a, b) => a.lateAnswer.atMs - b.lateAnswer.atMs);
      const last = fresh.at(-1);
      if (last) {
        const atMs = last.lateAnswer.atMs;
        const ids = new Set(fresh.filter((r) => r.lateAnswer.atMs === atMs).map((r) => r.id));
        lateCursor = { atMs, ids: atMs === lateCursor.atMs ? new Set([...lateCursor.ids, ...ids]) : ids };
      }
      return lateAnswersToToolResult(fresh);
    } catch (error) {
      return errorToToolResult("ask_user_late_answers", error);
    }
  }

  /**
   * Claude Code's permission prompt tool: one Allow/Deny question, answered with the decision JSON as text. Nothing
   * (no answer, a gateway it cannot reach) ever allows. Not bound to the session's one pending question: Claude Code
   * may ask about several tool uses at once.
   */
  async function runApproveToolUse(args: unknown, extra: ToolCallExtra): Promise<CallToolResult> {
    const parsed = approveToolUseInputSchema.safeParse(args);
    const decide = (decision: object): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(decision) }] });
    if (!parsed.success) {
      const what = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join("; ");
      return decide({ behavior: "deny", message: `approve_tool_use could not read the request (${what.slice(0, 500)}), so it was not approved.` });
    }
    try {
      const asker = createClaudeCodeAsker({ client: await gateway(), ...(targets ? { targets } : {}) });
      const suggestions = parsed.data.permission_suggestions;
      // Claude Code runs this server in the session's folder: Write and Edit are diffed against the files there.
      return decide((await asker.approve(parsed.data.tool_name, parsed.data.input, { signal: extra.signal, cwd: process.cwd(), ...(suggestions?.length ? { suggestions } : {}) }))!);
    } catch (error) {
      const why = error instanceof GatewayError ? `${error.code}: ${error.message}` : (error as Error).message;
      return decide({ behavior: "deny", message: `The person could not be asked (${why}), so this was not approved. Continue without it.` });
    }
  }

  const tools: Record<McpToolName, (args: unknown, extra: ToolCallExtra) => Promise<CallToolResult>> = {
    ask_user: (args, extra) => runAskUser(args, { signal: extra.signal, extra }),
    ask_user_start: runAskUserStart,
    ask_user_wait: runAskUserWait,
    ask_user_late_answers: runLateAnswers,
    approve_tool_use: runApproveToolUse,
  };

  /** Keeps a running call until it settles, so shutdown can wait for it. */
  const track = (call: Promise<CallToolResult>) => {
    running.add(call);
    const done = () => void running.delete(call);
    call.then(done, done);
    return call;
  };

  return {
    callTool: (name, args, extra) => track(tools[name](args ?? {}, extra)),
    askUser: (args, call) => track(runAskUser(args ?? {}, call)),

    async shutdown() {
      await withTimeout(Promise.allSettled([...running]), SHUTDOWN_WAIT_MS);
      if (!link) return;
      const client = await link.catch(() => undefined);
      if (!client) return;
      await withTimeout(Promise.allSettled([...openIds].map((id) => cancelAborted(client, id))), SHUTDOWN_WAIT_MS);
      client.close();
    },
  };
}
