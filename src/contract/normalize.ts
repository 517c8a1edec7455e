import type { z } from "zod";
import { isBlankText } from "../text.ts";
import { cutGraphemes, graphemeLength, looseLabelKey } from "../text.ts";
import {
  askUserInputSchema,
  LIMITS,
  optionSchema,
  questionSchema,
  type AskUserInput,
  type AskUserQuestion,
} from "./schema.ts";

export interface ContractIssue {
  /** Where the problem is, e.g. `questions[1].options[0].label`. */
  path: string;
  message: string;
}

export type NormalizeResult = { ok: true; value: AskUserInput } | { ok: false; issues: ContractIssue[] };

export interface NormalizeOptions {
  /**
   * Lower clamp for timeoutSeconds. Only the gateway's test-only setting lowers it;
   * the contract and its JSON Schema always say 30.
   */
  minTimeoutSeconds?: number;
}

/** Matches an authored "Other" option: the word alone, maybe with punctuation and/or a parenthetical. */
const AUTHORED_OTHER = /^other\s*[.…:?!]*\s*(\([^)]*\))?\s*[.…:?!]*$/u;

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return typeof value;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

const COUNT_NOUN: Record<string, string> = { questions: "questions", options: "options" };

function zodIssueToContract(issue: z.core.$ZodIssue, root: unknown, prefix: PropertyKey[]): ContractIssue[] {
  const path = [...prefix, ...issue.path];
  const at = formatPath(path);
  const value = valueAt(root, path);
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({ path: formatPath([...path, key]), message: "unknown field" }));
    case "too_small":
    case "too_big": {
      if (issue.origin === "array") {
        const field = String(path[path.length - 1] ?? "");
        const [min, max] = field === "options" ? [LIMITS.minOptions, LIMITS.maxOptions] : [LIMITS.minQuestions, LIMITS.maxQuestions];
        const got = Array.isArray(value) ? value.length : "?";
        return [{ path: at, message: `must have ${min} to ${max} ${COUNT_NOUN[field] ?? "items"} (got ${got})` }];
      }
      if (issue.code === "too_big" && issue.origin === "string" && typeof value === "string") {
        // A label's limit people read is in characters (checked in normalize); this cap only stops stacked marks.
        const field = String(path[path.length - 1] ?? "");
        if (field === "label") return [{ path: at, message: `must be at most ${LIMITS.labelMaxGraphemes} characters (got ${value.length} UTF-16 code units)` }];
        return [{ path: at, message: `must be at most ${String(issue.maximum)} characters (got ${value.length})` }];
      }
      return [{ path: at, message: issue.message }];
    }
    case "invalid_type":
      if (value === undefined) return [{ path: at, message: "is required" }];
      if (issue.expected === "int") return [{ path: at, message: `must be an integer (got ${String(value)})` }];
      if (issue.expected === "number" && typeof value === "number") return [{ path: at, message: `must be a finite number (got ${String(value)})` }];
      return [{ path: at, message: `must be ${issue.expected === "object" ? "an object" : `a ${issue.expected}`} (got ${typeName(value)})` }];
    case "invalid_format":
      return [{ path: at, message: "must be snake_case: a lower-case letter, then lower-case letters, digits or _" }];
    default:
      return [{ path: at, message: issue.message }];
  }
}

