/**
 * ask_user as a LangChain.js tool (`ask-user-bridge/langchain`). Needs the optional peer dependency `@langchain/core` (v1).
 */
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import type { AskUserResult, InvalidInputResult } from "../contract/result.ts";
import { askUserJsonSchemaCopy, frameworkOptionsToTool, type FrameworkToolOptions } from "./options.ts";

export type { FrameworkToolOptions } from "./options.ts";

/**
 * The LangChain tool. `invoke(toolCall)` gives a ToolMessage carrying the result as JSON text (`content`) and as an
 * object (`artifact`); `invoke(args)` gives the JSON text.
 */
export type LangChainAskUserTool = DynamicStructuredTool<Record<string, unknown>, unknown, Record<string, unknown>, string>;

/**
 * Creates ask_user for LangChain.js. Returns undefined when `session.kind` is not "main".
 *
 * Output: the tool uses `responseFormat: "content_and_artifact"`. Invoked with a ToolCall
 * (`{ name, args, id, type: "tool_call" }`) it returns a ToolMessage whose `content` is `JSON.stringify(result)`
 * (what the model reads) and whose `artifact` is the result object (what your code reads). Invoked with plain
 * arguments it returns the JSON string.
 *
 * Validation: LangChain validates the arguments against the JSON Schema itself before the tool runs, and throws
 * `ToolInputParsingException` on a mismatch (its message lists the failing keywords; `verboseParsingErrors` is on).
 * Input the schema admits but the contract refuses (e.g. an "Other" option, duplicate ids) comes back as the
 * `invalid_input` result.
 *
 * Abort: `config.signal` cancels the question on the gateway (reason `aborted`); LangChain itself then rejects the
 * invocation with an abort error rather than returning a ToolMessage.
 */
export function createLangChainAskUserTool(options: FrameworkToolOptions): LangChainAskUserTool | undefined {
  const askUser = frameworkOptionsToTool(options);
  if (!askUser) return undefined;
  // The function returns [content, artifact] and LangChain unpacks it, so callers get a string or a ToolMessage:
  // the cast gives the tool that output type instead of the tuple.
  return tool(
    async (input: unknown, config): Promise<[string, AskUserResult | InvalidInputResult]> => {
      const result = await askUser.execute(input, config?.signal ? { signal: config.signal } : {});
      return [JSON.stringify(result), result];
    },
    {
      name: askUser.name,
      description: askUser.description,
      schema: askUserJsonSchemaCopy(askUser),
      responseFormat: "content_and_artifact",
      verboseParsingErrors: true,
    },
  ) as unknown as LangChainAskUserTool;
}
