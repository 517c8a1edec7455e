/**
 * Vitest global setup. PostgreSQL: the store tests need a server. With TEST_DATABASE_URL (an admin URL: a role that
 * may CREATE DATABASE) they use that one; otherwise one throwaway embedded PostgreSQL starts here, in the background
 * so that runs which never touch it do not wait for it, and stops in the teardown. Test files read its URL with
 * `inject("postgresUrl")` (test/helpers/postgres.ts) and wait for it to accept connections.
 *
 * The build: the CLI tests run the compiled package (dist/), so rebuild it when any source is newer than
 * the build. `npm test` thus always tests what `npm pack` would ship, and so does a lone `npx vitest run FILE`.
 * The build also writes the Control UI's bundle (src/web/static/shared.js, git-ignored) before compiling, so the
 * bundle never looks newer than dist/; a missing bundle is rebuilt too.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startTestPostgres } from "./helpers/postgres.ts";
import { TEMP_PREFIX } from "./helpers/temp-dirs.ts";

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

/** The `aub-*` folders in the OS temp dir now. */
const tempFolders = (): Set<string> => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith(TEMP_PREFIX)));

/**
 * Warns about `aub-*` folders that appeared during the run and are still there: a test that made one without
 * test/helpers/temp-dirs.ts (another run on the same machine may have made some too, so only a warning).
 */
function warnAboutLeftTempFolders(before: Set<string>): void {
  const left = [...tempFolders()].filter((name) => !before.has(name));
  if (left.length > 0) console.warn(`[global-setup] ${left.length} ${TEMP_PREFIX}* folder(s) left in ${tmpdir()}: ${left.slice(0, 10).join(", ")}${left.length > 10 ? ", …" : ""}`);
}

/** What the run shares: set up by the first project's global setup, torn down after the last one's teardown. */
interface Shared {
  postgresUrl: Promise<string>;
  users: number;
  teardown: () => Promise<void>;
}
const SHARED = Symbol.for("ask-user-bridge.test.global-setup");
const registry = globalThis as { [SHARED]?: Shared };

/**
 * Each vitest project runs this global setup (they all run in the main process, one after another), so the work is
 * done once, by the first, and shared: one PostgreSQL, one build, one $XDG_CONFIG_HOME for the whole run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (registry[SHARED] ??= setUpOnce());
  shared.users += 1;
  project.provide("postgresUrl", await shared.postgresUrl);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry[SHARED];
    await shared.teardown();
  };
}

function setUpOnce(): Shared {
  const foldersBefore = tempFolders();
  // Every `start` and `gateway` the tests run records itself for clients in $XDG_CONFIG_HOME (gateway-registry.ts):
  // a folder of this run's own, never the user's ~/.config, and inherited by the test processes and their children.
  const configHome = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}xdg-`));
  process.env.XDG_CONFIG_HOME = configHome;
  let stopPostgres = async (): Promise<void> => undefined;
  const start = async (): Promise<string> => {
    let postgresUrl = process.env.TEST_DATABASE_URL;
    if (!postgresUrl) {
      const server = await startTestPostgres();
      server.ready.catch((error: unknown) => console.error("[global-setup]", error));
      postgresUrl = server.url;
      stopPostgres = server.stop;
    }
    try {
      rebuildWhenStale();
    } catch (error) {
      await stopPostgres();
      throw error;
    }
    return postgresUrl;
  };
  return {
    postgresUrl: start(),
    users: 0,
    teardown: async () => {
      await stopPostgres();
      rmSync(configHome, { recursive: true, force: true });
      warnAboutLeftTempFolders(foldersBefore);
    },
  };
}

function rebuildWhenStale(): void {
  let builtAt = 0;
  try {
    builtAt = statSync(BUILT).mtimeMs;
  } catch {
    // never built
  }
  const sourcesAt = Math.max(...SOURCES.map((s) => newestMtime(join(ROOT, s))));
  if (sourcesAt <= builtAt && existsSync(BUNDLE)) return;
  try {
    // Type errors do not stop it (`npm test` type-checks first); a run of some test files mid-edit still gets a dist/.
    execFileSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, BUILD_ALLOW_TYPE_ERRORS: "1" } });
  } catch (error) {
    // A type error fails the build; `npm test` type-checks first, so that gate is kept. Here an older dist/ still
    // serves the tests that spawn the CLI, so a run of some test files during an edit is not blocked by another file.
    if (!existsSync(BUILT) || !existsSync(BUNDLE)) throw error;
    console.warn("[global-setup] the build failed (see above); tests that spawn the CLI use the previous dist/");
  }
}