function collectZodIssues(schema: z.ZodType, input: unknown, root: unknown, prefix: PropertyKey[], out: ContractIssue[]): boolean {
  const result = schema.safeParse(input);
  if (result.success) return true;
  for (const issue of result.error.issues) out.push(...zodIssueToContract(issue, root, prefix));
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates and normalises ask_user input (PRODUCT.md §1). Lists every problem with its path; never throws.
 */
export function normalizeAskUserInput(input: unknown, options: NormalizeOptions = {}): NormalizeResult {
  try {
    return normalize(input, options);
  } catch (error) {
    // Defensive: hostile input (getters, proxies) must never escape as an exception.
    return { ok: false, issues: [{ path: "", message: `input could not be read: ${(error as Error)?.message ?? String(error)}` }] };
  }
}

function normalize(input: unknown, options: NormalizeOptions): NormalizeResult {
  const issues: ContractIssue[] = [];
  const structurallyValid = collectZodIssues(askUserInputSchema, input, input, [], issues);

  // zod stops at an out-of-range count, so the items are checked on their own as well.
  const rawQuestions = isRecord(input) && Array.isArray(input.questions) ? input.questions : [];
  if (!structurallyValid) {
    rawQuestions.forEach((q, qi) => {
      collectZodIssues(questionSchema, q, input, ["questions", qi], issues);
      if (isRecord(q) && Array.isArray(q.options)) {
        q.options.forEach((o, oi) => collectZodIssues(optionSchema, o, input, ["questions", qi, "options", oi], issues));
      }
    });
  }

  const seenIds = new Map<string, number>();
  const seenHeaders = new Map<string, number>();
  const questions: AskUserQuestion[] = [];

  rawQuestions.forEach((q, qi) => {
    if (!isRecord(q)) return;
    const at = (...rest: PropertyKey[]) => formatPath(["questions", qi, ...rest]);

    if (typeof q.id === "string") {
      const prev = seenIds.get(q.id);
      if (prev !== undefined) issues.push({ path: at("id"), message: `duplicate id "${q.id}" (also questions[${prev}].id)` });
      else seenIds.set(q.id, qi);
    }

    // Text over its length cap was reported above; it is not segmented into characters (slow on long text).
    let header = "";
    if (typeof q.header === "string" && q.header.length <= LIMITS.headerMaxLength) {
      header = cutGraphemes(q.header.trim(), LIMITS.headerMaxGraphemes).trim();
      if (!header) issues.push({ path: at("header"), message: "must not be empty" });
      else {
        const key = header.toLocaleLowerCase();
        const prev = seenHeaders.get(key);
        if (prev !== undefined) {
          issues.push({ path: at("header"), message: `duplicate header "${header}" after cutting to ${LIMITS.headerMaxGraphemes} characters (also questions[${prev}].header)` });
        } else seenHeaders.set(key, qi);
      }
    }

    const question = typeof q.question === "string" ? q.question.trim() : "";
    if (typeof q.question === "string" && !question) issues.push({ path: at("question"), message: "must not be empty" });

    const seenLabels = new Map<string, number>();
    const opts: AskUserQuestion["options"] = [];
    const rawOptions = Array.isArray(q.options) ? q.options : [];
    rawOptions.forEach((o, oi) => {
      if (!isRecord(o) || typeof o.label !== "string" || o.label.length > LIMITS.labelMaxLength) return;
      const label = o.label.trim();
      if (!label) {
        issues.push({ path: at("options", oi, "label"), message: "must not be empty" });
        return;
      }
      if (isBlankText(label) || !looseLabelKey(label)) {
        issues.push({ path: at("options", oi, "label"), message: `"${label}" cannot be typed as a reply: it is only punctuation or separators` });
        return;
      }
      const length = graphemeLength(label);
      if (length > LIMITS.labelMaxGraphemes) {
        issues.push({ path: at("options", oi, "label"), message: `must be at most ${LIMITS.labelMaxGraphemes} characters (got ${length})` });
      }
      if (AUTHORED_OTHER.test(label.toLocaleLowerCase())) {
        issues.push({
          path: at("options", oi, "label"),
          message: `"${label}" is an authored Other option; remove it: free text is always added automatically`,
        });
      }
      const key = looseLabelKey(label);
      const prev = seenLabels.get(key);
      if (prev !== undefined) {
        issues.push({
          path: at("options", oi, "label"),
          message: `"${label}" cannot be typed apart from options[${prev}] (labels must differ beyond case, spacing, quotes, trailing punctuation and " (Recommended)")`,
        });
      } else seenLabels.set(key, oi);
      const description = typeof o.description === "string" ? o.description.trim() : "";
      opts.push(description ? { label, description } : { label });
    });

    questions.push({ id: String(q.id), header, question, options: opts, multiSelect: q.multiSelect === true });
  });

  if (issues.length > 0 || !structurallyValid) return { ok: false, issues: dedupe(issues) };

  const raw = input as { timeoutSeconds?: number };
  const floor = options.minTimeoutSeconds ?? LIMITS.minTimeoutSeconds;
  const timeoutSeconds = Math.min(LIMITS.maxTimeoutSeconds, Math.max(floor, raw.timeoutSeconds ?? LIMITS.defaultTimeoutSeconds));
  return { ok: true, value: { questions, timeoutSeconds } };
}

function dedupe(issues: ContractIssue[]): ContractIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One line per issue: `path: message`. */
export function formatIssues(issues: ContractIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("\n");
}
