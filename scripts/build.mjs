#!/usr/bin/env node
// `npm run build`: bundles what the Control UI shares with the server (src/web/browser-shared.ts) into one browser
// module, src/web/static/shared.js (git-ignored), then compiles src/, bots/ and bin/ to dist/ with the TypeScript
// compiler (JavaScript, .d.ts and source maps; relative `.ts` imports rewritten to `.js`), and copies the Control
// UI's static files beside the compiled web module. The bundle is written first, so dist/ is newer than every source
// and test/global-setup.ts does not rebuild for it. dist/ is rebuilt from scratch so a renamed source never leaves a
// stale module to be packed: the compiler writes a fresh folder beside it, which then replaces dist/ in two renames,
// so a process started meanwhile (a test spawning the CLI) never finds dist/ half-written or gone for long.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const fresh = join(root, `.dist-${process.pid}`);
const staticDir = join(root, "src", "web", "static");
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");

rmSync(fresh, { recursive: true, force: true });
try {
  // A plain same-origin ES module: the page's policy is script-src 'self' with Trusted Types, so no eval, nothing inline.
  await build({
    entryPoints: [join(root, "src", "web", "browser-shared.ts")],
    outfile: join(staticDir, "shared.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    logLevel: "warning",
    banner: { js: "// Generated from src/web/browser-shared.ts (src/render/summary.ts and friends) by scripts/build.mjs: do not edit." },
  });
  try {
    execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", fresh], { cwd: root, stdio: "inherit" });
  } catch (error) {
    // Status 2: type errors, but every file was emitted. The test run's rebuild (test/global-setup.ts) may use that
    // output, since `npm test` type-checks on its own first; `npm run build` and `npm pack` never do.
    if (!(error?.status === 2 && process.env.BUILD_ALLOW_TYPE_ERRORS === "1")) throw error;
    console.warn("build: type errors (above); dist/ is built from what compiled (BUILD_ALLOW_TYPE_ERRORS=1)");
  }
} catch (error) {
  if (error?.errors === undefined && error?.status === undefined) console.error(error);
  rmSync(fresh, { recursive: true, force: true });
  process.exit(1);
}
// The page's files only: its type-checking config and the bundle's types stay behind.
cpSync(staticDir, join(fresh, "src", "web", "static"), {
  recursive: true,
  filter: (path) => !path.endsWith(".d.ts") && basename(path) !== "tsconfig.json",
});
chmodSync(join(fresh, "bin", "ask-user-bridge.js"), 0o755);
const old = `${fresh}-old`;
try {
  renameSync(dist, old);
} catch (error) {
  if (error?.code !== "ENOENT") throw error;
}
renameSync(fresh, dist);
rmSync(old, { recursive: true, force: true });
