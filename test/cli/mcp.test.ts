/**
 * `ask-user-bridge mcp` as a child process, driven by the MCP SDK's own Client over stdio, against a real gateway:
 * tools and schemas; ask_user answered through the protocol; validation errors as tool errors; the start/wait pair;
 * one pending question per session; progress while waiting; a cancelled request and a closed client cancel the
 * question (reason aborted); an unreachable gateway is a clear tool error.
 */
import { spawn } from "node:child_process";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/runtime/config.ts";
import { askUserInputJsonSchema } from "../../src/contract/schema.ts";
import { runMcp } from "../../src/cli/mcp.ts";
import { ASK_USER_DESCRIPTION } from "../../src/contract/tool.ts";
import { BIN, cleanup, freePort, rpcOk, sleep, startTestGateway, tempDir, type TestGateway } from "../helpers/gateway.ts";
import {
  closeMcpClients,
  deployQuestion,
  pendingRecord as pendingRecordOn,
  startMcp as startMcpFor,
  terminalRecord as terminalRecordOn,
  textOf,
  type McpRun,
} from "../helpers/mcp.ts";

let gateway: TestGateway;
/** One server process (one session) for the tests that run in order; each leaves no question pending. */
let shared: McpRun;
/** Started up front, in parallel: a child costs ~1.5 s of CPU to start. */
let routed: Promise<McpRun>;
let unreachable: Promise<McpRun>;
beforeAll(async () => {
  gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
  routed = startMcp(["--to", "telegram:123456789", "--to", "web"]);
  unreachable = freePort().then((port) => startMcp([], { GATEWAY_URL: `http://127.0.0.1:${port}` }));
  routed.catch(() => {});
  unreachable.catch(() => {});
  shared = await startMcp();
}, 60_000);
afterAll(async () => {
  await closeMcpClients();
  await gateway.close();
  await cleanup();
});

/** The server for this file's gateway, with progress every 200 ms. */
const startMcp = (args: string[] = [], env: Record<string, string> = {}) => startMcpFor(gateway.url, args, { ASK_MCP_PROGRESS_INTERVAL_MS: "200", ...env });
const pendingRecord = (question: string, timeoutMs?: number) => pendingRecordOn(gateway.url, question, timeoutMs);
const terminalRecord = (id: string, timeoutMs?: number) => terminalRecordOn(gateway.url, id, timeoutMs);
/** Polls `read` until it gives a value (10 s at most). */
async function waitFor<T>(read: () => T | undefined): Promise<T> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(25)) {
    const value = read();
    if (value !== undefined) return value;
  }
  throw new Error("timed out");
}
const answer = (id: string, answers: Record<string, string | string[]>) => rpcOk(gateway.url, "question.resolve", { id, answers });

