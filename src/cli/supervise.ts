import { spawn, type ChildProcess } from "node:child_process";
import { backoffDelay } from "../kernel/backoff.ts";
import type { Logger } from "../runtime/log.ts";
import { EXIT_UNRECOVERABLE } from "./shutdown.ts";

/** A child that has not exited this long after SIGTERM is killed. Below `start`'s own stop grace (shutdown.ts). */
const KILL_AFTER_MS = 1_200;

/**
 * Runs a child process and restarts it with backoff whenever it exits, until stopped, logging why (its exit code or
 * signal) and when it restarts. A child that exits with EXIT_UNRECOVERABLE (a bot whose token was rejected) said why
 * itself and is not restarted: restarting cannot fix it.
 */
export function superviseChild(name: string, command: string, args: string[], logger: Pick<Logger, "info" | "warn" | "error">, env: NodeJS.ProcessEnv = process.env) {
  let child: ChildProcess | undefined;
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  function launch(): void {
    const startedAt = Date.now();
    child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"], env });
    child.on("error", (error) => logger.error({ err: error }, `${name} could not be started`));
    child.on("exit", (code, signal) => {
      child = undefined;
      if (stopped) return;
      const ranMs = Date.now() - startedAt;
      if (code === EXIT_UNRECOVERABLE) {
        logger.error({ code, ranMs }, `${name} stopped on an error a restart cannot fix (see its last line); not restarting it`);
        return;
      }
      failures = ranMs > 60_000 ? 0 : failures + 1;
      const delay = backoffDelay(failures, 1_000, 30_000);
      logger.warn({ code, signal, ranMs, restartInMs: Math.round(delay) }, `${name} exited (${signal ?? `code ${code}`}); restarting in ${Math.round(delay / 100) / 10} s`);
      timer = setTimeout(launch, delay);
    });
  }

  launch();
  return {
    stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        const kill = setTimeout(() => running.kill("SIGKILL"), KILL_AFTER_MS);
        running.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        running.kill("SIGTERM");
      });
    },
  };
}
