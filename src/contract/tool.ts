import { askUserInputJsonSchema, type AskUserInput } from "./schema.ts";
import { formatIssues, normalizeAskUserInput } from "./normalize.ts";
import {
  askUserResultSchema,
  noAnswerResult,
  type AskUserResult,
  type InvalidInputResult,
} from "./result.ts";

/** The model guidance (PRODUCT.md §1), sent as the tool's description. */
export const ASK_USER_DESCRIPTION = [
  "Ask the user one to three structured questions and wait for their answers.",
  "Use it only when you are blocked on a decision that genuinely belongs to the user. Never ask whether you may proceed, and never ask the user to confirm your own plan; decide routine matters and anything you can derive from the request, the code or a sensible default yourself.",
  "Ask exactly one question per call unless several answers must be submitted together: one-question prompts get native buttons on chat apps.",
  "Put every selectable choice in `options` (2-4 of them), never only in the question text.",
  "Set `multiSelect` only when several choices can apply at once.",
  "Put the recommended option first and end its label with \" (Recommended)\".",
  "Never add an \"Other\" option: a free-text answer is always offered automatically.",
  "Never ask for a password, API key, token or other credential; use the secrets flow instead.",
  "If the result is `no_answer` (expired, skipped, cancelled or aborted) or `delivery_failed`, continue with your best judgment.",
].join("\n");

export interface AskUserSession {
  /** Only "main" sessions get the tool; subagents and other non-primary runs do not. */
  kind: "main" | "subagent" | (string & {});
  key?: string;
  runId?: string;
}

export interface AskContext {
  signal?: AbortSignal;
  session: AskUserSession;
}

/** Asks a person; resolves to the ask_user result. Injected so the tool works with any backend. */
export type AskFunction = (input: AskUserInput, context: AskContext) => Promise<AskUserResult>;

export interface AskUserTool {
  name: "ask_user";
  description: string;
  inputSchema: Record<string, unknown>;
  execute(input: unknown, options?: { signal?: AbortSignal }): Promise<AskUserResult | InvalidInputResult>;
}

export function createAskUserTool({ session, ask }: { session: AskUserSession; ask: AskFunction }): AskUserTool | undefined {
  if (session.kind !== "main") return undefined;
  return {
    name: "ask_user",
    description: ASK_USER_DESCRIPTION,
    inputSchema: askUserInputJsonSchema,
    async execute(input, { signal } = {}) {
      const normalized = normalizeAskUserInput(input);
      if (!normalized.ok) {
        return {
          status: "invalid_input",
          message: `ask_user input is invalid:\n${formatIssues(normalized.issues)}`,
          issues: normalized.issues,
        };
      }
      if (signal?.aborted) return noAnswerResult("aborted");
      const aborted = new Promise<AskUserResult>((resolve) => {
        signal?.addEventListener("abort", () => resolve(noAnswerResult("aborted")), { once: true });
      });
      const outcome = await Promise.race([ask(normalized.value, { signal, session }), aborted]);
      if (signal?.aborted) return noAnswerResult("aborted");
      const checked = askUserResultSchema.safeParse(outcome);
      if (!checked.success) throw new TypeError(`ask() returned a value that is not an ask_user result: ${checked.error.message}`);
      return checked.data;
    },
  };
}
