/** ask_user inputs for the contract tests, and the normaliser's verdict on them. */
import { normalizeAskUserInput, type ContractIssue } from "../../src/index.ts";

export const option = (label: string, description?: string) => (description === undefined ? { label } : { label, description });
export const question = (over: Record<string, unknown> = {}) => ({
  id: "deploy_target",
  header: "Target",
  question: "Where should this deploy?",
  options: [option("Staging (Recommended)"), option("Production")],
  ...over,
});
export const input = (over: Record<string, unknown> = {}) => ({ questions: [question()], ...over });

/** The issues of an input that must be refused. */
export function issuesOf(value: unknown): ContractIssue[] {
  const result = normalizeAskUserInput(value);
  if (result.ok) throw new Error(`expected issues, got ok: ${JSON.stringify(result.value)}`);
  return result.issues;
}

/** The normalised value of an input that must be accepted. */
export function valueOf(value: unknown) {
  const result = normalizeAskUserInput(value);
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.issues)}`);
  return result.value;
}
