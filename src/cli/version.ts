import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The package's version, read from its package.json (found upward from this module, in src/ or in dist/). */
export function packageVersion(): string {
  for (let dir = import.meta.dirname, depth = 0; depth < 4; dir = dirname(dir), depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (manifest.name === "ask-user-bridge" && manifest.version) return manifest.version;
    } catch {
      // not here: look one folder up
    }
  }
  return "unknown";
}
