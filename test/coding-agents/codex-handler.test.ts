/**
 * createCodexServerRequestHandler against a real in-process gateway, with every params fixture and every reply
 * checked against the JSON Schema that the installed Codex prints (`codex app-server generate-json-schema`): the
 * legacy approvals, hostile params and the options the real-binary test (codex-app-server.test.ts) cannot reach.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodexServerRequestHandler, type CodexServerRequestHandler } from "../../src/frameworks/codex.ts";
import { connectGateway, type GatewayClient, type QuestionRecord } from "../../src/index.ts";
import { ROOT, sleep, tempDir, TOKEN, useTestGateway } from "../helpers/gateway.ts";

const gateway = useTestGateway();
const schemaDir = tempDir("aub-codex-schema-");
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const validators = new Map<string, ValidateFunction>();
let client: GatewayClient;
let person: GatewayClient;
let handler: CodexServerRequestHandler;

beforeAll(async () => {
  execFileSync(join(ROOT, "node_modules", ".bin", "codex"), ["app-server", "generate-json-schema", "--out", schemaDir], { stdio: "ignore" });
  client = await connectGateway({ url: gateway.url, token: TOKEN });
  person = await connectGateway({ url: gateway.url, token: TOKEN });
  handler = createCodexServerRequestHandler({ client, timeoutSeconds: 2 });
});
afterAll(() => {
  client.close();
  person.close();
});

/** Fails with ajv's errors unless `value` matches the schema file `name` (e.g. ToolRequestUserInputResponse). */
function expectSchema(name: string, value: unknown): void {
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(join(schemaDir, `${name}.json`), "utf8")));
    validators.set(name, validate);
  }
  expect(validate(value) ? [] : validate.errors).toEqual([]);
}

let threads = 0;
const ids = () => ({ threadId: `thread-${++threads}`, turnId: "turn-1", itemId: `call_${threads}` });

/** The person answers the questions asked in `runId` in turn ("skip" skips; "leave" lets one expire). */
function personAnswers(runId: string, answers: Array<Record<string, string[]> | "skip" | "leave">): QuestionRecord[] {
  const asked: QuestionRecord[] = [];
  const off = person.on("question.requested", (record) => {
    if (record.runId !== runId) return;
    asked.push(record);
    const answer = answers.shift() ?? "leave";
    if (answers.length === 0) off();
    if (answer === "skip") void person.resolve({ id: record.id, cancel: true, reason: "skipped" });
    else if (answer !== "leave") void person.resolve({ id: record.id, answers: answer, by: { surface: "web", via: "web" } });
  });
  return asked;
}

const USER_INPUT = "item/tool/requestUserInput";
const question = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  header: "Database",
  question: "Which database?",
  isOther: true,
  isSecret: false,
  options: [
    { label: "Postgres", description: "Runs everywhere" },
    { label: "SQLite", description: "One file" },
  ],
  ...extra,
});

it("the schema check refuses what Codex could not read", () => {
  const valid = (name: string, value: unknown) => validators.get(name)?.(value) ?? ajv.compile(JSON.parse(readFileSync(join(schemaDir, `${name}.json`), "utf8")))(value);
  expect(valid("CommandExecutionRequestApprovalResponse", { decision: "approve" })).toBe(false);
  expect(valid("FileChangeRequestApprovalResponse", { decision: { acceptWithExecpolicyAmendment: {} } })).toBe(false);
  expect(valid("ToolRequestUserInputResponse", { answers: { db: ["SQLite"] } })).toBe(false);
  expect(valid("ExecCommandApprovalResponse", { decision: "denied" })).toBe(false);
});

