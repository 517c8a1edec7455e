/**
 * ask_user as a Vercel AI SDK tool (`ask-user-bridge/ai`), driven through `generateText` with a mock model and
 * answered through a real in-process gateway.
 */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAiSdkAskUserTool } from "../../src/frameworks/ai.ts";
import { ASK_USER_DESCRIPTION, connectGateway, type GatewayClient } from "../../src/index.ts";
import { answered, answerIn, settled } from "../helpers/frameworks.ts";
import { oneQuestion, TOKEN, useTestGateway } from "../helpers/gateway.ts";

const gateway = useTestGateway();
let client: GatewayClient;
let person: GatewayClient;
beforeAll(async () => {
  client = await connectGateway({ url: gateway.url, token: TOKEN });
  person = await connectGateway({ url: gateway.url, token: TOKEN });
});
afterAll(() => {
  client.close();
  person.close();
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model turn that calls ask_user with `input`. */
function askUserCall(input: unknown) {
  return {
    content: [{ type: "tool-call" as const, toolCallId: "call_1", toolName: "ask_user", input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

/** A model turn that answers in text. */
function finalText(text: string) {
  return { content: [{ type: "text" as const, text }], finishReason: { unified: "stop" as const, raw: "stop" }, usage, warnings: [] };
}


describe("createAiSdkAskUserTool", () => {
  it("is ask_user with the model guidance and the ask_user JSON Schema, for the main session only", async () => {
    const tool = createAiSdkAskUserTool({ client, session: { kind: "main" } })!;
    expect(tool.description).toBe(ASK_USER_DESCRIPTION);
    expect(createAiSdkAskUserTool({ client, session: { kind: "subagent" } })).toBeUndefined();
    // What the model is sent: the name comes from the tools key.
    const model = new MockLanguageModelV3({ doGenerate: finalText("ok") });
    await generateText({ model, tools: { ask_user: tool }, prompt: "hi" });
    expect(model.doGenerateCalls[0]!.tools).toEqual([
      expect.objectContaining({ type: "function", name: "ask_user", description: ASK_USER_DESCRIPTION, inputSchema: expect.objectContaining({ type: "object", required: ["questions"] }) }),
    ]);
  });

  it("a model's ask_user call reaches the gateway, and the person's answer is the tool result the model gets back", async () => {
    const off = answerIn(person, "chat-42", { deploy_target: ["Production"] });
    const model = new MockLanguageModelV3({ doGenerate: [askUserCall(oneQuestion()), finalText("Deploying to Production.")] });
    const url = gateway.url;
    const token = TOKEN;

    // README: "Vercel AI SDK" (the snippet's statements; only the url, token and model differ)
    const client = await connectGateway({ url, token });
    const askUser = createAiSdkAskUserTool({ client, session: { kind: "main", key: "chat-42" } });
    const result = await generateText({
      model, // your AI SDK model
      tools: askUser ? { ask_user: askUser } : {},
      stopWhen: stepCountIs(2),
      prompt: "Deploy the release.",
    });
    const [toolResult] = result.steps[0]!.toolResults; // toolResult.output: the ask_user result
    // end README

    off();
    client.close();
        expect(toolResult).toMatchObject({ type: "tool-result", toolName: "ask_user", toolCallId: "call_1", output: answered });
    expect(toolResult!.output).toEqual(answered);
    expect(result.text).toBe("Deploying to Production.");
    // The second model call was sent the result as the ask_user tool output.
    const toolMessage = model.doGenerateCalls[1]!.prompt.find((message) => message.role === "tool");
    expect(toolMessage?.content).toEqual([expect.objectContaining({ type: "tool-result", toolName: "ask_user", output: { type: "json", value: answered } })]);
    const [record] = await person.list({ sessionKey: "chat-42" });
    expect(record).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
  });

  it("invalid input reaches the tool and comes back as the invalid_input result, without asking", async () => {
    const tool = createAiSdkAskUserTool({ client, session: { kind: "main", key: "ai-invalid" } })!;
    const bad = { questions: [{ ...oneQuestion().questions[0], id: "Bad", options: [{ label: "Other" }] }] };
    const result = await generateText({ model: new MockLanguageModelV3({ doGenerate: askUserCall(bad) }), tools: { ask_user: tool }, prompt: "go" });
    const [toolResult] = result.toolResults;
    expect(toolResult?.output).toMatchObject({ status: "invalid_input", issues: expect.arrayContaining([expect.objectContaining({ path: "questions[0].id" })]) });
    expect(result.content.some((part) => part.type === "tool-error")).toBe(false);
    expect(await client.list({ sessionKey: "ai-invalid" })).toEqual([]);
  });

  it("arguments that are not JSON never reach the tool: the SDK reports its own tool-error", async () => {
    const tool = createAiSdkAskUserTool({ client, session: { kind: "main", key: "ai-not-json" } })!;
    const model = new MockLanguageModelV3({
      doGenerate: { ...askUserCall({}), content: [{ type: "tool-call", toolCallId: "call_1", toolName: "ask_user", input: "{not json" }] },
    });
    const result = await generateText({ model, tools: { ask_user: tool }, prompt: "go" });
    const toolError = result.content.find((part) => part.type === "tool-error");
    expect(String(toolError?.error)).toMatch(/Invalid input for tool ask_user: JSON parsing failed/);
    expect(await client.list({ sessionKey: "ai-not-json" })).toEqual([]);
  });

  it("passes the session and default targets to the gateway, or takes an ask function instead of a client", async () => {
    const off = answerIn(person, "ai-targets", { deploy_target: ["Production"] });
    const withTargets = createAiSdkAskUserTool({ client, session: { kind: "main", key: "ai-targets", runId: "run-t" }, targets: [{ surface: "web" }] })!;
    await generateText({ model: new MockLanguageModelV3({ doGenerate: askUserCall(oneQuestion()) }), tools: { ask_user: withTargets }, prompt: "go" });
    off();
    expect(await client.list({ sessionKey: "ai-targets" })).toEqual([expect.objectContaining({ runId: "run-t", targets: [{ surface: "web" }], status: "answered" })]);

    const asked: unknown[] = [];
    const own = createAiSdkAskUserTool({
      session: { kind: "main", key: "own" },
      ask: async (input, { session }) => {
        asked.push({ input, session });
        return { status: "no_answer", reason: "expired" };
      },
    })!;
    const result = await generateText({ model: new MockLanguageModelV3({ doGenerate: askUserCall(oneQuestion()) }), tools: { ask_user: own }, prompt: "go" });
    expect(result.toolResults.map((r) => r.output)).toEqual([{ status: "no_answer", reason: "expired" }]);
    expect(asked).toEqual([{ input: expect.objectContaining({ timeoutSeconds: 900 }), session: { kind: "main", key: "own" } }]);
  });

  it("aborting generateText cancels the question on the gateway with reason aborted", async () => {
    const controller = new AbortController();
    const off = person.on("question.requested", (record) => {
      if (record.sessionKey === "ai-abort") setTimeout(() => controller.abort(), 50);
    });
    const tool = createAiSdkAskUserTool({ client, session: { kind: "main", key: "ai-abort" } })!;
    const model = new MockLanguageModelV3({ doGenerate: askUserCall(oneQuestion()) });
    const result = await generateText({ model, tools: { ask_user: tool }, prompt: "go", abortSignal: controller.signal });
    off();
    // One step (the default stopWhen), so generateText resolves with the tool's aborted result.
    expect(result.toolResults.map((r) => r.output)).toEqual([{ status: "no_answer", reason: "aborted" }]);
    const [record] = await client.list({ sessionKey: "ai-abort" });
    expect(await settled(gateway.url, record!.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });
});
