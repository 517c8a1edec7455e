/**
 * `ask-user-bridge/codex` against the real `codex app-server` (npm @openai/codex 0.171), offline: a custom model
 * provider in a temp CODEX_HOME points Codex at a fake Responses API (test/fakes/openai-responses.ts), whose model
 * calls `exec_command` (a shell command, or `apply_patch` through the shell) or `request_user_input`, as each test's
 * prompt says. The questions go through a real in-process gateway, where a person answers them; each test then reads
 * what Codex sent the model back, and what happened on disk.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachToCodexAppServer, createCodexServerRequestHandler, type CodexAppServer } from "../../src/frameworks/codex.ts";
import { connectGateway, type GatewayClient, type QuestionRecord } from "../../src/index.ts";
import { hasToolOutput, startFakeResponsesApi, userPrompt, type FakeResponsesApi, type ModelTurn } from "../fakes/openai-responses.ts";
import { ROOT, sleep, tempDir, TOKEN, useTestGateway } from "../helpers/gateway.ts";

const MODEL = "fake-model";
const projectDir = tempDir("aub-codex-project-");
const codexHome = tempDir("aub-codex-home-");
const gateway = useTestGateway();

/** A model turn that runs `cmd` outside the read-only sandbox, which Codex asks the person to approve. */
const command = (cmd: string): ModelTurn => ({ call: "exec_command", arguments: { cmd, sandbox_permissions: "require_escalated", justification: "Needed for the task" } });
/** A model turn that adds a file through apply_patch, which Codex asks to approve in a read-only sandbox. */
const addFile = (name: string, line: string): ModelTurn => ({
  call: "exec_command",
  arguments: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${name}\n+${line}\n*** End Patch\nEOF\n` },
});
const PROMPTS: Record<string, ModelTurn> = { "Add a CHANGELOG entry.": addFile("CHANGELOG.md", "- Faster startup") };

let model: FakeResponsesApi;
let person: GatewayClient;
let client: GatewayClient;
let codex: ChildProcess;
let appServer: CodexAppServer;
const saved = { PATH: process.env.PATH, CODEX_HOME: process.env.CODEX_HOME };

beforeAll(async () => {
  // The model does what the prompt says (a ModelTurn as JSON), and says "done" once Codex sent it the call's output.
  model = await startFakeResponsesApi((request) => {
    const prompt = userPrompt(request);
    return hasToolOutput(request) ? { text: "done" } : (PROMPTS[prompt] ?? (JSON.parse(prompt) as ModelTurn));
  });
  writeFileSync(
    join(codexHome, "config.toml"),
    [`model = "${MODEL}"`, `model_provider = "fake"`, "[model_providers.fake]", `name = "Fake Responses API"`, `base_url = "${model.baseUrl}"`, `wire_api = "responses"`, `env_key = "FAKE_MODEL_KEY"`].join("\n"),
  );
  // What `spawn("codex", …)` in the README finds: the installed Codex, with this CODEX_HOME.
  Object.assign(process.env, { PATH: `${join(ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH}`, CODEX_HOME: codexHome, FAKE_MODEL_KEY: "unused", RUST_LOG: "error" });
  person = await connectGateway({ url: gateway.url, token: TOKEN });
  client = await connectGateway({ url: gateway.url, token: TOKEN });
  codex = spawn("codex", ["app-server"], { stdio: ["pipe", "pipe", "ignore"] });
  appServer = attachToCodexAppServer(codex, createCodexServerRequestHandler({ client, timeoutSeconds: 3 }));
  await appServer.request("initialize", { clientInfo: { name: "aub-test", version: "1" }, capabilities: { experimentalApi: true } });
  appServer.notify("initialized");
});

afterAll(async () => {
  appServer?.close();
  codex?.kill();
  client?.close();
  person?.close();
  await model?.close();
  Object.assign(process.env, saved);
});

type Answer = Record<string, string[]> | "skip" | "leave";

/** The person: answers the questions asked in `threadId` in turn, and keeps what they were asked. */
function personAnswers(threadId: string, answers: Answer[]): { asked: QuestionRecord[]; stop(): void } {
  const asked: QuestionRecord[] = [];
  const stop = person.on("question.requested", (record) => {
    if (record.runId !== threadId) return;
    asked.push(record);
    const answer = answers.shift() ?? "leave";
    if (answer === "skip") void person.resolve({ id: record.id, cancel: true, reason: "skipped" });
    else if (answer !== "leave") void person.resolve({ id: record.id, answers: answer, by: { surface: "web", via: "web" } });
  });
  return { asked, stop };
}

const turnCompleted = (server: CodexAppServer, threadId: string) =>
  new Promise<{ status: string }>((resolve) =>
    server.onNotification((method, params) => {
      const { threadId: id, turn } = params as { threadId: string; turn: { status: string } };
      if (method === "turn/completed" && id === threadId) resolve(turn);
    }),
  );

/** One turn in a new thread: the model makes `turn`, the person answers, and Codex sends the model the call's output. */
async function runTurn(turn: ModelTurn, answers: Answer[], { plan = false } = {}) {
  const { thread } = await appServer.request<{ thread: { id: string } }>("thread/start", { cwd: projectDir, approvalPolicy: "on-request", sandbox: "read-only" });
  const { asked, stop } = personAnswers(thread.id, answers);
  const callsBefore = model.calls.length;
  const done = turnCompleted(appServer, thread.id);
  await appServer.request("turn/start", {
    threadId: thread.id,
    input: [{ type: "text", text: JSON.stringify(turn) }],
    ...(plan ? { collaborationMode: { mode: "plan", settings: { model: MODEL } } } : {}),
  });
  const { status } = await done;
  stop();
  const output = await model.outputOf(model.calls[callsBefore]!.callId);
  return { threadId: thread.id, asked, output, status };
}

const labels = (record: QuestionRecord | undefined, question = 0) => record?.questions[question]?.options.map((option) => option.label);

describe("Codex approvals through the gateway", () => {
  it("README: a file change the person allows for the session is written, and Codex reports it", async () => {
    const url = gateway.url;
    const token = TOKEN;
    let allowedIn: QuestionRecord | undefined;
    const off = person.on("question.requested", (record) => {
      allowedIn = record;
      void person.resolve({ id: record.id, answers: { approval: ["Allow for this session"] }, by: { surface: "web", via: "web" } });
    });

    // README: "Codex"
    const client = await connectGateway({ url, token });
    const codex = spawn("codex", ["app-server"], { stdio: ["pipe", "pipe", "inherit"] });
    const appServer = attachToCodexAppServer(codex, createCodexServerRequestHandler({ client, timeoutSeconds: 600 }));
    await appServer.request("initialize", { clientInfo: { name: "my-app", version: "1.0.0" }, capabilities: { experimentalApi: true } });
    appServer.notify("initialized");
    const { thread } = await appServer.request<{ thread: { id: string } }>("thread/start", { cwd: projectDir, approvalPolicy: "on-request", sandbox: "read-only" });
    const turnDone = new Promise<void>((resolve) => appServer.onNotification((method) => method === "turn/completed" && resolve()));
    await appServer.request("turn/start", { threadId: thread.id, input: [{ type: "text", text: "Add a CHANGELOG entry." }] });
    await turnDone; // meanwhile the person allowed (or denied) the change on their phone
    // end README

    off();
    appServer.close();
    codex.kill();
    client.close();
    expect(allowedIn?.questions[0]!.question).toBe("Allow Codex to change a file?");
    // The file and its content, as Codex's item/started announced them: the person saw what they allowed.
    expect(allowedIn?.approval?.changes).toEqual([{ path: join(projectDir, "CHANGELOG.md"), kind: "add", diff: expect.any(String) }]);
    expect(allowedIn!.approval!.changes![0]!.diff).not.toBe("(Codex sent no diff for this file)");
    expect(existsSync(join(projectDir, "CHANGELOG.md"))).toBe(true);
    expect(await model.outputOf(model.calls.at(-1)!.callId)).toContain("Success. Updated the following files");
    const [record] = await person.list({ runId: thread.id });
    expect(labels(record)).toEqual(["Allow", "Deny", "Allow for this session"]);
    expect(record).toMatchObject({ status: "answered", answers: { approval: ["Allow for this session"] } });
  });

  it("a command the person allows runs, named in full in the question", async () => {
    const marker = join(projectDir, "allowed");
    const { asked, output } = await runTurn(command(`touch ${marker}`), [{ approval: ["Allow"] }]);
    expect(asked[0]!.questions[0]!.question).toBe(`Allow Codex to run a command in ${projectDir}?`);
    expect(asked[0]!.approval).toMatchObject({ agent: "Codex", tool: "command", input: { command: `/bin/bash -lc 'touch ${marker}'` }, cwd: projectDir });
    // Codex 0.171 offers no acceptForSession for an escalated command, so neither does the question.
    expect(labels(asked[0])).toEqual(["Allow", "Deny"]);
    expect(output).toContain("Process exited with code 0");
    expect(existsSync(marker)).toBe(true);
  });

  it.each<[string, Answer, string]>([
    ["Deny", { approval: ["Deny"] }, "answered"],
    ["own words", { approval: ["Only after the backup finishes"] }, "answered"],
    ["a skip", "skip", "cancelled"],
    ["no answer", "leave", "expired"],
  ])("a command the person meets with %s is declined and never runs", async (name, answer, status) => {
    const marker = join(projectDir, `declined-${name.replaceAll(" ", "-")}`);
    const { asked, output } = await runTurn(command(`touch ${marker}`), [answer]);
    expect(output).toContain("rejected by user");
    expect(existsSync(marker)).toBe(false);
    const [record] = await person.list({ runId: asked[0]!.runId! });
    expect(record?.status).toBe(status);
  });

  it("a file change the person denies is not written", async () => {
    const { output } = await runTurn(addFile("denied.txt", "no"), [{ approval: ["Deny"] }]);
    expect(output).not.toContain("Success");
    expect(existsSync(join(projectDir, "denied.txt"))).toBe(false);
  });

  it("an interrupted turn cancels its pending question on the gateway, and nothing runs", async () => {
    const marker = join(projectDir, "interrupted");
    const { thread } = await appServer.request<{ thread: { id: string } }>("thread/start", { cwd: projectDir, approvalPolicy: "on-request", sandbox: "read-only" });
    const { asked, stop } = personAnswers(thread.id, ["leave"]);
    const done = turnCompleted(appServer, thread.id);
    const { turn } = await appServer.request<{ turn: { id: string } }>("turn/start", { threadId: thread.id, input: [{ type: "text", text: JSON.stringify(command(`touch ${marker}`)) }] });
    while (asked.length === 0) await sleep(20);
    await appServer.request("turn/interrupt", { threadId: thread.id, turnId: turn.id });
    expect(await done).toMatchObject({ status: "interrupted" });
    stop();
    let record = await person.get(asked[0]!.id);
    for (let i = 0; i < 50 && record.status === "pending"; i++) record = (await sleep(20), await person.get(asked[0]!.id));
    expect(record).toMatchObject({ status: "cancelled", reason: "aborted" });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("Codex request_user_input through the gateway", () => {
  const database = {
    call: "request_user_input",
    arguments: {
      questions: [
        {
          id: "db",
          header: "Database",
          question: "Which database should the service use?",
          options: [
            { label: "Postgres (Recommended)", description: "Runs everywhere we deploy" },
            { label: "SQLite", description: "One file, no server" },
          ],
        },
      ],
    },
  };

  it("asks Codex's question and sends the chosen label back", async () => {
    const { asked, output } = await runTurn(database, [{ db: ["SQLite"] }], { plan: true });
    expect(asked[0]!.questions).toEqual([
      {
        id: "db",
        header: "Database",
        question: "Which database should the service use?",
        options: [
          { label: "Postgres (Recommended)", description: "Runs everywhere we deploy" },
          { label: "SQLite", description: "One file, no server" },
        ],
        multiSelect: false,
      },
    ]);
    expect(JSON.parse(output)).toEqual({ answers: { db: { answers: ["SQLite"] } } });
  });

  it("sends the person's own words as typed (Codex marks its questions isOther)", async () => {
    const { output } = await runTurn(database, [{ db: ["MariaDB, we already run it"] }], { plan: true });
    expect(JSON.parse(output)).toEqual({ answers: { db: { answers: ["MariaDB, we already run it"] } } });
  });

  it.each<[string, Answer]>([
    ["skipped", "skip"],
    ["left to expire", "leave"],
  ])("a question %s reaches Codex as no answer, never as a choice", async (_name, answer) => {
    const { output } = await runTurn(database, [answer], { plan: true });
    expect(JSON.parse(output)).toEqual({ answers: {} });
  });

  it("asks four questions as two sets and answers each by Codex's own id", async () => {
    const four = {
      call: "request_user_input",
      arguments: {
        questions: ["Region-A", "Region B", "region_c", "4th region"].map((id, i) => ({
          id,
          header: `Region choice ${i + 1}`,
          question: `Which region for shard ${i + 1}?`,
          options: [
            { label: "EU", description: "Frankfurt" },
            { label: "US", description: "Virginia" },
          ],
        })),
      },
    };
    const { asked, output } = await runTurn(four, [{ region_a: ["EU"], region_b: ["US"], region_c: ["EU"] }, { q_4th_region: ["US"] }], { plan: true });
    expect(asked.map((record) => record.questions.map((q) => [q.id, q.header]))).toEqual([
      [
        ["region_a", "Region choic"],
        ["region_b", "Region cho 2"],
        ["region_c", "Region cho 3"],
      ],
      [["q_4th_region", "Region choic"]],
    ]);
    expect(JSON.parse(output)).toEqual({
      answers: { "Region-A": { answers: ["EU"] }, "Region B": { answers: ["US"] }, region_c: { answers: ["EU"] }, "4th region": { answers: ["US"] } },
    });
  });
});
