/**
 * Child processes of the real CLI: `node dist/bin/ask-user-bridge.js …` via process.execPath, each with only the env it is
 * given (plus PATH/HOME) and a temp cwd, so that no developer .env or shell variable leaks in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./temp-dirs.ts";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The compiled CLI, exactly what the package installs (built by npm run build; test/global-setup.ts keeps it fresh). */
export const BIN = join(ROOT, "dist", "bin", "ask-user-bridge.js");

const cwdDirs: string[] = [];
const children = new Set<ChildProcess>();

export interface CliRun {
  child: ChildProcess;
  /** Everything written so far. */
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** The JSON log lines a run has written to stdout so far (a process without a terminal logs JSON), parsed. */
export function logLines(run: Pick<CliRun, "stdout">): Array<Record<string, unknown>> {
  return run
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Runs `node dist/bin/ask-user-bridge.js ...args` with only the given env (plus PATH/HOME), in a temp cwd (no stray .env). */
export function spawnCli(args: string[], env: Record<string, string> = {}, { input, timeoutMs = 120_000 }: { input?: string; timeoutMs?: number } = {}): CliRun {
  const cwd = tempDir("aub-cwd-");
  cwdDirs.push(cwd);
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    // XDG_CONFIG_HOME: this run's own (test/global-setup.ts), where a `start` records itself for clients.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...(process.env.XDG_CONFIG_HOME ? { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME } : {}), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  if (input !== undefined) child.stdin!.end(input);
  else child.stdin!.end();
  const killer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(killer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Resolves once `text()` matches, or rejects when the child exits first or time runs out. */
export function waitForOutput(run: CliRun, pattern: RegExp, timeoutMs = 40_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const match = (run.stdout() + run.stderr()).match(pattern);
      if (match) return done(() => resolve(match));
      if (run.child.exitCode !== null || run.child.signalCode !== null) done(() => reject(new Error(`exited before ${pattern}: ${run.stdout()}${run.stderr()}`)));
    }, 25);
    const deadline = setTimeout(() => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms: ${run.stdout()}${run.stderr()}`))), timeoutMs);
    const done = (fn: () => void) => {
      clearInterval(timer);
      clearTimeout(deadline);
      fn();
    };
  });
}

export interface ChildGateway {
  run: CliRun;
  url: string;
  wsUrl: string;
  /** Sends the signal and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `ask-user-bridge gateway` as a child and waits for its "listening on" line. */
export async function spawnGatewayProcess(env: Record<string, string>): Promise<ChildGateway> {
  const run = spawnCli(["gateway"], env, { timeoutMs: 120_000 });
  const [, url] = await waitForOutput(run, /listening on (http:\/\/\S+)/);
  return {
    run,
    url: url!,
    wsUrl: `${url!.replace(/^http/, "ws")}/ws`,
    async kill(signal = "SIGKILL") {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill(signal);
      await run.exited;
    },
  };
}

/** Kills every child still running (SIGKILL) and waits for them; removes their temp cwds. */
export async function killChildren(): Promise<void> {
  await Promise.all(
    [...children].map((child) => new Promise<void>((resolve) => {
      child.once("close", () => resolve());
      child.kill("SIGKILL");
    })),
  );
  for (const dir of cwdDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
