import { spawn, type ChildProcess } from "node:child_process";
import { backoffDelay } from "../client/backoff.ts";

/** Runs a child process and restarts it with backoff whenever it exits, until stopped. */
export function superviseChild(name: string, command: string, args: string[], log: (s: string) => void, env: NodeJS.ProcessEnv = process.env) {
  let child: ChildProcess | undefined;
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  function launch(): void {
    const startedAt = Date.now();
    child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"], env });
    child.on("exit", (code, signal) => {
      child = undefined;
      if (stopped) return;
      failures = Date.now() - startedAt > 60_000 ? 0 : failures + 1;
      const delay = backoffDelay(failures, 1_000, 30_000);
      log(`${name} exited (${signal ?? `code ${code}`}); restarting in ${Math.round(delay / 100) / 10} s`);
      timer = setTimeout(launch, delay);
    });
  }

  launch();
  return {
    stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      const running = child;
      if (!running) return Promise.resolve();
      return new Promise((resolve) => {
        const kill = setTimeout(() => running.kill("SIGKILL"), 5_000);
        running.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        running.kill("SIGTERM");
      });
    },
  };
}
