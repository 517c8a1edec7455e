/**
 * Child processes for the benchmarks: the real gateway (`node bin/ask-user-bridge.js gateway`, exactly what ops
 * run) and the floor server, each in its own process so that the load generator (this process) never shares a
 * core's event loop with the code it measures. Also reads a child's RSS and CPU time from /proc.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The compiled CLI, exactly what the package installs (npm run bench builds it first). */
export const BIN = join(ROOT, "dist", "bin", "ask-user-bridge.js");
export const BENCH_TOKEN = "b".repeat(32);

const tempDirs: string[] = [];
const children = new Set<ChildProcess>();

export function tempDir(prefix = "aub-bench-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Child {
  child: ChildProcess;
  pid: number;
  url: string;
  output(): string;
  /** SIGTERM (graceful, so a --cpu-prof profile is written) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Extra node flags for every gateway child, e.g. BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof". */
const extraNodeFlags = (): string[] => (process.env.BENCH_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);

/**
 * Starts a child whose stdout and stderr go to a file, not a pipe: the load generator (this process) is too busy to
 * drain a pipe promptly, and a gateway whose log pipe is full blocks (pino's synchronous writes sleep 100 ms on
 * EAGAIN), which measured the load generator, not the gateway. The file is read for `pattern` until it appears.
 */
function spawnAndWait(args: string[], env: Record<string, string>, pattern: RegExp, timeoutMs = 60_000): Promise<Child> {
  const logFile = join(tempDir("aub-bench-log-"), "output.log");
  const fd = openSync(logFile, "a");
  const child = spawn(process.execPath, [...extraNodeFlags(), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  children.add(child);
  const output = () => readFileSync(logFile, "utf8");
  const exited = new Promise<void>((resolve) => child.once("close", () => (children.delete(child), resolve())));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const match = pattern.exec(output());
      if (match) {
        cleanup();
        resolve({
          child,
          pid: child.pid!,
          url: match[1]!,
          output,
          async stop(signal = "SIGTERM") {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
      } else if (Date.now() - started > timeoutMs) {
        fail(new Error(`no ${pattern} within ${timeoutMs} ms: ${output()}`));
      }
    }, 2); // start-up is timed by benchmark 3: a coarse poll would add to it
    const onClose = () => fail(new Error(`exited before ${pattern}: ${output()}`));
    const fail = (error: Error) => {
      cleanup();
      child.kill("SIGKILL");
      reject(error);
    };
    const cleanup = () => {
      clearInterval(poll);
      child.off("close", onClose);
    };
    child.once("close", onClose);
  });
}

/**
 * Any child (e.g. `node dist/bin/ask-user-bridge.js bot telegram`) with its output in a file, once `pattern` shows in
 * that output; the child is killed by killChildren() like the gateways. `url` is the pattern's first group.
 */
export function spawnChild(args: string[], env: Record<string, string>, pattern: RegExp, timeoutMs = 60_000): Promise<Child> {
  return spawnAndWait(args, env, pattern, timeoutMs);
}

/** The real gateway CLI on an ephemeral port: SQLite or memory under `dataDir`, or PostgreSQL at `databaseUrl`. */
export function spawnGateway(opts: { dataDir: string; store: "sqlite" | "memory" | "postgres"; databaseUrl?: string; env?: Record<string, string> }): Promise<Child> {
  if (opts.store === "postgres" && !opts.databaseUrl) throw new Error("a postgres gateway needs databaseUrl");
  const store: Record<string, string> = opts.store === "postgres" ? { DATABASE_URL: opts.databaseUrl! } : { STORE: opts.store };
  return spawnAndWait(
    [BIN, "gateway"],
    { GATEWAY_PORT: "0", GATEWAY_TOKEN: BENCH_TOKEN, DATA_DIR: opts.dataDir, ...store, ...opts.env },
    /listening on (http:\/\/\S+)/,
  );
}

/**
 * The floor: a raw ws relay (optionally with the raw insert + compare-and-set), see floor-server.ts. On SQLite under
 * `dataDir`, or, with `databaseUrl`, on PostgreSQL through `pg` over one connection.
 */
export function spawnFloor(dataDir: string, databaseUrl?: string): Promise<Child> {
  return spawnAndWait(
    ["--import", "tsx", join(ROOT, "bench", "floor-server.ts")],
    { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    /floor listening on (http:\/\/\S+)/,
  );
}

/** Resident set size of a process in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/** User + system CPU time of a process, in microseconds (clock-tick resolution, usually 10 ms). */
export function cpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks / 100) * 1_000_000;
}

/**
 * A process's main thread (its event loop): how often it went to sleep and was woken (voluntary context switches:
 * each a wake-up the kernel and the loop pay for), and how often the kernel took the CPU from it while it had work
 * (involuntary: preempted by another process, after which it runs on caches the other one filled).
 */
export function contextSwitches(pid: number): { voluntary: number; involuntary: number } {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, "utf8");
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status);
    if (!match) throw new Error(`no ${name} for ${pid}`);
    return Number(match[1]);
  };
  return { voluntary: field("voluntary_ctxt_switches"), involuntary: field("nonvoluntary_ctxt_switches") };
}

/** Kills every child still running. */
export async function killChildren(): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once("close", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}
