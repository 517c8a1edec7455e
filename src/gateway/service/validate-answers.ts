import { formatIssues } from "../../kernel/issues.ts";
import { LIMITS, type AskUserQuestion } from "../../contract/schema.ts";
import { GatewayError } from "../../kernel/errors.ts";
import { looksLikeCredential } from "../../parse/index.ts";

const MAX_VALUE_LENGTH = LIMITS.answerMaxLength;

/**
 * Resolve validation (PRODUCT.md §3): every question has at least one value, a single-select question has exactly
 * one, and a value equal to a label (case-insensitively) is stored as that exact label. Throws CREDENTIAL_REFUSED when
 * a value looks like a credential or holds one of the deployment's own secrets (`holdsKnownSecret`, see
 * createKnownSecretMatcher), and nothing is recorded; else QUESTION_INVALID_ANSWER for any other problem. Neither
 * error quotes the value.
 */
export function validateAnswers(
  questions: AskUserQuestion[],
  given: Record<string, string | string[]>,
  holdsKnownSecret: (text: string) => boolean = () => false,
): Record<string, string[]> {
  const issues: Array<{ path: string; message: string }> = [];
  const credentials: Array<{ path: string; message: string }> = [];
  const answers: Record<string, string[]> = {};
  const known = new Set(questions.map((q) => q.id));
  for (const key of Object.keys(given)) {
    if (!known.has(key)) issues.push({ path: `answers.${key}`, message: "no question has this id" });
  }
  for (const q of questions) {
    const raw = Object.hasOwn(given, q.id) ? given[q.id] : undefined;
    const values = (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).map((v) => v.trim()).filter(Boolean);
    const byLabel = new Map(q.options.map((o) => [o.label.toLocaleLowerCase(), o.label]));
    const stored: string[] = [];
    for (const value of values) {
      const label = byLabel.get(value.toLocaleLowerCase()) ?? value;
      if (label === value && !byLabel.has(value.toLocaleLowerCase()) && (looksLikeCredential(value) || holdsKnownSecret(value))) {
        credentials.push({ path: `answers.${q.id}`, message: "looks like a credential; it was not recorded (use the secrets flow for credentials)" });
      } else if (label.length > MAX_VALUE_LENGTH) issues.push({ path: `answers.${q.id}`, message: `a value is longer than ${MAX_VALUE_LENGTH} characters` });
      else if (!stored.includes(label)) stored.push(label);
    }
    if (stored.length === 0 && credentials.length === 0) issues.push({ path: `answers.${q.id}`, message: "needs at least one value" });
    else if (!q.multiSelect && stored.length > 1) issues.push({ path: `answers.${q.id}`, message: `is single-select and takes exactly one value (got ${stored.length})` });
    answers[q.id] = stored;
  }
  if (credentials.length > 0) {
    throw new GatewayError("CREDENTIAL_REFUSED", credentials.map((i) => `${i.path}: ${i.message}`).join("; "), { issues: credentials });
  }
  if (issues.length > 0) {
    throw new GatewayError("QUESTION_INVALID_ANSWER", formatIssues(issues, "; "), { issues });
  }
  return answers;
}