describe("item/tool/requestUserInput", () => {
  it.each<[string, Array<ReturnType<typeof question>>, Array<Record<string, string[]> | "skip" | "leave">, Record<string, { answers: string[] }>]>([
    ["a choice", [question("db")], [{ db: ["SQLite"] }], { db: { answers: ["SQLite"] } }],
    ["own words, as typed", [question("db")], [{ db: ["MariaDB"] }], { db: { answers: ["MariaDB"] } }],
    ["own words where Codex takes none, as a user_note", [question("db", { isOther: false })], [{ db: ["ask ops"] }], { db: { answers: ["user_note: ask ops"] } }],
    ["no answer", [question("db")], ["leave"], {}],
    ["a secret question, never asked, beside one that is", [question("token", { isSecret: true, options: null }), question("db")], [{ db: ["Postgres"] }], { db: { answers: ["Postgres"] } }],
    [
      "after a skipped set, the next set is still asked",
      ["a", "b", "c", "d"].map((id) => question(id, { header: `H ${id}` })),
      ["skip", { d: ["SQLite"] }],
      { d: { answers: ["SQLite"] } },
    ],
    ["after a set nobody answered, the rest are not asked", ["a", "b", "c", "d"].map((id) => question(id, { header: `H ${id}` })), ["leave", { d: ["SQLite"] }], {}],
  ])("%s", async (_name, questions, answers, expected) => {
    const params = { ...ids(), questions, isBlocking: true };
    expectSchema("ToolRequestUserInputParams", params);
    personAnswers(params.threadId, answers);
    const reply = await handler(USER_INPUT, params);
    expect(reply).toEqual({ result: { answers: expected } });
    expectSchema("ToolRequestUserInputResponse", (reply as { result: unknown }).result);
  });
});

