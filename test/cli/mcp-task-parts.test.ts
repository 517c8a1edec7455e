/**
 * The parts of ask_user's MCP tasks that need no process: the task store (tasks/cancel aborts the work, finished
 * tasks are dropped after their TTL), the TTL rule, and the statusMessage texts.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { TASK_TTL_MARGIN_MS, TASK_TTL_MAX_MS, taskTtlMs } from "../../src/cli/mcp/ask-task.ts";
import { waitingStatusText } from "../../src/cli/mcp/progress.ts";
import { invalidInputToToolResult, resultToStatusMessage, resultToToolResult } from "../../src/cli/mcp/results.ts";
import { AskTaskStore } from "../../src/cli/mcp/task-store.ts";
import type { QuestionRecord } from "../../src/record/record.ts";
import { sleep } from "../helpers/gateway.ts";

const REQUEST = { method: "tools/call", params: { name: "ask_user" } };

describe("AskTaskStore", () => {
  it("tasks/cancel (the status cancelled) aborts the task's signal; release forgets it", async () => {
    const store = new AskTaskStore();
    const task = await store.createTask({ ttl: 60_000 }, 1, REQUEST);
    const signal = store.cancelSignal(task.taskId);
    expect(store.workingCount).toBe(1);
    await store.updateTaskStatus(task.taskId, "working", "Delivered to telegram:1");
    expect(signal.aborted).toBe(false);
    await store.updateTaskStatus(task.taskId, "cancelled", "Client cancelled task execution.");
    expect(signal.aborted).toBe(true);
    store.release(task.taskId);
    expect(store.workingCount).toBe(0);
    store.cleanup();
  });

  it("a finished task is dropped once its TTL has passed again from when it finished", async () => {
    const store = new AskTaskStore();
    const task = await store.createTask({ ttl: 150 }, 1, REQUEST);
    await sleep(100);
    await store.storeTaskResult(task.taskId, "completed", { content: [] });
    await sleep(100); // 200 ms after creation, 100 ms after finishing
    expect(await store.getTask(task.taskId)).toMatchObject({ status: "completed" });
    await sleep(100);
    expect(await store.getTask(task.taskId)).toBeNull();
    expect(store.getAllTasks()).toEqual([]);
  });

  it("abortAll aborts the work of every task still running", async () => {
    const store = new AskTaskStore();
    const signals = await Promise.all([1, 2].map(async (id) => store.cancelSignal((await store.createTask({ ttl: 60_000 }, id, REQUEST)).taskId)));
    store.abortAll();
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    store.cleanup();
    expect(store.getAllTasks()).toEqual([]);
  });
});

describe("taskTtlMs", () => {
  it.each([
    { timeoutSeconds: 900, requested: undefined, ttl: 900_000 + TASK_TTL_MARGIN_MS, why: "no ttl asked: the timeout plus the margin" },
    { timeoutSeconds: 900, requested: 60_000, ttl: 900_000 + TASK_TTL_MARGIN_MS, why: "a shorter ttl would drop the task while its question waits" },
    { timeoutSeconds: 30, requested: 7_200_000, ttl: 7_200_000, why: "a longer ttl is granted" },
    { timeoutSeconds: 3600, requested: 10 * TASK_TTL_MAX_MS, ttl: TASK_TTL_MAX_MS, why: "up to the maximum" },
    { timeoutSeconds: 0, requested: null, ttl: TASK_TTL_MARGIN_MS, why: "invalid input (no question): the margin" },
  ])("$why", ({ timeoutSeconds, requested, ttl }) => {
    expect(taskTtlMs(timeoutSeconds, requested)).toBe(ttl);
  });
});

describe("statusMessage texts", () => {
  const question = { id: "q1", expiresAtMs: Date.UTC(2030, 0, 2, 3, 4, 5) };
  const until = "Waiting for the answer until 2030-01-02T03:04:05.000Z";
  const record = (fields: Partial<QuestionRecord>) => ({ targets: [], deliveries: [], ...fields }) as unknown as QuestionRecord;
  const delivery = (surface: string, chat: string) => ({ surface, chat, messageRef: "m", deliveredAtMs: 0 });

  it.each([
    { why: "asked, no record yet", rec: undefined, text: `${until} (question q1).` },
    { why: "the web target", rec: record({ targets: [{ surface: "web" }] }), text: `${until}: shown in the Control UI.` },
    {
      why: "delivered copies, each chat once",
      rec: record({ targets: [{ surface: "telegram", chat: "1" }, { surface: "slack", chat: "C1" }], deliveries: [delivery("telegram", "1"), delivery("telegram", "1"), delivery("slack", "C1")] as never }),
      text: `${until}: delivered to telegram:1, slack:C1.`,
    },
    {
      why: "targets retrying or failed, with the platform's reason",
      rec: record({
        targets: [{ surface: "telegram", chat: "1" }, { surface: "discord", chat: "2" }],
        targetStates: [
          { surface: "telegram", chat: "1", state: "retrying", reason: "502 Bad Gateway", atMs: 0 },
          { surface: "discord", chat: "2", state: "failed", reason: "50007", atMs: 0 },
        ],
      }),
      text: `${until}: telegram:1 is retrying (502 Bad Gateway); discord:2 cannot receive it (50007).`,
    },
    { why: "a chat target not delivered yet", rec: record({ targets: [{ surface: "telegram", chat: "1" }] }), text: `${until} (question q1, not delivered yet).` },
  ])("while waiting: $why", ({ rec, text }) => {
    expect(waitingStatusText(question, rec)).toBe(text);
  });

  const questions = [{ id: "deploy_target", header: "Deploy" }];
  it.each([
    { result: resultToToolResult({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } }, questions), text: "Answered." },
    { result: resultToToolResult({ status: "no_answer", reason: "skipped" }, questions), text: "No answer (skipped)." },
    { result: resultToToolResult({ status: "delivery_failed", reason: "no surface" }, questions), text: "The question could not be delivered: no surface." },
    { result: invalidInputToToolResult("ask_user", [{ path: "questions[0].id", message: "bad" }]), text: "ask_user input is invalid:\nquestions[0].id: bad" },
  ] as Array<{ result: CallToolResult; text: string }>)("finished: $text", ({ result, text }) => {
    expect(resultToStatusMessage(result)).toBe(text);
  });
});
