import { isTerminal, type CreateTaskResult } from "@modelcontextprotocol/sdk/experimental/tasks";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { normalizeAskUserInput } from "../../contract/normalize.ts";
import { waitingStatusText, type ToolCallExtra } from "./progress.ts";
import { resultToStatusMessage } from "./results.ts";
import type { McpSession } from "./session.ts";
import type { AskTaskStore } from "./task-store.ts";

/** The poll interval a task suggests (`pollInterval`): people answer in seconds to minutes. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 2_000;
/** A task outlives its question's timeout by this much: for slow deliveries, and to fetch the result. */
export const TASK_TTL_MARGIN_MS = 10 * 60_000;
/** The longest TTL a client may ask for, so a finished task's result is not kept for ever. */
export const TASK_TTL_MAX_MS = 24 * 60 * 60_000;

/**
 * The task's TTL: at least the question's timeout plus the margin, so the task never goes away while its question
 * waits; longer if the client asks (`task.ttl`), up to TASK_TTL_MAX_MS. The store keeps a finished task for the TTL
 * again from when it finished, then drops it.
 */
export function taskTtlMs(timeoutSeconds: number, requestedMs?: number | null): number {
  const floor = timeoutSeconds * 1000 + TASK_TTL_MARGIN_MS;
  return Math.max(floor, Math.min(requestedMs ?? floor, TASK_TTL_MAX_MS));
}

export interface AskUserTaskOptions {
  store: AskTaskStore;
  pollIntervalMs: number;
  log?: (message: string) => void;
}

/**
 * ask_user called with a `task`: creates the task at once, asks and waits in the background, and stores exactly the
 * result the plain call returns: `completed`, or `failed` for a tool error (`isError`, as the 2025-11-25 spec asks),
 * so `tasks/result` returns the same CallToolResult either way. Invalid input fails the task before the reply.
 * While it waits, the task's statusMessage says where the question went; `tasks/cancel` cancels the question.
 */
export async function startAskUserTask(session: McpSession, args: unknown, extra: ToolCallExtra, options: AskUserTaskOptions): Promise<CreateTaskResult> {
  const { store, pollIntervalMs, log = () => {} } = options;
  const tasks = extra.taskStore;
  if (!tasks) throw new Error("ask_user as a task needs the server's taskStore option");
  const normalized = normalizeAskUserInput(args);
  const ttl = taskTtlMs(normalized.ok ? normalized.value.timeoutSeconds : 0, extra.taskRequestedTtl);
  const task = await tasks.createTask({ ttl, pollInterval: pollIntervalMs });
  const { taskId } = task;

  // Each update is skipped once the task is finished or cancelled (the store refuses it).
  const setStatus = (text: string) => tasks.updateTaskStatus(taskId, "working", text).catch(() => {});
  const finish = async (result: CallToolResult) => {
    const current = await tasks.getTask(taskId).catch(() => undefined);
    if (!current || isTerminal(current.status)) return; // cancelled, or dropped after its TTL
    await setStatus(resultToStatusMessage(result));
    await tasks.storeTaskResult(taskId, result.isError ? "failed" : "completed", result);
  };

  let asked: { id: string; expiresAtMs: number } | undefined;
  const work = session
    .askUser(args, {
      signal: store.cancelSignal(taskId),
      extra,
      onRequested: (question) => {
        asked = question;
        log(`task ${taskId} asks ${question.id}`);
        void setStatus(waitingStatusText(question));
      },
      onUpdate: (record) => void (asked && setStatus(waitingStatusText(asked, record))),
    })
    .then(finish)
    .catch((error: unknown) => log(`task ${taskId}: could not store its result: ${(error as Error).message}`))
    .finally(() => store.release(taskId));

  if (normalized.ok) return { task };
  await work;
  return { task: await tasks.getTask(taskId) };
}
