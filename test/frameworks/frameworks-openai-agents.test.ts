/**
 * ask_user as an OpenAI Agents SDK tool (`ask-user-bridge/openai-agents`): `run(agent, input)` with a scripted
 * model drives the SDK's own tool execution against a real in-process gateway. Nothing reaches OpenAI.
 */
import { Agent, run, setTracingDisabled, Usage, type AgentInputItem, type AgentOutputItem, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIAgentsAskUserTool } from "../../src/frameworks/openai-agents.ts";
import { ASK_USER_DESCRIPTION, askUserInputJsonSchema, connectGateway, type GatewayClient } from "../../src/index.ts";
import { answered, answerIn, settled } from "../helpers/frameworks.ts";
import { oneQuestion, TOKEN, useTestGateway } from "../helpers/gateway.ts";

setTracingDisabled(true);

/** A Model that plays back one scripted turn per call and records what each call was sent. */
class ScriptedModel implements Model {
  readonly inputs: AgentInputItem[][] = [];
  readonly requests: ModelRequest[] = [];
  constructor(private readonly turns: AgentOutputItem[][]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    this.inputs.push(typeof request.input === "string" ? [{ role: "user", content: request.input }] : structuredClone(request.input));
    const output = this.turns[this.requests.length - 1];
    if (!output) throw new Error(`no scripted turn for model call ${this.requests.length}`);
    return { usage: new Usage(), output, responseId: `resp_${this.requests.length}` };
  }

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("this test model does not stream");
  }
}

/** A model turn that calls ask_user with `input`. */
function askUserCall(input: unknown): AgentOutputItem[] {
  return [{ type: "function_call", callId: "call_1", name: "ask_user", arguments: JSON.stringify(input), status: "completed" }];
}

/** A model turn that ends the run with `text`. */
function finalText(text: string): AgentOutputItem[] {
  return [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] }];
}

/** The ask_user output item the SDK sent the model on model call `call` (0-based). */
function toolOutputSent(model: ScriptedModel, call: number) {
  const item = model.inputs[call]?.find((i) => i.type === "function_call_result");
  return item?.type === "function_call_result" ? item : undefined;
}

/** That output's text: the SDK sends a tool's object result to the model as JSON text. */
function toolOutputText(model: ScriptedModel, call: number): string {
  const output = toolOutputSent(model, call)?.output;
  if (output && typeof output === "object" && "type" in output && output.type === "text") return output.text;
  throw new Error(`model call ${call} was sent no text tool output: ${JSON.stringify(output)}`);
}

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



describe("createOpenAIAgentsAskUserTool", () => {
  it("is ask_user with the model guidance and the ask_user JSON Schema, for the main session only", async () => {
    const tool = createOpenAIAgentsAskUserTool({ client, session: { kind: "main" } })!;
    expect(tool).toMatchObject({ type: "function", name: "ask_user", description: ASK_USER_DESCRIPTION, strict: false, parameters: askUserInputJsonSchema });
    expect(createOpenAIAgentsAskUserTool({ client, session: { kind: "subagent" } })).toBeUndefined();
    // What the model is sent.
    const model = new ScriptedModel([finalText("ok")]);
    await run(new Agent({ name: "Probe", model, tools: [tool] }), "hi");
    expect(model.requests[0]!.tools).toEqual([
      expect.objectContaining({ type: "function", name: "ask_user", description: ASK_USER_DESCRIPTION, strict: false, parameters: askUserInputJsonSchema }),
    ]);
  });

  it("a model's ask_user call reaches the gateway, and the person's answer is the tool output the model gets back", async () => {
    const off = answerIn(person, "run-1", { deploy_target: ["Production"] });
    const model = new ScriptedModel([askUserCall(oneQuestion()), finalText("Deploying to Production.")]);
    const url = gateway.url;
    const token = TOKEN;

    // README: "OpenAI Agents SDK" (the snippet's statements; only the url, token and model differ)
    const client = await connectGateway({ url, token });
    const askUser = createOpenAIAgentsAskUserTool({ client, session: { kind: "main", key: "run-1" } });
    const agent = new Agent({ name: "Deployer", instructions: "Ship the release.", model, tools: askUser ? [askUser] : [] });
    const result = await run(agent, "Deploy the release.");
    // end README

    off();
    client.close();
    expect(result.finalOutput).toBe("Deploying to Production.");
    expect(model.requests).toHaveLength(2);
    expect(toolOutputSent(model, 1)).toMatchObject({ name: "ask_user", callId: "call_1", status: "completed" });
    expect(JSON.parse(toolOutputText(model, 1))).toEqual(answered);
    const toolItem = result.newItems.find((item) => item.type === "tool_call_output_item");
    expect(toolItem && "output" in toolItem ? toolItem.output : undefined).toEqual(answered);
    const [record] = await person.list({ sessionKey: "run-1" });
    expect(record).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
  });

  it("invalid input reaches the tool and comes back as the invalid_input result, without asking", async () => {
    const tool = createOpenAIAgentsAskUserTool({ client, session: { kind: "main", key: "oa-invalid" } })!;
    const bad = { questions: [{ ...oneQuestion().questions[0], id: "Bad", options: [{ label: "Other" }] }] };
    const model = new ScriptedModel([askUserCall(bad), finalText("ok")]);
    await run(new Agent({ name: "Invalid", model, tools: [tool] }), "go");
    expect(JSON.parse(toolOutputText(model, 1))).toMatchObject({ status: "invalid_input", issues: expect.arrayContaining([expect.objectContaining({ path: "questions[0].id" })]) });
    expect(await client.list({ sessionKey: "oa-invalid" })).toEqual([]);
  });

  it("arguments that are not JSON never reach the tool: the SDK sends the model its own error text", async () => {
    const tool = createOpenAIAgentsAskUserTool({ client, session: { kind: "main", key: "oa-not-json" } })!;
    const model = new ScriptedModel([[{ type: "function_call", callId: "call_1", name: "ask_user", arguments: "{not json", status: "completed" }], finalText("ok")]);
    await run(new Agent({ name: "NotJson", model, tools: [tool] }), "go");
    expect(toolOutputText(model, 1)).toBe("An error occurred while parsing tool arguments. Please try again with valid JSON.");
    expect(await client.list({ sessionKey: "oa-not-json" })).toEqual([]);
  });

  it("the run's signal cancels the question on the gateway with reason aborted (the SDK rejects the run)", async () => {
    const controller = new AbortController();
    const off = person.on("question.requested", (record) => {
      if (record.sessionKey === "oa-abort") setTimeout(() => controller.abort(), 50);
    });
    const tool = createOpenAIAgentsAskUserTool({ client, session: { kind: "main", key: "oa-abort" } })!;
    const model = new ScriptedModel([askUserCall(oneQuestion()), finalText("ok")]);
    const running = run(new Agent({ name: "Aborted", model, tools: [tool] }), "go", { signal: controller.signal });
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
    off();
    expect(model.requests).toHaveLength(1);
    const [record] = await client.list({ sessionKey: "oa-abort" });
    expect(await settled(gateway.url, record!.id)).toMatchObject({ status: "cancelled", reason: "aborted" });
  });
});
