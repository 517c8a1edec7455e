/**
 * Temp folders for tests: `tempDir("aub-…")` makes one under the OS temp dir and remembers it; every test file
 * removes its own when it ends (test/helpers/remove-temp-dirs.ts, a vitest setup file, after the file's own
 * afterAll hooks, so a gateway still using one is closed first). test/global-setup.ts warns about `aub-*` folders a
 * run left behind.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The prefix every test temp folder has. */
export const TEMP_PREFIX = "aub-";

const made: string[] = [];

/** A new folder `<os temp>/<prefix>XXXXXX` (the prefix starts with `aub-`), removed when the test file ends. */
export function tempDir(prefix = "aub-tmp-"): string {
  if (!prefix.startsWith(TEMP_PREFIX)) throw new Error(`tempDir: the prefix "${prefix}" must start with "${TEMP_PREFIX}"`);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made so far in this test file. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
