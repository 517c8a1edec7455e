/**
 * ask_user as an MCP task (protocol 2025-11-25), with the MCP SDK's own Client over stdio against the real
 * `ask-user-bridge mcp` child and a real gateway: the tool and capability are announced; a task is created at once
 * and polled past the client's request timeout while the person takes their time; tasks/result returns exactly the
 * plain call's result (answered, invalid input, expired); tasks/cancel and a closed client cancel the question
 * (reason aborted); the plain call is unchanged alongside.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Task } from "@modelcontextprotocol/sdk/experimental/tasks";
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskTtlMs } from "../../src/cli/mcp/ask-task.ts";
import { cleanup, rpcOk, sleep, startTestGateway, type TestGateway } from "../helpers/gateway.ts";
import { closeMcpClients, deployQuestion, pendingRecord, startMcp, terminalRecord, textOf, type McpRun } from "../helpers/mcp.ts";

const POLL_MS = 100;
const RELATED_TASK = "io.modelcontextprotocol/related-task";

let gateway: TestGateway;
/** One server process (one session) for the tests that run in order; each leaves no question pending. */
let shared: McpRun;
let closing: Promise<McpRun>;
beforeAll(async () => {
  gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
  const env = { ASK_MCP_TASK_POLL_INTERVAL_MS: String(POLL_MS), ASK_MCP_PROGRESS_INTERVAL_MS: "200" };
  closing = startMcp(gateway.url, [], env);
  closing.catch(() => {});
  shared = await startMcp(gateway.url, [], env);
}, 60_000);
afterAll(async () => {
  await closeMcpClients();
  await gateway.close();
  await cleanup();
});

const answer = (id: string, answers: Record<string, string | string[]>) => rpcOk(gateway.url, "question.resolve", { id, answers });

/** tools/call with a `task`, as a task-capable host sends it; resolves to the CreateTaskResult. */
function callAsTask(client: Client, args: Record<string, unknown>, options: { onprogress?: (p: { progress: number }) => void } = {}) {
  return client.request({ method: "tools/call", params: { name: "ask_user", arguments: args } }, CreateTaskResultSchema, {
    task: { ttl: 60_000 },
    timeout: 1_000,
    ...options,
  });
}

/** Polls tasks/get (each request may take at most 1 s) until `done`; returns every state seen. */
async function pollTask(client: Client, taskId: string, done: (task: Task) => boolean, timeoutMs = 10_000): Promise<Task[]> {
  const seen: Task[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId, { timeout: 1_000 });
    seen.push(task);
    if (done(task)) return seen;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
}

const taskResult = (client: Client, taskId: string) => client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 1_000 });
/** What the model sees: the result without the protocol's related-task _meta. */
const withoutMeta = ({ _meta, ...result }: CallToolResult) => result;

