/**
 * Problems with an input, each at its path (PRODUCT.md §1), and the one rule that bounds how many one answer lists:
 * the first MAX_ISSUES, then one last entry that counts the rest, `{ path: "", message: "and N more" }`. A list of
 * 80,000 unknown fields is 20 lines and a count, not 5 MB.
 */

export interface ContractIssue {
  /** Where the problem is, e.g. `questions[1].options[0].label`; "" for the input as a whole. */
  path: string;
  message: string;
}

/** The most problems one answer lists before it only counts them. */
export const MAX_ISSUES = 20;

const MORE = /^and ([0-9]+) more$/;

/** The last entry of a cut list: how many problems were found but not listed. */
export function moreIssues(count: number): ContractIssue {
  return { path: "", message: `and ${count} more` };
}

/** How many problems an entry stands for: N for an "and N more" entry, else 1. */
function weight(issue: ContractIssue): number {
  const more = issue.path === "" ? MORE.exec(issue.message) : null;
  return more ? Number(more[1]) : 1;
}

/** `issues` cut to MAX_ISSUES and the rest counted ("and N more"). A list already cut comes back as it was. */
export function capIssues(issues: readonly ContractIssue[]): ContractIssue[] {
  const last = issues[issues.length - 1];
  const counted = last !== undefined && weight(last) !== 1 ? issues.length - 1 : issues.length;
  if (counted <= MAX_ISSUES) return issues.slice();
  let more = 0;
  for (let i = MAX_ISSUES; i < issues.length; i++) more += weight(issues[i]!);
  return [...issues.slice(0, MAX_ISSUES), moreIssues(more)];
}

/**
 * A list that builds at most MAX_ISSUES problems and only counts the rest, so that input with a great many problems
 * (80,000 unknown fields) costs a count, not 80,000 messages. `list()` gives the cut list.
 */
export function createIssueList() {
  const issues: ContractIssue[] = [];
  let more = 0;
  return {
    add(issue: ContractIssue): void {
      const count = weight(issue);
      if (count === 1 && issues.length < MAX_ISSUES) issues.push(issue);
      else more += count;
    },
    /** `count` problems, each built by `build(i)` only while there is room for it. */
    addEach(count: number, build: (index: number) => ContractIssue): void {
      const room = Math.min(count, MAX_ISSUES - issues.length);
      for (let i = 0; i < room; i++) issues.push(build(i));
      more += count - room;
    },
    get size(): number {
      return issues.length + more;
    },
    list(): ContractIssue[] {
      return more > 0 ? [...issues, moreIssues(more)] : issues.slice();
    },
  };
}

export type IssueList = ReturnType<typeof createIssueList>;

/** The unknown fields of an object that has far too many: the first MAX_ISSUES of them, and how many there are. */
export interface TooManyFields {
  first: string[];
  count: number;
}

/**
 * An object with more than MAX_ISSUES fields beyond the `known` ones, found with one look at its keys, so that its
 * unknown fields are listed without the schema reading it key by key (80,000 fields took zod 50 ms). Undefined for
 * any other value, which the schema then checks as usual. The other problems of such an object are not looked for:
 * the list is full of its unknown fields already.
 */
export function tooManyFields(value: unknown, known: ReadonlySet<string>): TooManyFields | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length <= known.size + MAX_ISSUES) return undefined;
  const first: string[] = [];
  let count = 0;
  for (const key of keys) {
    if (known.has(key)) continue;
    if (count++ < MAX_ISSUES) first.push(key);
  }
  return { first, count };
}

/**
 * One line per issue, `path: message`. An issue without a path is about the input as a whole: it is named `root` when
 * that is given ("params: must be an object"), else it is the bare message; "and N more" is always bare.
 */
export function formatIssues(issues: readonly ContractIssue[], separator = "\n", root?: string): string {
  return issues
    .map((i) => {
      const path = i.path || (root !== undefined && weight(i) === 1 ? root : "");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join(separator);
}
