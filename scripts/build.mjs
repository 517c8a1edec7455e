#!/usr/bin/env node
// `npm run build`: compiles src/, bots/ and bin/ to dist/ with the TypeScript compiler (JavaScript, .d.ts and
// source maps; relative `.ts` imports rewritten to `.js`), then copies the Control UI's static files beside the
// compiled web module. dist/ is rebuilt from scratch so a renamed source never leaves a stale module to be packed.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");

rmSync(dist, { recursive: true, force: true });
try {
  execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { cwd: root, stdio: "inherit" });
} catch {
  process.exit(1);
}
cpSync(join(root, "src", "web", "static"), join(dist, "src", "web", "static"), { recursive: true });
chmodSync(join(dist, "bin", "ask-user-bridge.js"), 0o755);
