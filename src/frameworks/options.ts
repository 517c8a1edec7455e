import type { GatewayClient } from "../client/index.ts";
import type { Target } from "../record/record.ts";
import { createGatewayAsk } from "../client/sdk.ts";
import { createAskUserTool, type AskFunction, type AskUserSession, type AskUserTool } from "../contract/tool.ts";

/**
 * What every framework tool (`ask-user-bridge/ai`, `/langchain`, `/openai-agents`) takes: the agent's session, and
 * either a gateway client (with optional default targets) or an `ask` function of your own.
 */
export type FrameworkToolOptions =
  | { session: AskUserSession; client: GatewayClient; targets?: Target[] }
  | { session: AskUserSession; ask: AskFunction };

/** The core ask_user tool behind a framework tool; undefined for non-main sessions (same rule as createAskUserTool). */
export function frameworkOptionsToTool(options: FrameworkToolOptions): AskUserTool | undefined {
  const ask = "ask" in options ? options.ask : createGatewayAsk(options.client, options.targets ? { targets: options.targets } : {});
  return createAskUserTool({ session: options.session, ask });
}

/**
 * A plain, unshared copy of the ask_user JSON Schema. Frameworks may annotate or mutate the object they are given,
 * and a plain object carries no zod `~standard` marker that would make them treat it as a Standard Schema.
 */
export function askUserJsonSchemaCopy(tool: AskUserTool): Record<string, unknown> {
  return JSON.parse(JSON.stringify(tool.inputSchema)) as Record<string, unknown>;
}