describe("ask_user as an MCP task, over stdio: one session, in order", () => {
  it("tools/list shows ask_user with taskSupport optional (the others without), and the server declares tasks", async () => {
    const { client } = shared;
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.execution])).toEqual([
      ["ask_user", { taskSupport: "optional" }],
      ["ask_user_start", undefined],
      ["ask_user_wait", undefined],
      ["ask_user_late_answers", undefined],
      ["approve_tool_use", undefined],
    ]);
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  it("a task is created at once, polled past the client's request timeout, and tasks/result returns the plain call's result", async () => {
    const { client } = shared;
    // The plain call first, answered the same way, for the result to compare with.
    const plainQuestion = "Where should I deploy (plain, to compare)?";
    const plainCall = client.callTool({ name: "ask_user", arguments: deployQuestion(plainQuestion) });
    await answer((await pendingRecord(gateway.url, plainQuestion)).id, { deploy_target: "Production" });
    const plain = (await plainCall) as CallToolResult;
    expect(plain.structuredContent).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });

    const question = "Where should I deploy (task)?";
    const progress: Array<{ progress: number }> = [];
    const startedMs = Date.now();
    const { task } = await callAsTask(client, deployQuestion(question), { onprogress: (p) => void progress.push(p) });
    expect(task).toMatchObject({ status: "working", pollInterval: POLL_MS });
    expect(task.ttl).toBe(taskTtlMs(900, 60_000)); // the default 15-minute question outlives the 60 s asked for
    expect(task.ttl).toBeGreaterThan(900_000);
    const record = await pendingRecord(gateway.url, question);
    expect(record.sessionKey).toMatch(/^mcp-[0-9a-f]+$/);

    // The person takes longer than any one request may: 2.5 s of polling, each tasks/get allowed 1 s.
    const waiting = await pollTask(client, task.taskId, () => Date.now() - startedMs > 2_500);
    expect(waiting.length).toBeGreaterThan(5);
    for (const seen of waiting) expect(seen.status).toBe("working");
    expect(waiting.at(-1)!.statusMessage).toMatch(/^Waiting for the answer until \d{4}-\d\d-\d\dT[\d:.]+Z: shown in the Control UI\.$/);
    expect(progress.length).toBeGreaterThan(3); // the progress token stays valid for the task's life

    await answer(record.id, { deploy_target: "Production" });
    const finished = (await pollTask(client, task.taskId, (t) => t.status !== "working")).at(-1)!;
    expect(finished).toMatchObject({ status: "completed", statusMessage: "Answered." });
    const result = await taskResult(client, task.taskId);
    expect(result._meta?.[RELATED_TASK]).toEqual({ taskId: task.taskId });
    expect(withoutMeta(result)).toEqual(withoutMeta(plain));
    expect(textOf(result)).toBe("Deployment t: Production");
  });

  it("the SDK's callToolStream runs ask_user as a task on its own (taskSupport optional) and ends with the result", async () => {
    const { client } = shared;
    await client.listTools(); // the client learns which tools run as tasks from tools/list
    const question = "Where should I deploy (callToolStream)?";
    const answered = pendingRecord(gateway.url, question).then((r) => answer(r.id, { deploy_target: "Staging (Recommended)" }));
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream({ name: "ask_user", arguments: deployQuestion(question) })) messages.push(message);
    await answered;
    expect(messages[0]).toMatchObject({ type: "taskCreated", task: { status: "working" } });
    expect(messages.slice(1, -1).every((m) => m.type === "taskStatus")).toBe(true);
    const last = messages.at(-1)!;
    expect(last.type).toBe("result");
    expect(last.type === "result" && last.result.structuredContent).toMatchObject({
      status: "answered",
      answers: { answers: { deploy_target: ["Staging (Recommended)"] } },
    });
  });

  it("invalid input: the task has failed before the reply, and tasks/result is the plain call's invalid_input result", async () => {
    const { client } = shared;
    const bad = { questions: [{ id: "Bad-Id", header: "Deploy", question: "Where (invalid task)?", options: [{ label: "Staging" }] }], foo: 1 };
    const plain = (await client.callTool({ name: "ask_user", arguments: bad })) as CallToolResult;
    expect(plain).toMatchObject({ isError: true, structuredContent: { status: "invalid_input" } });

    const { task } = await callAsTask(client, bad);
    expect(task.status).toBe("failed");
    expect(task.statusMessage).toBe(textOf(plain));
    for (const path of ["questions[0].id", "questions[0].options", "foo"]) expect(task.statusMessage).toContain(`${path}: `);
    expect(withoutMeta(await taskResult(client, task.taskId))).toEqual(withoutMeta(plain));
    const { questions } = await rpcOk(gateway.url, "question.list", {});
    expect(questions.some((r: any) => r.questions[0]?.question === "Where (invalid task)?")).toBe(false);
  });

  it("tasks/cancel cancels the question on the gateway with reason aborted, as cancelling the plain call does", async () => {
    const { client } = shared;
    const question = "Where should I deploy (task cancelled)?";
    const { task } = await callAsTask(client, deployQuestion(question));
    const record = await pendingRecord(gateway.url, question);
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    expect(await terminalRecord(gateway.url, record.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "cancelled" });
    // A finished task cannot be cancelled again (the spec's -32602).
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.find((t) => t.taskId === task.taskId)?.status).toBe("cancelled");
  });

  it("an expired question: no_answer expired via the task, the same result as the plain call", async () => {
    const { client } = shared;
    const plain = (await client.callTool({ name: "ask_user", arguments: deployQuestion("Where (expires, plain)?", { timeoutSeconds: 1 }) })) as CallToolResult;
    expect(plain.structuredContent).toEqual({ status: "no_answer", reason: "expired" });

    const { task } = await callAsTask(client, deployQuestion("Where (expires, task)?", { timeoutSeconds: 1 }));
    expect(task.ttl).toBe(taskTtlMs(30, 60_000)); // the contract's lowest timeout, at least what the gateway uses
    const finished = (await pollTask(client, task.taskId, (t) => t.status !== "working")).at(-1)!;
    expect(finished).toMatchObject({ status: "completed", statusMessage: "No answer (expired)." });
    const result = await taskResult(client, task.taskId);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(plain.structuredContent);
    expect(textOf(result)).toMatch(/^No answer \(expired\)\. Continue with your best judgment\. The person may still answer until \S+Z: ask_user_late_answers/);
    expect(textOf(plain)).toMatch(/^No answer \(expired\)\. Continue with your best judgment\. The person may still answer until \S+Z: ask_user_late_answers/);
  });

  it("a task for a tool that does not run as one is refused with Method not found", async () => {
    const { client } = shared;
    const refused = client.request({ method: "tools/call", params: { name: "ask_user_wait", arguments: { id: "q1" } } }, CreateTaskResultSchema, { task: {} });
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.MethodNotFound });
  });
});

describe("ask_user as an MCP task: the client goes away", () => {
  it("closing the client while a task waits cancels the question (reason aborted), and the server exits at once", async () => {
    const run = await closing;
    const question = "Where should I deploy (task, client closed)?";
    const { task } = await callAsTask(run.client, deployQuestion(question));
    expect(task.status).toBe("working");
    const record = await pendingRecord(gateway.url, question);
    const closingMs = Date.now();
    await run.client.close();
    expect(Date.now() - closingMs).toBeLessThan(1_900); // exited on stdin end, before the transport's SIGTERM at 2 s
    expect(await terminalRecord(gateway.url, record.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
    expect(run.stderr()).toMatch(/client disconnected/);
  });
});
