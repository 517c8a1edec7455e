/**
 * ask_user as an OpenAI Agents SDK tool (`ask-user-bridge/openai-agents`). Needs the optional peer dependency
 * `@openai/agents` (>=0.20).
 */
import { tool, type FunctionTool, type ToolInputParameters, type UnknownContext } from "@openai/agents";
import type { AskUserResult, InvalidInputResult } from "../contract/result.ts";
import { askUserJsonSchemaCopy, frameworkOptionsToTool, type FrameworkToolOptions } from "./options.ts";

export type { FrameworkToolOptions } from "./options.ts";

/**
 * A plain JSON Schema as a non-strict tool's `parameters`. The SDK's type wants `additionalProperties: true` here, but
 * it only passes the schema on to the model; ask_user's `additionalProperties: false` is kept.
 */
type JsonParameters = Extract<ToolInputParameters, { type: "object"; additionalProperties: true }>;

/** The Agents SDK function tool; it returns the ask_user result object (the SDK sends it to the model as JSON). */
export type OpenAIAgentsAskUserTool = FunctionTool<UnknownContext, JsonParameters, AskUserResult | InvalidInputResult>;

/**
 * Creates ask_user for the OpenAI Agents SDK: `new Agent({ tools: [tool] })`. Returns undefined when
 * `session.kind` is not "main".
 *
 * The tool is non-strict with a plain copy of the ask_user JSON Schema, so the SDK only JSON-parses the arguments
 * and bad input comes back as the `invalid_input` result. The run's `signal` (`run(agent, input, { signal })`)
 * reaches the tool as `details.signal` and cancels the question on the gateway (reason `aborted`).
 */
export function createOpenAIAgentsAskUserTool(options: FrameworkToolOptions): OpenAIAgentsAskUserTool | undefined {
  const askUser = frameworkOptionsToTool(options);
  if (!askUser) return undefined;
  return tool<JsonParameters, UnknownContext, AskUserResult | InvalidInputResult>({
    name: askUser.name,
    description: askUser.description,
    parameters: askUserJsonSchemaCopy(askUser) as JsonParameters,
    strict: false,
    execute: (input, _context, details) => askUser.execute(input, details?.signal ? { signal: details.signal } : {}),
  });
}
