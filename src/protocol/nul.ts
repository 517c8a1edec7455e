import { createIssueList, type IssueList } from "../kernel/issues.ts";
import { formatPath } from "../contract/normalize.ts";

/** A place in the params: its key and the place it is in, so a path is built only for a problem. */
interface Place {
  key: PropertyKey;
  parent: Place | undefined;
}

function pathOf(place: Place | undefined): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at = place; at; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Whether any text or field name in `params` holds a NUL: the same walk as nulIssues with only the values on its
 * stack, so that the params of nearly every call (which hold none) cost no place records (3.5 KB per
 * `question.request`, measured, before this check).
 */
function containsNul(params: unknown): boolean {
  const stack: unknown[] = [params];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (value.includes("\u0000")) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (typeof value === "object" && value !== null) {
      for (const key of Object.keys(value)) {
        if (key.includes("\u0000")) return true;
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/**
 * Every U+0000 (NUL) in a call's params, in any text and any field name (answers are keyed by question id), each at
 * its path. PostgreSQL cannot store a NUL in text or jsonb, so a NUL in a runId, a chat or a typed reply once gave
 * INTERNAL there while SQLite took it; refusing it here, for every method and every string, makes every store alike.
 * One walk over the params, which are JSON (a tree), without recursion: the questions are read as they came, however deep.
 */
export function nulIssues(params: unknown): IssueList {
  const issues = createIssueList();
  if (!containsNul(params)) return issues;
  const stack: Array<{ value: unknown; place: Place | undefined }> = [{ value: params, place: undefined }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, place } = next;
    if (typeof value === "string") {
      if (value.includes("\u0000")) issues.add({ path: formatPath(pathOf(place)), message: "must not contain U+0000 (NUL)" });
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    // Pushed last to first, so that problems are listed in the order they appear.
    const keys = Array.isArray(value) ? null : Object.keys(value);
    const count = keys ? keys.length : (value as unknown[]).length;
    for (let i = count - 1; i >= 0; i--) {
      const key = keys ? keys[i]! : i;
      stack.push({ value: (value as Record<PropertyKey, unknown>)[key], place: { key, parent: place } });
    }
    if (keys?.some((key) => key.includes("\u0000"))) issues.add({ path: formatPath(pathOf(place)), message: "a field name must not contain U+0000 (NUL)" });
  }
  return issues;
}