describe("ask-user-bridge mcp over stdio: one session, in order", () => {
  it("lists ask_user, ask_user_start and ask_user_wait with the contract's JSON Schema and the model guidance", async () => {
    const { client } = shared;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["ask_user", "ask_user_start", "ask_user_wait", "ask_user_late_answers", "approve_tool_use"]);
    const [ask, start, wait] = tools;
    expect(ask!.description).toBe(ASK_USER_DESCRIPTION);
    expect(ask!.inputSchema).toEqual(askUserInputJsonSchema);
    expect(start!.inputSchema).toEqual(askUserInputJsonSchema);
    const schema = ask!.inputSchema as any;
    expect(schema).toMatchObject({ type: "object", required: ["questions"], additionalProperties: false });
    expect(schema.properties.questions).toMatchObject({ minItems: 1, maxItems: 3 });
    expect(schema.properties.questions.items.properties.options).toMatchObject({ minItems: 2, maxItems: 4 });
    expect(schema.properties.questions.items.properties.id.pattern).toBe("^[a-z][a-z0-9_]*$");
    expect(start!.description).toMatch(/ask_user_wait/);
    expect(wait!.inputSchema).toMatchObject({
      type: "object",
      required: ["id"],
      properties: { id: { type: "string" }, timeoutSeconds: { type: "integer", maximum: 50 } },
    });
    expect(shared.client.getInstructions()).toMatch(/ask_user_start/);
  });

  it("ask_user: answered through the protocol, the client gets `Header: answer` lines and the result JSON", async () => {
    const { client } = shared;
    const question = "Which environment should I use (answered)?";
    const call = client.callTool({
      name: "ask_user",
      arguments: {
        questions: [
          { id: "env", header: "Deployment target", question, options: [{ label: "Staging (Recommended)" }, { label: "Production" }] },
          { id: "checks", header: "Checks", question: "Which checks should run?", multiSelect: true, options: [{ label: "Lint" }, { label: "Unit" }, { label: "E2E" }] },
        ],
      },
    });
    const record = await pendingRecord(question);
    expect(record.sessionKey).toMatch(/^mcp-[0-9a-f]+$/);
    expect(record.targets).toEqual([{ surface: "web" }]); // no --to: the gateway's default
    await answer(record.id, { env: "staging (recommended)", checks: ["Lint", "E2E"] });
    const result = (await call) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("Deployment t: Staging (Recommended)\nChecks: Lint, E2E");
    expect(result.structuredContent).toMatchObject({
      status: "answered",
      answers: { answers: { env: ["Staging (Recommended)"], checks: ["Lint", "E2E"] } },
    });
  });

  it("validation errors are tool errors that name each field, and nothing is asked", async () => {
    const { client } = shared;
    const bad = {
      questions: [
        { id: "Bad-Id", header: "Deploy", question: "Where (invalid)?", options: [{ label: "Staging" }] },
        { id: "other_q", header: "Team", question: "Which team?", options: [{ label: "Core" }, { label: "Other" }], isSecret: true },
      ],
      foo: 1,
    };
    for (const name of ["ask_user", "ask_user_start"]) {
      const result = (await client.callTool({ name, arguments: bad })) as CallToolResult;
      expect(result.isError).toBe(true);
      const text = textOf(result);
      for (const path of ["questions[0].id", "questions[0].options", "questions[1].options[1].label", "questions[1].isSecret", "foo"]) {
        expect(text).toContain(`${path}: `);
      }
      expect(result.structuredContent).toMatchObject({ status: "invalid_input" });
    }
    const wait = (await client.callTool({ name: "ask_user_wait", arguments: { id: "q1", timeoutSeconds: 51, extra: true } })) as CallToolResult;
    expect(wait.isError).toBe(true);
    expect(textOf(wait)).toContain("timeoutSeconds: ");
    expect(textOf(wait)).toContain("extra: unknown field");
    const { questions } = await rpcOk(gateway.url, "question.list", {});
    expect(questions.some((r: any) => r.questions[0]?.question === "Where (invalid)?")).toBe(false);
  });

  it("ask_user_start returns the id at once; ask_user_wait says pending, pending, then gives the answer; one pending question per session", async () => {
    const { client } = shared;
    const question = "Where should I deploy (start/wait)?";
    const started = (await client.callTool({ name: "ask_user_start", arguments: deployQuestion(question) })) as CallToolResult;
    expect(started.isError).toBeFalsy();
    const { id, expiresAtMs } = started.structuredContent as { id: string; expiresAtMs: number };
    expect(id).toMatch(/^q[0-9a-f]+$/);
    expect(expiresAtMs).toBeGreaterThan(Date.now());
    expect(textOf(started)).toContain(id);
    expect((await pendingRecord(question)).id).toBe(id);

    const second = (await client.callTool({ name: "ask_user", arguments: deployQuestion("A second question?") })) as CallToolResult;
    expect(second.isError).toBe(true);
    expect(textOf(second)).toContain("SESSION_HAS_PENDING_QUESTION");
    expect(textOf(second)).toContain(id);

    for (let i = 0; i < 2; i++) {
      const before = Date.now();
      const pending = (await client.callTool({ name: "ask_user_wait", arguments: { id, timeoutSeconds: 1 } })) as CallToolResult;
      expect(pending.isError).toBeFalsy();
      expect(pending.structuredContent).toEqual({ status: "pending", id });
      expect(textOf(pending)).toContain("ask_user_wait");
      expect(Date.now() - before).toBeGreaterThanOrEqual(900);
    }
    const waiting = client.callTool({ name: "ask_user_wait", arguments: { id } });
    await sleep(300);
    await answer(id, { deploy_target: "Production" });
    const result = (await waiting) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("Deployment t: Production");
    expect(result.structuredContent).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } }, id });
  });

  it("ask_user_late_answers returns this session's late answers once each, since its last call", async () => {
    const { client } = shared;
    const none = (await client.callTool({ name: "ask_user_late_answers", arguments: {} })) as CallToolResult;
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent).toEqual({ lateAnswers: [] });
    expect(textOf(none)).toBe("No new late answers.");

    const question = "Where should I deploy (late)?";
    const started = (await client.callTool({ name: "ask_user_start", arguments: deployQuestion(question, { timeoutSeconds: 1 }) })) as CallToolResult;
    const { id } = started.structuredContent as { id: string };
    const expired = (await client.callTool({ name: "ask_user_wait", arguments: { id, timeoutSeconds: 5 } })) as CallToolResult;
    expect(expired.structuredContent).toMatchObject({ status: "no_answer", reason: "expired", id });
    expect(textOf(expired)).toMatch(/may still answer until \S+Z: ask_user_late_answers/);
    await rpcOk(gateway.url, "question.resolve", { id, answers: { deploy_target: "Production" }, by: { surface: "telegram", user: "42", chat: "1", via: "button" } });
    // Another session's late answer is not this session's.
    const other = await rpcOk(gateway.url, "question.request", deployQuestion("Someone else's?", { timeoutSeconds: 1, sessionKey: "another-session" }));
    await rpcOk(gateway.url, "question.waitAnswer", { id: other.id, timeoutMs: 3_000 });
    await rpcOk(gateway.url, "question.resolve", { id: other.id, answers: { deploy_target: "Production" } });

    const late = (await client.callTool({ name: "ask_user_late_answers", arguments: {} })) as CallToolResult;
    expect(late.isError).toBeFalsy();
    expect(late.structuredContent).toEqual({
      lateAnswers: [
        {
          id,
          questions: [{ id: "deploy_target", header: "Deployment t", question }],
          answers: { deploy_target: ["Production"] },
          answeredBy: { surface: "telegram", user: "42", via: "button" },
          answeredAtMs: expect.any(Number),
          expiredAtMs: expect.any(Number),
        },
      ],
    });
    expect(textOf(late)).toContain(`Question ${id}`);
    expect(textOf(late)).toContain("Deployment t: Production");
    const again = (await client.callTool({ name: "ask_user_late_answers", arguments: {} })) as CallToolResult;
    expect(again.structuredContent).toEqual({ lateAnswers: [] });
    const bad = (await client.callTool({ name: "ask_user_late_answers", arguments: { since: 1 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
  });

  it("sends progress notifications with an increasing progress while ask_user waits", async () => {
    const { client } = shared;
    const question = "Where should I deploy (progress)?";
    const progress: Array<{ progress: number; message?: string }> = [];
    const call = client.callTool({ name: "ask_user", arguments: deployQuestion(question) }, undefined, {
      onprogress: (p) => void progress.push(p),
      resetTimeoutOnProgress: true,
    });
    const record = await pendingRecord(question);
    while (progress.length < 3) await sleep(50);
    await answer(record.id, { deploy_target: "Staging (Recommended)" });
    expect(((await call) as CallToolResult).structuredContent).toMatchObject({ status: "answered" });
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(progress[0]!.message).toMatch(/^Waiting for an answer \(\d+ s\)$/);
  });

  it("a cancelled request (notifications/cancelled) cancels the question with reason aborted", async () => {
    const { client } = shared;
    const question = "Where should I deploy (cancelled request)?";
    const controller = new AbortController();
    const call = client.callTool({ name: "ask_user", arguments: deployQuestion(question) }, undefined, { signal: controller.signal });
    const record = await pendingRecord(question);
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(await terminalRecord(record.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });

  it("closing the client cancels a question started with ask_user_start (reason aborted), and the server exits at once", async () => {
    const { client } = shared;
    const question = "Where should I deploy (disconnect after start)?";
    const started = (await client.callTool({ name: "ask_user_start", arguments: deployQuestion(question) })) as CallToolResult;
    const { id } = started.structuredContent as { id: string };
    const closing = Date.now();
    await client.close();
    expect(Date.now() - closing).toBeLessThan(1_900); // exited on stdin end, before the transport's SIGTERM at 2 s
    expect(await terminalRecord(id)).toMatchObject({ status: "cancelled", reason: "aborted" });
    expect(shared.stderr()).toMatch(/client disconnected/);
  });
});

describe.concurrent("ask-user-bridge mcp over stdio: routing, disconnect, errors", () => {
  it("routes to the --to targets, and closing the client while ask_user waits cancels the question (reason aborted)", async () => {
    const { client } = await routed;
    const question = "Where should I deploy (disconnect while waiting)?";
    const call = client.callTool({ name: "ask_user", arguments: deployQuestion(question) });
    call.catch(() => {}); // rejected when the connection closes
    const record = await pendingRecord(question);
    expect(record.targets).toEqual([{ surface: "telegram", chat: "123456789" }, { surface: "web" }]);
    await client.close();
    expect(await terminalRecord(record.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });

  it("an unreachable gateway is a tool error with a clear text", async () => {
    const { client } = await unreachable;
    const result = (await client.callTool({ name: "ask_user", arguments: deployQuestion("Unreachable?") })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^DISCONNECTED: cannot reach the gateway at ws:\/\/127\.0\.0\.1:\d+\/ws/);
  });

  it("exits 1 naming GATEWAY_TOKEN when there is no token", async () => {
    const child = spawn(process.execPath, [BIN, "mcp"], {
      cwd: tempDir("aub-cwd-"),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", GATEWAY_URL: gateway.url, DATA_DIR: tempDir("aub-mcp-") },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("GATEWAY_TOKEN");
  });
});

describe("ask-user-bridge mcp options", () => {
  const run = async (argv: string[]) => {
    let out = "";
    const code = await runMcp(argv, loadConfig({}), { out: (s) => void (out += s), err: () => {} });
    return { code, out };
  };

  it("--help describes the three tools and --to", async () => {
    const { code, out } = await run(["--help"]);
    expect(code).toBe(0);
    for (const word of ["ask_user", "ask_user_start", "ask_user_wait", "ask_user_late_answers", "--to TARGET"]) expect(out).toContain(word);
  });

  it("--help ends with client set-ups that run this install by its absolute path, never npx", async () => {
    const { out } = await run(["--help"]);
    expect(out).not.toContain("npx");
    expect(out).toContain(`-- ${process.execPath} `);
    const block = JSON.parse(out.split('"ask-user": ')[1]!.split("\n")[0]!) as { command: string; args: string[] };
    expect(block.command).toBe(process.execPath);
    expect(block.args.slice(-3)).toEqual(["mcp", "--to", "telegram:123456789"]);
    expect(block.args.at(-4)).toBe(process.argv[1]);
  });

  it("the ready line says whether the gateway answered", async () => {
    const ready = (run: McpRun) => waitFor(() => run.stderr().match(/ask-user-bridge mcp: ready \(.*\)/u)?.[0]);
    expect(await ready(shared)).toMatch(new RegExp(`; gateway at ${gateway.url} answered; asking the gateway's default targets\\)$`, "u"));
    expect(await ready(await unreachable)).toMatch(/; gateway at http:\/\/127\.0\.0\.1:\d+ did not answer \(ECONNREFUSED\); questions will fail until it does; asking /u);
  });

  it("a bad --to is a usage error naming it", async () => {
    await expect(run(["--to", "pigeon:1"])).rejects.toThrow(/--to "pigeon:1": unknown surface/);
  });
});
