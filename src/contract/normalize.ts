import { z } from "zod";
import { cutGraphemes, graphemeLength, hiddenCharacters, isBlankText, looseLabelKey } from "../kernel/text.ts";
import { createIssueList, MAX_ISSUES, tooManyFields, type ContractIssue, type IssueList } from "../kernel/issues.ts";
import { askUserInputSchema, LIMITS, optionSchema, questionSchema, type AskUserInput, type AskUserQuestion } from "./schema.ts";

export { formatIssues, type ContractIssue } from "../kernel/issues.ts";

export type NormalizeResult = { ok: true; value: AskUserInput } | { ok: false; issues: ContractIssue[] };

export interface NormalizeOptions {
  /**
   * Lower clamp for timeoutSeconds. Only the gateway's test-only setting lowers it;
   * the contract and its JSON Schema always say 30.
   */
  minTimeoutSeconds?: number;
  /** A longer limit for option labels (an approval's grants name the rule and the file they write); default 64. */
  labelMaxGraphemes?: number;
}

/** Matches an authored "Other" option: the word alone, maybe with punctuation and/or a parenthetical. */
const AUTHORED_OTHER = /^other\s*[.…:?!]*\s*(\([^)]*\))?\s*[.…:?!]*$/u;

/** Whether a (trimmed) label is an authored "Other" option, which the contract refuses (free text is automatic). */
export const isAuthoredOther = (label: string): boolean => AUTHORED_OTHER.test(label.toLocaleLowerCase());

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

function addZodIssue(issues: IssueList, issue: z.core.$ZodIssue, root: unknown, prefix: PropertyKey[]): void {
  const path = [...prefix, ...issue.path];
  if (issue.code === "unrecognized_keys") {
    // 80,000 unknown fields are one zod issue; only the first few become messages.
    issues.addEach(issue.keys.length, (k) => ({ path: formatPath([...path, issue.keys[k]!]), message: "unknown field" }));
    return;
  }
  issues.add({ path: formatPath(path), message: zodIssueMessage(issue, path, valueAt(root, path)) });
}

function zodIssueMessage(issue: z.core.$ZodIssue, path: PropertyKey[], value: unknown): string {
  switch (issue.code) {
    case "too_small":
    case "too_big": {
      if (issue.origin === "array") {
        const field = String(path[path.length - 1] ?? "");
        const [min, max] = field === "options" ? [LIMITS.minOptions, LIMITS.maxOptions] : [LIMITS.minQuestions, LIMITS.maxQuestions];
        const got = Array.isArray(value) ? value.length : "?";
        return `must have ${min} to ${max} ${COUNT_NOUN[field] ?? "items"} (got ${got})`;
      }
      if (issue.code === "too_big" && issue.origin === "string" && typeof value === "string") {
        // A label's limit people read is in characters (checked in normalize); this cap only stops stacked marks.
        const field = String(path[path.length - 1] ?? "");
        if (field === "label") return `must be at most ${LIMITS.labelMaxGraphemes} characters (got ${value.length} UTF-16 code units)`;
        return `must be at most ${String(issue.maximum)} characters (got ${value.length})`;
      }
      return issue.message;
    }
    case "invalid_type":
      if (value === undefined) return "is required";
      if (issue.expected === "int") return `must be an integer (got ${String(value)})`;
      if (issue.expected === "number" && typeof value === "number") return `must be a finite number (got ${String(value)})`;
      return `must be ${issue.expected === "object" ? "an object" : `a ${issue.expected}`} (got ${typeName(value)})`;
    case "invalid_format":
      return "must be snake_case: a lower-case letter, then lower-case letters, digits or _";
    default:
      return issue.message;
  }
}

/** Checks `input` against one level of the schema, adding what is wrong to `issues`; true when nothing is. */
function checkLevel({ schema, fields }: Level, input: unknown, root: unknown, prefix: PropertyKey[], issues: IssueList): boolean {
  const wide = tooManyFields(input, fields);
  if (wide) {
    issues.addEach(wide.count, (k) => ({ path: formatPath([...prefix, wide.first[k]!]), message: "unknown field" }));
    return false;
  }
  const result = schema.safeParse(input);
  if (result.success) return true;
  for (const issue of result.error.issues) addZodIssue(issues, issue, root, prefix);
  return false;
}

/**
 * The schema one level at a time: the input with its questions unread, each question with its options unread, each
 * option. So a count out of range hides none of the items' problems (plain zod stops at the count), no problem is
 * reported twice, and a long array costs little: only its first ITEMS_CHECKED items are read. Past those, the count's
 * own issue says how many there are.
 */
