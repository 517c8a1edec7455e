/**
 * ask_user as a Vercel AI SDK tool (`ask-user-bridge/ai`). Needs the optional peer dependency `ai` (v6).
 */
import { jsonSchema, tool, type Tool } from "ai";
import type { AskUserResult, InvalidInputResult } from "../contract/result.ts";
import { askUserJsonSchemaCopy, frameworkOptionsToTool, type FrameworkToolOptions } from "./options.ts";

export type { FrameworkToolOptions } from "./options.ts";

/** The AI SDK tool: any input in, the ask_user result out. */
export type AiSdkAskUserTool = Tool<unknown, AskUserResult | InvalidInputResult>;

/**
 * Creates ask_user for the AI SDK. Register it under the name `ask_user`:
 * `tools: { ask_user: tool }`. Returns undefined when `session.kind` is not "main".
 *
 * The input schema is the ask_user JSON Schema through `jsonSchema()` without a validator, so the SDK hands the
 * model's arguments to the tool unchecked and bad input comes back as the `invalid_input` result the model can
 * fix, not as a tool error. `execute`'s `abortSignal` cancels the question on the gateway (reason `aborted`) and
 * the tool resolves to `{ status: "no_answer", reason: "aborted" }`.
 */
export function createAiSdkAskUserTool(options: FrameworkToolOptions): AiSdkAskUserTool | undefined {
  const askUser = frameworkOptionsToTool(options);
  if (!askUser) return undefined;
  return tool<unknown, AskUserResult | InvalidInputResult>({
    description: askUser.description,
    inputSchema: jsonSchema<unknown>(askUserJsonSchemaCopy(askUser)),
    execute: (input, { abortSignal }) => askUser.execute(input, abortSignal ? { signal: abortSignal } : {}),
  });
}
