import { createTwoFilesPatch } from "diff";

/**
 * A unified diff of one file (the `diff` package), without its `===` banner: what an approval shows of a change. A
 * new file (`added`) is diffed from /dev/null, so its whole content reads as added lines.
 */
export function unifiedDiff(path: string, before: string, after: string, added = false): string {
  const patch = createTwoFilesPatch(added ? "/dev/null" : path, path, before, after, "", "", { context: 3 });
  return patch.replace(/^=+\n/u, "");
}
