/**
 * `init`'s last step: the whole path tried once. The gateway with the new bots runs as a child (`start`, this same
 * CLI entry, with the new .env's values in its environment); once its /readyz shows every new bot connected, a test
 * question goes to the person through the client, as `ask` sends one, and their answer is printed. The child is
 * stopped afterwards.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { askUser } from "../client/sdk.ts";
import { connectFromConfig } from "../client/from-config.ts";
import type { Target } from "../record/record.ts";
import { formatTarget } from "../record/targets.ts";
import { loadConfig } from "../runtime/config.ts";
import { localGatewayUrl } from "../runtime/local-url.ts";
import type { CliIO } from "./io.ts";
import { selfCommand } from "./self-command.ts";

const READY_WITHIN_MS = 60_000;

/** Whether something answers /healthz there (a gateway already running on the port). */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_500) });
    return true;
  } catch {
    return false;
  }
}

/** Polls /readyz until every surface has a connected bot; false when the child exits first or time runs out. */
async function untilBotsConnected(url: string, surfaces: readonly string[], child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      const ready = (await (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })).json()) as { bots?: Array<{ surface?: string }> };
      const connected = new Set((ready.bots ?? []).map((bot) => bot.surface));
      if (surfaces.every((surface) => connected.has(surface))) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** A log line of the child, for a person: its `msg` (and `err`) when it is a JSON log line. */
function readable(line: string): string {
  try {
    const parsed = JSON.parse(line) as { msg?: string; err?: unknown; child?: string };
    return [parsed.child, parsed.msg, parsed.err ? JSON.stringify(parsed.err) : undefined].filter(Boolean).join(": ");
  } catch {
    return line;
  }
}

/**
 * Runs the test. Returns the exit code: 0 answered (or a gateway already running, explained), 1 otherwise. `env` is
 * the environment with the new .env's values; `titles` name each surface's platform for the person.
 */
export async function askTestQuestion(options: { env: Record<string, string | undefined>; targets: readonly Target[]; titles: ReadonlyMap<string, string>; timeoutSeconds: number; io: CliIO }): Promise<number> {
  const { env, targets, titles, io } = options;
  const config = loadConfig(env);
  const url = localGatewayUrl(config.GATEWAY_HOST, config.GATEWAY_PORT);
  const where = targets.map((t) => formatTarget(t)).join(" ");
  const askCommand = selfCommand(["ask", ...targets.flatMap((t) => ["--to", formatTarget(t)]), "--question", "Does this reach you?", "--option", "Yes", "--option", "No"]);
  if (await answers(url)) {
    io.out(`A gateway already runs at ${url}, so init does not start one for the test question. Restart it (Ctrl-C, then \`ask-user-bridge start\`) so it reads the new settings, then ask yourself a test question:\n  ${askCommand}`);
    return 0;
  }
  const surfaces = [...new Set(targets.map((t) => t.surface))];
  io.out(`Testing: starting the gateway with the ${surfaces.map((s) => titles.get(s) ?? s).join(" and ")} bot…`);
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, "start"], { env, stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString("utf8").split("\n").filter((line) => line.trim() !== ""));
    log.splice(0, Math.max(0, log.length - 20));
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  try {
    if (!(await untilBotsConnected(url, surfaces, child))) {
      io.out(`✗ The gateway ${child.exitCode !== null ? `stopped (exit ${child.exitCode})` : `did not show the bot connected within ${READY_WITHIN_MS / 1000} s`}. Its last lines:\n${log.map((line) => `  ${readable(line)}`).join("\n")}`);
      return 1;
    }
    const client = await connectFromConfig({ ...config, GATEWAY_URL: url });
    try {
      const result = await askUser(
        client,
        {
          questions: [{ id: "works", header: "Set-up", question: "ask-user-bridge is set up. Did this question reach you?", options: [{ label: "Yes, it works" }, { label: "No" }] }],
          timeoutSeconds: options.timeoutSeconds,
        },
        {
          targets: [...targets],
          signal: controller.signal,
          onRequested: () => io.out(`Sent to ${where}. Answer it on ${surfaces.map((s) => titles.get(s) ?? s).join(" or ")} (waiting up to ${Math.round(options.timeoutSeconds / 60)} min; Ctrl-C stops waiting)…`),
        },
      );
      if (result.status === "answered") {
        const answer = Object.values(result.answers.answers).flat().join(", ");
        io.out(`✓ Answered${result.answeredBy?.user ? ` by user ${result.answeredBy.user}` : ""}: ${answer}`);
        return 0;
      }
      io.out(result.status === "no_answer" ? `✗ No answer (${result.reason}).` : `✗ The question could not be delivered: ${result.reason}`);
      return 1;
    } finally {
      client.close();
    }
  } finally {
    process.off("SIGINT", onSignal);
    await stopChild(child);
  }
}
