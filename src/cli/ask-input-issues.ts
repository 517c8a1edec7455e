/**
 * `ask` checks its question with the contract before it connects, and names the flag a problem came from
 * (`--option 2: …`), not the JSON path the flags were turned into (`questions[0].options[1].label`). Input read with
 * `--json FILE` keeps its paths: they are the file's own.
 */
import { normalizeAskUserInput, type ContractIssue } from "../contract/normalize.ts";

/** A path of the one question the flags build, and the flag it came from. */
const FLAG_PATHS: ReadonlyArray<[RegExp, (match: RegExpMatchArray) => string]> = [
  [/^questions\[0\]\.options\[(\d+)\]\.label$/u, (m) => `--option ${Number(m[1]) + 1}`],
  [/^questions\[0\]\.options\[(\d+)\]\.description$/u, (m) => `--description of --option ${Number(m[1]) + 1}`],
  [/^questions\[0\]\.options(\[\d+\])?$/u, () => "--option"],
  [/^questions\[0\]\.question$/u, () => "--question"],
  [/^questions\[0\]\.header$/u, () => "--header"],
  [/^questions\[0\]\.id$/u, () => "--id"],
  [/^questions\[0\]\.multiSelect$/u, () => "--multi"],
  [/^timeoutSeconds$/u, () => "--timeout"],
];

/** The flag an issue of the flag-built input is about (or its path, when no flag made that field). */
export function flagOfPath(path: string): string {
  for (const [pattern, flag] of FLAG_PATHS) {
    const match = path.match(pattern);
    if (match) return flag(match);
  }
  return path;
}

/** The contract's problems with the input, one `where: what` line each (none: it is valid). */
export function askInputProblems(input: Record<string, unknown>, from: "flags" | "json"): string[] {
  // The contract's part of the input: a --json file may carry the request's other fields too (targets, runId, …),
  // which the gateway checks.
  const { questions, timeoutSeconds } = input;
  const result = normalizeAskUserInput({ questions, ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) });
  if (result.ok) return [];
  return result.issues.map((issue: ContractIssue) => `${from === "flags" ? flagOfPath(issue.path) : issue.path || "(the input)"}: ${issue.message}`);
}
