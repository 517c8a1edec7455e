/**
 * Issue 30 §3: `start`'s banner. Off a terminal every line it writes is a JSON log line (the generated token never in
 * one); its first-question hint names what a client needs to reach this gateway (a port and a DATA_DIR that are not
 * the defaults), runs this same CLI by its absolute path (no `npx`), and works when pasted into a shell elsewhere.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { banner, clientEnvFor, firstQuestionCommand } from "../../src/cli/serve.ts";
import { loadConfig } from "../../src/runtime/config.ts";
import { BIN, cleanup, freePort, rpc, spawnCli, tempDir } from "../helpers/gateway.ts";
import { waitUntil } from "../scenarios/tools.ts";

afterAll(() => cleanup());

describe("the first-question hint", () => {
  it("names the variables a client needs only when they are not the defaults, and never a token", () => {
    expect(clientEnvFor(loadConfig({}), { port: 8787 })).toEqual([]);
    expect(clientEnvFor(loadConfig({ GATEWAY_PORT: "9911", DATA_DIR: "/srv/aub data" }), { port: 9911 })).toEqual(["GATEWAY_PORT=9911", "DATA_DIR='/srv/aub data'"]);
    // GATEWAY_PORT=0: the port it got. A given GATEWAY_TOKEN: the client needs it, not the token file.
    expect(clientEnvFor(loadConfig({ GATEWAY_PORT: "0", DATA_DIR: "/srv/aub", GATEWAY_TOKEN: "s".repeat(40) }), { port: 40123 })).toEqual(["GATEWAY_PORT=40123"]);
    expect(clientEnvFor(loadConfig({ GATEWAY_HOST: "10.0.0.5" }), { port: 8787 })).toEqual(["GATEWAY_HOST=10.0.0.5"]);
    const command = firstQuestionCommand(loadConfig({ GATEWAY_PORT: "9911" }), { port: 9911 });
    expect(command.startsWith(`GATEWAY_PORT=9911 ${process.execPath} `)).toBe(true);
    expect(command).not.toContain("npx");
    expect(command).toContain(` ask --question 'Where should I deploy?' --option 'Staging (Recommended)' --option Production`);
  });

  it("at a terminal the banner is plain lines; off one, with a logger, each line is a log line and the generated token is in none", () => {
    const gateway = { url: "http://127.0.0.1:8787", token: "g".repeat(43), tokenGenerated: true };
    const out: string[] = [];
    const logged: unknown[][] = [];
    const logger = { info: (...args: unknown[]) => void logged.push(args) };
    banner(gateway, loadConfig({ DATA_DIR: "/srv/aub" }), { out: (s) => out.push(s), err: () => {}, tty: { out: true, err: true } }, logger as never);
    expect(logged).toEqual([]);
    expect(out[0]).toBe("ask-user-bridge gateway listening on http://127.0.0.1:8787 (SQLite store under /srv/aub)");
    expect(out.join("\n")).toContain(`#token=${gateway.token}`);
    out.length = 0;
    banner(gateway, loadConfig({ DATA_DIR: "/srv/aub" }), { out: (s) => out.push(s), err: () => {}, tty: { out: false, err: false } }, logger as never);
    expect(out).toEqual([]);
    expect(logged.map((args) => args.at(-1))).toEqual([
      "ask-user-bridge gateway listening on http://127.0.0.1:8787 (SQLite store under /srv/aub)",
      "Control UI: http://127.0.0.1:8787/#token=<GATEWAY_TOKEN> (or paste the token into the page; a session cookie keeps you signed in)",
      "GATEWAY_TOKEN was not set: generated one and saved it to /srv/aub/gateway-token (clients on this machine find it there).",
    ]);
    expect(JSON.stringify(logged)).not.toContain(gateway.token);
  });
});

describe("start off a terminal, on a port and a DATA_DIR of its own", () => {
  it("writes only JSON log lines, and its hint, pasted into a shell in another folder, asks this gateway", async () => {
    const port = await freePort();
    const dataDir = tempDir("aub-banner-data-");
    const start = spawnCli(["start"], { GATEWAY_PORT: String(port), DATA_DIR: dataDir }, { timeoutMs: 90_000 });
    const lines = () => start.stdout().split("\n").filter((line) => line !== "");
    const hint = await waitUntil(() => lines().map((line) => JSON.parse(line) as Record<string, unknown>).find((l) => typeof l.command === "string"), "the first-question hint", 60_000);
    for (const line of lines()) expect(() => JSON.parse(line), line).not.toThrow();
    const token = readFileSync(`${dataDir}/gateway-token`, "utf8").trim();
    expect(start.stdout()).not.toContain(token);
    expect(hint).toMatchObject({ name: "gateway", level: "info", msg: "Ask a first question from another terminal" });
    const command = String(hint.command);
    expect(command).toBe(`GATEWAY_PORT=${port} DATA_DIR=${dataDir} ${process.execPath} ${BIN} ask --question 'Where should I deploy?' --option 'Staging (Recommended)' --option Production`);

    // Pasted into a shell in another folder, with nothing else set: it reaches this gateway and gets the answer.
    const elsewhere = tempDir("aub-banner-cwd-");
    const asked = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile("/bin/sh", ["-c", `${command} --to web --timeout 120`], { cwd: elsewhere, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    const base = `http://127.0.0.1:${port}`;
    const pending = await waitUntil(async () => {
      const listed = await rpc(base, "question.list", { status: "pending" }, { token });
      return (listed.body as { payload?: { questions?: Array<{ id: string }> } }).payload?.questions?.[0];
    }, "the pasted command's question", 60_000);
    await rpc(base, "question.resolve", { id: pending.id, answers: { answer: ["Production"] } }, { token });
    const result = await asked;
    expect(result.stderr).not.toMatch(/error/iu);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain("Production");
    start.child.kill("SIGTERM");
    await start.exited;
  }, 120_000);
});
