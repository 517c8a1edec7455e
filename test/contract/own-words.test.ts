/**
 * Issue 30 §3: the result says which answers are the person's own words rather than an option
 * (`answeredBy.ownWords: [<question id>]`, absent when none): decided from the record, in the SDK's result through a
 * real gateway, the CLI's printed result, the MCP tool's text and structured content, and late answers.
 */
import { afterAll, describe, expect, it } from "vitest";
import { askUserResultSchema, ownWordsOf } from "../../src/contract/result.ts";
import { connectGateway, type LateAnsweredRecord } from "../../src/client/index.ts";
import { askUser } from "../../src/client/sdk.ts";
import { lateAnswerToEntry, resultToToolResult } from "../../src/cli/mcp/results.ts";
import { recordToResult } from "../../src/record/record.ts";
import { cleanup, rpcOk, spawnCli, startTestGateway, TOKEN, twoQuestions } from "../helpers/gateway.ts";
import { question, record } from "../helpers/records.ts";
import { waitUntil } from "../scenarios/tools.ts";

afterAll(() => cleanup());

const target = question();
const checks = question({ id: "checks", header: "Checks", multiSelect: true, options: [{ label: "Lint" }, { label: "Unit" }] });

describe("ownWordsOf", () => {
  it.each([
    ["an option", { target: ["Production"] }, []],
    ["own words", { target: ["the blue cluster"] }, ["target"]],
    ["a label in another case is not the label", { target: ["production"] }, ["target"]],
    ["options of a multi-select", { target: ["Production"], checks: ["Lint", "Unit"] }, []],
    ["an option and own words in a multi-select", { target: ["Production"], checks: ["Lint", "smoke tests"] }, ["checks"]],
    ["both, in the questions' order", { checks: ["e2e"], target: ["nowhere"] }, ["target", "checks"]],
    ["an unanswered question", {}, []],
  ])("%s", (_name, answers: Record<string, string[]>, expected) => {
    expect(ownWordsOf([target, checks], answers)).toEqual(expected);
  });

  it("recordToResult adds answeredBy.ownWords only when there are own words, and the contract takes it", () => {
    const by = { surface: "telegram", user: "42", chat: "42", via: "text" as const };
    const own = recordToResult(record([target, checks], { status: "answered", answers: { target: ["Production"], checks: ["fuzz"] }, by }));
    expect(own).toEqual({ status: "answered", answers: { answers: { target: ["Production"], checks: ["fuzz"] } }, answeredBy: { surface: "telegram", via: "text", user: "42", chat: "42", ownWords: ["checks"] } });
    expect(askUserResultSchema.parse(own)).toEqual(own);
    const options = recordToResult(record([target], { status: "answered", answers: { target: ["Production"] }, by }));
    expect(options).toEqual({ status: "answered", answers: { answers: { target: ["Production"] } }, answeredBy: { surface: "telegram", via: "text", user: "42", chat: "42" } });
  });

  it("the MCP tool's text marks own words, and a late answer's entry carries them", () => {
    const result = recordToResult(record([target], { status: "answered", answers: { target: ["the blue cluster"] }, by: { surface: "web", via: "web" } }))!;
    const tool = resultToToolResult(result, [target]);
    expect(tool.content).toEqual([{ type: "text", text: "Deployment t: the blue cluster (in their own words)" }]);
    expect(tool.structuredContent).toMatchObject({ answeredBy: { ownWords: ["target"] } });
    const late = record([target], {
      status: "expired",
      reason: "expired",
      resolvedAtMs: 5,
      lateAnswer: { answers: { target: ["later, on prod"] }, by: { surface: "slack", user: "U1", via: "text" }, atMs: 9 },
    }) as LateAnsweredRecord;
    expect(lateAnswerToEntry(late).answeredBy).toEqual({ surface: "slack", user: "U1", via: "text", ownWords: ["target"] });
  });
});

describe("through a real gateway", () => {
  it("the SDK's result and the CLI's printed result say which answers are own words", async () => {
    const gateway = await startTestGateway();
    const client = await connectGateway({ url: gateway.url, token: TOKEN });
    try {
      const asked = askUser(client, twoQuestions(), { targets: [{ surface: "web" }] });
      const pending = await waitUntil(async () => (await client.list({ status: "pending" }))[0], "the question");
      await rpcOk(gateway.url, "question.resolve", { id: pending.id, answers: { env: ["Staging"], checks: ["Lint", "only the smoke tests"] }, by: { surface: "web", via: "web" } });
      expect(await asked).toEqual({ status: "answered", answers: { answers: { env: ["Staging"], checks: ["Lint", "only the smoke tests"] } }, answeredBy: { surface: "web", via: "web", ownWords: ["checks"] } });

      const cli = spawnCli(["ask", "--question", "Where to?", "--option", "Staging", "--option", "Production", "--to", "web"], { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN });
      const second = await waitUntil(async () => (await client.list({ status: "pending" }))[0], "the CLI's question");
      await rpcOk(gateway.url, "question.resolve", { id: second.id, answers: { answer: ["the blue cluster"] }, by: { surface: "web", via: "web" } });
      const { code, stdout } = await cli.exited;
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ status: "answered", answeredBy: { ownWords: ["answer"] } });
    } finally {
      client.close();
      await gateway.close();
    }
  }, 60_000);
});
