import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 38 §4: a backend is its primitive (load a record with its version, store it if unchanged) and the queries
 * that must stay native; what is the same logic for every backend lives once in store/kit/ and src/record/. A
 * backend file that grows past this is growing a second copy of something.
 */
const MAX_LINES = 350;
const storeDir = join(import.meta.dirname, "..", "..", "..", "src", "gateway", "store");
const BACKENDS = ["memory", "sqlite", "postgres"] as const;

const backendFiles = BACKENDS.flatMap((backend) =>
  readdirSync(join(storeDir, backend), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name)),
);

describe(`store files: none under store/{${BACKENDS.join(",")}}/ is over ${MAX_LINES} lines`, () => {
  it("finds the backends' files", () => {
    for (const backend of BACKENDS) expect(backendFiles.some((file) => file.includes(join(storeDir, backend)))).toBe(true);
  });

  it.each(backendFiles.map((file) => [file.slice(storeDir.length + 1), file]))("%s", (_name, file) => {
    const lines = readFileSync(file, "utf8").split("\n").length - 1;
    expect(lines, `${file} has ${lines} lines`).toBeLessThanOrEqual(MAX_LINES);
  });
});
