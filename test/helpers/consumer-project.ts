/**
 * A fresh npm project outside the repo that installs our packed tarball the way a user would, but offline: its
 * lockfile is derived from the repo's own (the same versions and integrity hashes), so `npm` fetches nothing that
 * `npm ci` did not already put in the cache. Node resolution over lockfile paths picks each dependency's closure, so
 * the project holds exactly the package's runtime dependencies plus the frameworks it asks for: no TypeScript, no tsx.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./cli.ts";

const run = promisify(execFile);

type LockEntry = {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
};
type Lockfile = { name: string; lockfileVersion: number; requires?: boolean; packages: Record<string, LockEntry> };

const repoLock = (): Lockfile => JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
const repoManifest = () => JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** The environment for child npm/node processes: ours minus the `npm_*` variables `npm test` sets, which would point npm at the repo. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const keep = /^npm_config_(cache|userconfig|registry)$/i;
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) || keep.test(key)) env[key] = value;
  return { ...env, ...extra };
}

/** Where Node would find `name` when required from the lockfile path `from` (`""` is the project root). */
function resolveLockPath(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
  }
}

/** Every lockfile entry reachable from the given top-level package names (dependencies, optional and required peers). */
function closure(packages: Record<string, LockEntry>, names: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = names.map((name) => ({ from: "", name }));
  while (queue.length > 0) {
    const { from, name } = queue.pop()!;
    const path = resolveLockPath(packages, from, name);
    if (!path || seen.has(path)) continue;
    seen.add(path);
    const entry = packages[path]!;
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    const requiredPeers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => !optionalPeers[peer]?.optional);
    for (const dep of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...requiredPeers]) {
      queue.push({ from: path, name: dep });
    }
  }
  return seen;
}

/** The registry address of the tarball for the package at lockfile path `path`, the one `npm ci` cached. */
function registryTarball(path: string, version: string): string {
  const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
  return `https://registry.npmjs.org/${name}/-/${name.split("/").pop()}-${version}.tgz`;
}

export interface ConsumerProject {
  dir: string;
  /** Installs the tarball plus `frameworks` (package names, at the repo's versions) with `npm install --offline`. */
  install(frameworks?: string[]): Promise<void>;
}

/** A consumer project in `dir` for the tarball at `tarball` (made by `npm pack`). */
export function consumerProject(dir: string, tarball: string): ConsumerProject {
  const lock = repoLock();
  const manifest = repoManifest();
  const tarballSpec = `file:${basename(tarball)}`;
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  return {
    dir,
    async install(frameworks = []) {
      const dependencies: Record<string, string> = { "ask-user-bridge": tarballSpec };
      for (const name of frameworks) dependencies[name] = lock.packages[`node_modules/${name}`]!.version!;
      const packages: Record<string, LockEntry> = {
        "": { name: "consumer", version: "1.0.0", dependencies },
        "node_modules/ask-user-bridge": {
          version: manifest.version,
          resolved: tarballSpec,
          integrity,
          license: manifest.license,
          dependencies: manifest.dependencies,
          bin: manifest.bin,
          engines: manifest.engines,
          peerDependencies: manifest.peerDependencies,
          peerDependenciesMeta: manifest.peerDependenciesMeta,
        },
      };
      for (const path of closure(lock.packages, [...Object.keys(manifest.dependencies), ...frameworks])) {
        const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock.packages[path]!;
        // With the tarball's address and integrity npm reads it from the cache by digest, with no metadata request.
        packages[path] = { resolved: registryTarball(path, entry.version!), ...entry };
      }
      // The repo's plain version overrides of packages in this tree (openai: 6.49.0, for Node 20), so the tree matches
      // the lock entries copied above: without them npm finds an entry off its range and asks the registry (offline:
      // ENOTCACHED, unless an earlier `npm install` happened to cache that package's metadata).
      const overrides = Object.fromEntries(
        Object.entries((manifest.overrides ?? {}) as Record<string, unknown>).filter(([name, spec]) => typeof spec === "string" && packages[`node_modules/${name}`] !== undefined),
      );
      const consumerManifest = {
        name: "consumer",
        version: "1.0.0",
        private: true,
        type: "module",
        dependencies,
        ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
        allowScripts: { "better-sqlite3": true },
      };
      writeFileSync(join(dir, "package.json"), `${JSON.stringify(consumerManifest, null, 2)}\n`);
      writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify({ name: "consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
      await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, env: cleanEnv(), timeout: 600_000 });
    },
  };
}
