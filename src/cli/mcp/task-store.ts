import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import type { Task } from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP SDK's in-memory task store, which the SDK's protocol layer serves `tasks/get`, `tasks/result`,
 * `tasks/list` and `tasks/cancel` from. It drops each task `ttl` ms after it was created, and again `ttl` ms after
 * it finished, whatever its status, so finished tasks do not pile up.
 *
 * The SDK cancels a task only in the store (`tasks/cancel` sets the status): this store also aborts the signal the
 * task's work got from `cancelSignal`, so the question is cancelled on the gateway, as a cancelled plain call is.
 * (The SDK's own interactive-task example extends InMemoryTaskStore the same way, to hear of status changes.)
 */
export class AskTaskStore extends InMemoryTaskStore {
  readonly #working = new Map<string, AbortController>();

  /** The signal that `tasks/cancel` (or `abortAll`) aborts; `release` it when the task's work is done. */
  cancelSignal(taskId: string): AbortSignal {
    const controller = new AbortController();
    this.#working.set(taskId, controller);
    return controller.signal;
  }

  release(taskId: string): void {
    this.#working.delete(taskId);
  }

  /** How many tasks still have work running. */
  get workingCount(): number {
    return this.#working.size;
  }

  override async updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string, sessionId?: string): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === "cancelled") this.#working.get(taskId)?.abort();
  }

  /** The client went away: aborts the work of every task still running (each cancels its question). */
  abortAll(): void {
    for (const controller of this.#working.values()) controller.abort();
  }
}
