/**
 * Vitest global setup: the CLI tests run the compiled package (dist/), so rebuild it when any source is newer than
 * the build. `npm test` thus always tests what `npm pack` would ship, and so does a lone `npx vitest run FILE`.
 * The build also writes the Control UI's bundle (src/web/static/shared.js, git-ignored) before compiling, so the
 * bundle never looks newer than dist/; a missing bundle is rebuilt too.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const BUILT = join(ROOT, "dist", "bin", "ask-user-bridge.js");
const BUNDLE = join(ROOT, "src", "web", "static", "shared.js");
const SOURCES = ["src", "bots", "bin", "scripts", "tsconfig.json", "tsconfig.build.json", "package.json"];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export default function setup(): void {
  let builtAt = 0;
  try {
    builtAt = statSync(BUILT).mtimeMs;
  } catch {
    // never built
  }
  const sourcesAt = Math.max(...SOURCES.map((s) => newestMtime(join(ROOT, s))));
  if (sourcesAt > builtAt || !existsSync(BUNDLE)) execFileSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit" });
}
