/**
 * ask_user as a LangChain.js tool (`ask-user-bridge/langchain`): a fake chat model's tool call goes through
 * LangChain's own tool invocation (ToolCall in, ToolMessage out) to a real in-process gateway.
 */
import { AIMessageChunk, ToolMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLangChainAskUserTool } from "../../src/frameworks/langchain.ts";
import { ASK_USER_DESCRIPTION, askUserInputJsonSchema, connectGateway, type GatewayClient } from "../../src/index.ts";
import { answered, answerIn, settled } from "../helpers/frameworks.ts";
import { oneQuestion, sleep, TOKEN, useTestGateway } from "../helpers/gateway.ts";

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

/** A fake chat model whose reply calls ask_user with `args`. */
function modelCallingAskUser(args: unknown) {
  return new FakeStreamingChatModel({
    chunks: [new AIMessageChunk({ content: "", tool_calls: [{ name: "ask_user", args: args as Record<string, unknown>, id: "call_1", type: "tool_call" }] })],
  });
}



describe("createLangChainAskUserTool", () => {
  it("is ask_user with the model guidance and the ask_user JSON Schema, for the main session only", () => {
    const tool = createLangChainAskUserTool({ client, session: { kind: "main" } })!;
    expect(tool.name).toBe("ask_user");
    expect(tool.description).toBe(ASK_USER_DESCRIPTION);
    expect(convertToOpenAITool(tool)).toEqual({
      type: "function",
      function: { name: "ask_user", description: ASK_USER_DESCRIPTION, parameters: askUserInputJsonSchema },
    });
    expect(createLangChainAskUserTool({ client, session: { kind: "subagent" } })).toBeUndefined();
  });

  it("a chat model's ask_user call reaches the gateway, and the ToolMessage carries the person's answer", async () => {
    const off = answerIn(person, "thread-7", { deploy_target: ["Production"] });
    const model = modelCallingAskUser(oneQuestion());
    const url = gateway.url;
    const token = TOKEN;

    // README: "LangChain.js" (the snippet's statements; only the url, token and model differ)
    const client = await connectGateway({ url, token });
    const askUser = createLangChainAskUserTool({ client, session: { kind: "main", key: "thread-7" } });
    const ai = await model.bindTools(askUser ? [askUser] : []).invoke("Deploy the release.");
    const call = ai.tool_calls?.[0];
    const message = askUser && call ? await askUser.invoke(call) : undefined;
    // message.content: the result as JSON text, for the model; message.artifact: the result object, for your code
    // end README

    off();
    client.close();
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message).toMatchObject({ tool_call_id: "call_1", name: "ask_user", status: "success" });
    expect(JSON.parse(message!.content as string)).toEqual(answered);
    expect(message!.artifact).toEqual(answered);
    const [record] = await person.list({ sessionKey: "thread-7" });
    expect(record).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
  });

  it("bindTools sends the model the ask_user JSON Schema", () => {
    const tool = createLangChainAskUserTool({ client, session: { kind: "main" } })!;
    const bound = modelCallingAskUser(oneQuestion()).bindTools([tool]) as unknown as { config: { tools: unknown[] } };
    expect(bound.config.tools).toEqual([{ type: "function", function: { name: "ask_user", description: ASK_USER_DESCRIPTION, parameters: askUserInputJsonSchema } }]);
  });

  it("plain arguments (no ToolCall) give the result as JSON text", async () => {
    const off = answerIn(person, "lc-plain", { deploy_target: ["Production"] });
    const tool = createLangChainAskUserTool({ client, session: { kind: "main", key: "lc-plain" } })!;
    const text: string = await tool.invoke(oneQuestion());
    off();
    expect(JSON.parse(text)).toEqual(answered);
  });

  it("input the JSON Schema refuses is rejected by LangChain before the tool runs, with the failing keywords", async () => {
    const tool = createLangChainAskUserTool({ client, session: { kind: "main", key: "lc-schema" } })!;
    const bad = { questions: [{ ...oneQuestion().questions[0], id: "Bad" }] };
    const ai = await modelCallingAskUser(bad).bindTools([tool]).invoke("go");
    const failure = tool.invoke(ai.tool_calls![0]!);
    await expect(failure).rejects.toBeInstanceOf(ToolInputParsingException);
    await expect(failure).rejects.toThrow(/did not match expected schema[\s\S]*properties\/id\/pattern: String does not match pattern/);
    expect(await client.list({ sessionKey: "lc-schema" })).toEqual([]);
  });

  it("input the schema admits but the contract refuses comes back as the invalid_input result, without asking", async () => {
    const tool = createLangChainAskUserTool({ client, session: { kind: "main", key: "lc-invalid" } })!;
    const other = { questions: [{ ...oneQuestion().questions[0], options: [{ label: "Production" }, { label: "Other" }] }] };
    const ai = await modelCallingAskUser(other).bindTools([tool]).invoke("go");
    const message = await tool.invoke(ai.tool_calls![0]!);
    expect(message.artifact).toMatchObject({ status: "invalid_input", issues: [{ path: "questions[0].options[1].label" }] });
    expect(JSON.parse(message.content as string)).toEqual(message.artifact);
    expect(await client.list({ sessionKey: "lc-invalid" })).toEqual([]);
  });

  it("config.signal cancels the question on the gateway with reason aborted (LangChain rejects the invocation)", async () => {
    const controller = new AbortController();
    const off = person.on("question.requested", (record) => {
      if (record.sessionKey === "lc-abort") setTimeout(() => controller.abort(), 50);
    });
    const tool = createLangChainAskUserTool({ client, session: { kind: "main", key: "lc-abort" } })!;
    const invocation = tool.invoke({ name: "ask_user", args: oneQuestion(), id: "call_1", type: "tool_call" }, { signal: controller.signal });
    await expect(invocation).rejects.toThrow(/abort/i);
    off();
    for (let i = 0; i < 50 && (await client.list({ sessionKey: "lc-abort" })).length === 0; i++) await sleep(20);
    const [record] = await client.list({ sessionKey: "lc-abort" });
    expect(await settled(gateway.url, record!.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });
});