const level = (schema: z.ZodObject) => ({ schema, fields: new Set(Object.keys(schema.shape)) });
const INPUT = level(askUserInputSchema.extend({ questions: z.array(z.unknown()).min(LIMITS.minQuestions).max(LIMITS.maxQuestions) }));
const QUESTION = level(questionSchema.extend({ options: z.array(z.unknown()).min(LIMITS.minOptions).max(LIMITS.maxOptions) }));
const OPTION = level(optionSchema);
type Level = ReturnType<typeof level>;
const ITEMS_CHECKED = { questions: LIMITS.maxQuestions + MAX_ISSUES, options: LIMITS.maxOptions + MAX_ISSUES };

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
  const issues = createIssueList();
  let structurallyValid = checkLevel(INPUT, input, input, [], issues);
  const rawQuestions = isRecord(input) && Array.isArray(input.questions) ? input.questions.slice(0, ITEMS_CHECKED.questions) : [];
  rawQuestions.forEach((q, qi) => {
    structurallyValid = checkLevel(QUESTION, q, input, ["questions", qi], issues) && structurallyValid;
    if (!isRecord(q) || !Array.isArray(q.options)) return;
    q.options.slice(0, ITEMS_CHECKED.options).forEach((o, oi) => {
      structurallyValid = checkLevel(OPTION, o, input, ["questions", qi, "options", oi], issues) && structurallyValid;
    });
  });

  const seenIds = new Map<string, number>();
  const seenHeaders = new Map<string, number>();
  const questions: AskUserQuestion[] = [];

  rawQuestions.forEach((q, qi) => {
    if (!isRecord(q)) return;
    const at = (...rest: PropertyKey[]) => formatPath(["questions", qi, ...rest]);
    /** Text over its length cap was reported above; it is neither searched nor segmented into characters (slow on long text). */
    const readable = (value: unknown, maxLength: number): value is string => typeof value === "string" && value.length <= maxLength;
    const refuseHidden = (text: string, ...rest: PropertyKey[]) => {
      const hidden = hiddenCharacters(text);
      if (hidden.length > 0) issues.add({ path: at(...rest), message: `must not contain invisible or bidi control characters (${hidden.join(", ")})` });
    };

    if (typeof q.id === "string") {
      const prev = seenIds.get(q.id);
      if (prev !== undefined) issues.add({ path: at("id"), message: `duplicate id "${q.id}" (also questions[${prev}].id)` });
      else seenIds.set(q.id, qi);
    }

    let header = "";
    if (readable(q.header, LIMITS.headerMaxLength)) {
      refuseHidden(q.header, "header");
      header = cutGraphemes(q.header.trim(), LIMITS.headerMaxGraphemes).trim();
      if (!header) issues.add({ path: at("header"), message: "must not be empty" });
      else {
        const key = header.toLocaleLowerCase();
        const prev = seenHeaders.get(key);
        if (prev !== undefined) {
          issues.add({ path: at("header"), message: `duplicate header "${header}" after cutting to ${LIMITS.headerMaxGraphemes} characters (also questions[${prev}].header)` });
        } else seenHeaders.set(key, qi);
      }
    }

    const question = typeof q.question === "string" ? q.question.trim() : "";
    if (readable(q.question, LIMITS.questionMaxLength)) refuseHidden(q.question, "question");
    if (typeof q.question === "string" && !question) issues.add({ path: at("question"), message: "must not be empty" });

    const seenLabels = new Map<string, number>();
    const opts: AskUserQuestion["options"] = [];
    const rawOptions = Array.isArray(q.options) ? q.options.slice(0, ITEMS_CHECKED.options) : [];
    rawOptions.forEach((o, oi) => {
      if (!isRecord(o)) return;
      if (readable(o.description, LIMITS.descriptionMaxLength)) refuseHidden(o.description, "options", oi, "description");
      if (!readable(o.label, LIMITS.labelMaxLength)) return;
      refuseHidden(o.label, "options", oi, "label");
      const label = o.label.trim();
      if (!label) {
        issues.add({ path: at("options", oi, "label"), message: "must not be empty" });
        return;
      }
      if (isBlankText(label) || !looseLabelKey(label)) {
        issues.add({ path: at("options", oi, "label"), message: `"${label}" cannot be typed as a reply: it is only punctuation or separators` });
        return;
      }
      const length = graphemeLength(label);
      const labelMax = options.labelMaxGraphemes ?? LIMITS.labelMaxGraphemes;
      if (length > labelMax) {
        issues.add({ path: at("options", oi, "label"), message: `must be at most ${labelMax} characters (got ${length})` });
      }
      if (isAuthoredOther(label)) {
        issues.add({
          path: at("options", oi, "label"),
          message: `"${label}" is an authored Other option; remove it: free text is always added automatically`,
        });
      }
      const key = looseLabelKey(label);
      const prev = seenLabels.get(key);
      if (prev !== undefined) {
        issues.add({
          path: at("options", oi, "label"),
          message: `"${label}" cannot be typed apart from options[${prev}] (labels must differ beyond case, spacing, quotes, trailing punctuation and " (Recommended)")`,
        });
      } else seenLabels.set(key, oi);
      const description = typeof o.description === "string" ? o.description.trim() : "";
      opts.push(description ? { label, description } : { label });
    });

    questions.push({ id: String(q.id), header, question, options: opts, multiSelect: q.multiSelect === true });
  });

  if (issues.size > 0 || !structurallyValid) return { ok: false, issues: issues.list() };

  const raw = input as { timeoutSeconds?: number };
  const floor = options.minTimeoutSeconds ?? LIMITS.minTimeoutSeconds;
  const timeoutSeconds = Math.min(LIMITS.maxTimeoutSeconds, Math.max(floor, raw.timeoutSeconds ?? LIMITS.defaultTimeoutSeconds));
  return { ok: true, value: { questions, timeoutSeconds } };
}