describe("approvals", () => {
  const commandParams = () => ({ ...ids(), startedAtMs: 1, kind: "command", command: "/bin/bash -lc 'make deploy'", cwd: "/repo", reason: "Deploy", availableDecisions: ["accept", "acceptForSession", "decline", "cancel"] });

  it.each<[string, string, Record<string, string[]> | "skip" | "leave"]>([
    ["Allow", "accept", { approval: ["Allow"] }],
    ["Allow for this session", "acceptForSession", { approval: ["Allow for this session"] }],
    ["Deny", "decline", { approval: ["Deny"] }],
    ["own words", "decline", { approval: ["Not before 5pm"] }],
    ["a skip", "decline", "skip"],
    ["no answer", "decline", "leave"],
  ])("a command met with %s: %s", async (_name, decision, answer) => {
    const params = commandParams();
    expectSchema("CommandExecutionRequestApprovalParams", params);
    const asked = personAnswers(params.threadId, [answer]);
    const reply = await handler("item/commandExecution/requestApproval", params);
    expect(reply).toEqual({ result: { decision } });
    expectSchema("CommandExecutionRequestApprovalResponse", (reply as { result: unknown }).result);
    expect(asked[0]!.questions[0]).toMatchObject({ question: "Allow Codex to run a command in /repo?", options: [{ label: "Allow" }, { label: "Deny" }, { label: "Allow for this session" }] });
    expect(asked[0]!.approval).toMatchObject({ agent: "Codex", tool: "command", input: { command: "/bin/bash -lc 'make deploy'" }, cwd: "/repo" });
  });

  it("a file change names the files its item/started announced", async () => {
    const params = { ...ids(), startedAtMs: 1, reason: null, grantRoot: null };
    handler.observe("item/started", { item: { type: "fileChange", id: params.itemId, status: "inProgress", changes: [{ path: "/repo/notes.md", kind: { type: "add" }, diff: "hi" }] }, threadId: params.threadId, turnId: params.turnId });
    expectSchema("FileChangeRequestApprovalParams", params);
    const asked = personAnswers(params.threadId, [{ approval: ["Allow"] }]);
    const reply = await handler("item/fileChange/requestApproval", params);
    expect(reply).toEqual({ result: { decision: "accept" } });
    expectSchema("FileChangeRequestApprovalResponse", (reply as { result: unknown }).result);
    expect(asked[0]!.questions[0]!.question).toBe("Allow Codex to change a file?");
    expect(asked[0]!.approval!.changes).toMatchObject([{ path: "/repo/notes.md", kind: "add" }]);
  });

  it("the legacy approvals get ReviewDecisions, and a denial carries the person's own words", async () => {
    const exec = { conversationId: "conv-1", callId: "c1", command: ["rm", "-rf", "dist"], cwd: "/repo", parsedCmd: [], reason: null };
    expectSchema("ExecCommandApprovalParams", exec);
    personAnswers("conv-1", [{ approval: ["Keep dist, clean build/ instead"] }]);
    const denied = await handler("execCommandApproval", exec);
    expect(denied).toEqual({ result: { decision: { denied: { rejection: expect.stringContaining(`"Keep dist, clean build/ instead"`) } } } });
    expectSchema("ExecCommandApprovalResponse", (denied as { result: unknown }).result);

    const patch = { conversationId: "conv-2", callId: "c2", fileChanges: { "/repo/a.ts": { type: "update", unified_diff: "", move_path: null } }, reason: null, grantRoot: null };
    expectSchema("ApplyPatchApprovalParams", patch);
    personAnswers("conv-2", [{ approval: ["Allow for this session"] }]);
    const approved = await handler("applyPatchApproval", patch);
    expect(approved).toEqual({ result: { decision: "approved_for_session" } });
    expectSchema("ApplyPatchApprovalResponse", (approved as { result: unknown }).result);
  });

  it("an aborted request cancels its question and declines", async () => {
    const params = commandParams();
    const asked = personAnswers(params.threadId, ["leave"]);
    const controller = new AbortController();
    const reply = handler("item/commandExecution/requestApproval", params, { signal: controller.signal });
    while (asked.length === 0) await sleep(10);
    controller.abort();
    expect(await reply).toEqual({ result: { decision: "decline" } });
    expect(await person.get(asked[0]!.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });

  it("a gateway error is reported and declines", async () => {
    const errors: Array<[unknown, string]> = [];
    const broken = createCodexServerRequestHandler({ client, targets: [{ surface: "nowhere" } as never], onError: (error, method) => errors.push([error, method]) });
    expect(await broken("item/commandExecution/requestApproval", commandParams())).toEqual({ result: { decision: "decline" } });
    expect(await broken(USER_INPUT, { ...ids(), questions: [question("db")], isBlocking: true })).toEqual({ result: { answers: {} } });
    expect(errors.map(([error, method]) => [(error as { code?: string }).code, method])).toEqual([
      ["INVALID_PARAMS", "item/commandExecution/requestApproval"],
      ["INVALID_PARAMS", USER_INPUT],
    ]);
  });

  it("approvals: false leaves approvals to another handler; methods not answered here are undefined", async () => {
    const questionsOnly = createCodexServerRequestHandler({ client, approvals: false });
    expect(await questionsOnly("item/commandExecution/requestApproval", commandParams())).toBeUndefined();
    expect(await questionsOnly("item/fileChange/requestApproval", { ...ids(), startedAtMs: 1 })).toBeUndefined();
    expect(await questionsOnly("execCommandApproval", {})).toBeUndefined();
    for (const method of ["item/permissions/requestApproval", "mcpServer/elicitation/request", "toString", "__proto__"]) expect(await handler(method, {})).toBeUndefined();
    expect(await questionsOnly(USER_INPUT, null)).toMatchObject({ error: { code: -32602 } });
  });
});

describe("hostile params never approve and never throw", () => {
  const throwing = Object.defineProperty({}, "threadId", { enumerable: true, get: () => { throw new Error("boom"); } });
  const hostile: Array<[string, unknown]> = [
    ["null", null],
    ["a string", "approve"],
    ["an array", [1, 2]],
    ["a wrong type", { threadId: 1, turnId: "t", itemId: "i", startedAtMs: 1 }],
    ["a throwing getter", throwing],
    ["a huge text", { threadId: "t", turnId: "u", itemId: "i", startedAtMs: 1, command: "x".repeat(1_000_000), reason: "x".repeat(1_000_000) }],
    ["a prototype key", JSON.parse(`{"__proto__": {"decision": "accept"}, "threadId": "t"}`)],
  ];

  it.each(hostile)("an approval with %s is declined without asking", async (_name, params) => {
    const before = (await client.list()).length;
    for (const method of ["item/commandExecution/requestApproval", "item/fileChange/requestApproval"]) {
      expect(await handler(method, params)).toEqual({ result: { decision: "decline" } });
    }
    expect(await handler("execCommandApproval", params)).toEqual({ result: { decision: { denied: { rejection: expect.stringContaining("could not be read") } } } });
    expect(await handler("applyPatchApproval", params)).toMatchObject({ result: { decision: { denied: {} } } });
    expect((await client.list()).length).toBe(before);
  });

  it.each<[string, unknown]>([
    ...hostile,
    ["no questions", { ...ids(), questions: [], isBlocking: true }],
    ["16 questions", { ...ids(), questions: Array.from({ length: 16 }, (_, i) => question(`q${i}`)), isBlocking: true }],
    ["two questions with one id", { ...ids(), questions: [question("db"), question("db")], isBlocking: true }],
    ["an option without a label", { ...ids(), questions: [question("db", { options: [{ description: "x" }] })], isBlocking: true }],
  ])("requestUserInput with %s is a JSON-RPC invalid-params error, without asking", async (_name, params) => {
    const before = (await client.list()).length;
    const reply = await handler(USER_INPUT, params);
    expect(reply).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/^item\/tool\/requestUserInput: /) } });
    expect((await client.list()).length).toBe(before);
  });
});
