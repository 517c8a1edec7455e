/**
 * Issue 36 §1 as a newcomer meets it: `ask-user-bridge start` in one folder; in another (a project), the hook
 * installed with `hook claude-code --install`; the real `claude` CLI run there with an empty environment (a fresh
 * HOME, the fake model, nothing of ask-user-bridge's). Its permission prompt reaches the gateway it never named, is
 * answered on the web, and the command runs. With the gateway stopped, the hook says so in a systemMessage and leaves
 * the decision to Claude Code. `--install` keeps what the settings had and changes nothing the second time;
 * `--test` asks the whole path without a model.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installClaudeSettings } from "../../src/cli/hook.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fakes/anthropic-api.ts";
import { cleanup, freePort, ROOT, spawnCli, tempDir, waitForOutput, type CliRun } from "../helpers/gateway.ts";
import { waitUntil } from "../scenarios/tools.ts";

afterAll(cleanup);

const CLAUDE_BIN = join(ROOT, "node_modules", "@anthropic-ai", `claude-agent-sdk-${process.platform}-${process.arch}`, "claude");

/** The newcomer's machine: one HOME, whose ~/.config holds the gateway's record. */
function machine() {
  const home = tempDir("aub-newcomer-home-");
  return { home, xdg: join(home, ".config") };
}

type Started = { run: CliRun; url: string; token: () => string };

/** A protocol call to a started gateway, with its own (generated) token. */
async function call(gateway: Started, method: string, params: unknown): Promise<any> {
  const res = await fetch(`${gateway.url}/rpc/${method}`, { method: "POST", headers: { authorization: `Bearer ${gateway.token()}`, "content-type": "application/json" }, body: JSON.stringify(params) });
  const body = (await res.json()) as { ok: boolean; payload?: unknown; error?: { message: string } };
  if (!body.ok) throw new Error(`${method}: ${body.error?.message}`);
  return body.payload;
}

async function startIn(xdg: string): Promise<Started> {
  const port = await freePort();
  const run = spawnCli(["start"], { XDG_CONFIG_HOME: xdg, GATEWAY_PORT: String(port) });
  await waitForOutput(run, /Ask a first question/u);
  const record = () => JSON.parse(readFileSync(join(xdg, "ask-user-bridge", "gateway.json"), "utf8")).gateways.default;
  return { run, url: `http://127.0.0.1:${port}`, token: () => readFileSync(record().tokenFile, "utf8").trim() };
}

/** The real `claude -p` in `cwd` with nothing but a HOME and the fake model: no GATEWAY_*, no DATA_DIR. */
function claude(model: FakeAnthropic, cwd: string, home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "sk-ant-fake",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
  };
  const child = spawn(CLAUDE_BIN, ["-p", "Do the task.", "--max-turns", "4", "--output-format", "stream-json", "--verbose", "--include-hook-events"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("Claude Code → the phone, as a newcomer sets it up", { timeout: 180_000 }, () => {
  it("a hook installed in a project finds the gateway started elsewhere; the prompt is answered on the web", async () => {
    const { home, xdg } = machine();
    const gateway = await startIn(xdg);
    const project = tempDir("aub-newcomer-project-");
    try {
      const installed = await spawnCli(["hook", "claude-code", "--install", "--project", project, "--to", "web", "--timeout", "120"], { XDG_CONFIG_HOME: xdg }).exited;
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toContain(join(project, ".claude", "settings.json"));
      const target = join(project, "made-from-the-phone.txt");
      const model = await startFakeAnthropic([{ tool: "Bash", input: { command: `touch ${target}`, description: "Make a file" } }]);
      const run = claude(model, project, home);
      const asked = await waitUntil(async () => (await call(gateway, "question.list", { status: "pending" })).questions[0], "the permission prompt at the gateway", 90_000);
      expect(asked.approval).toMatchObject({ agent: "Claude Code", tool: "Bash", input: { command: `touch ${target}` } });
      await call(gateway, "question.resolve", { id: asked.id, answers: { approval: ["Allow"] }, by: { surface: "web", via: "web" } });
      const done = await run;
      expect(done.code, done.stderr).toBe(0);
      expect(existsSync(target)).toBe(true);
      await model.close();
    } finally {
      gateway.run.child.kill("SIGTERM");
      await gateway.run.exited;
    }
  });

  it("with the gateway stopped, the hook tells the person (systemMessage) and Claude Code decides as usual", async () => {
    const { home, xdg } = machine();
    const gateway = await startIn(xdg);
    gateway.run.child.kill("SIGTERM");
    await gateway.run.exited;
    const project = tempDir("aub-newcomer-project-");
    installClaudeSettings(project, JSON.parse((await spawnCli(["hook", "claude-code", "--print-settings", "--to", "web"], { XDG_CONFIG_HOME: xdg }).exited).stdout));
    const target = join(project, "never.txt");
    const model = await startFakeAnthropic([{ tool: "Bash", input: { command: `touch ${target}`, description: "Make a file" } }]);
    const done = await claude(model, project, home);
    expect(done.code, done.stderr).toBe(0);
    // Nobody is at the terminal of `claude -p`: its own prompt denies, and the person was told why.
    expect(existsSync(target)).toBe(false);
    // The hook's answer, as Claude Code took it (--include-hook-events): a systemMessage, and no decision.
    const events = done.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { subtype?: string; hook_event?: string; stdout?: string });
    const response = events.find((e) => e.subtype === "hook_response" && e.hook_event === "PermissionRequest");
    expect(JSON.parse(response!.stdout!.split("\n")[0]!)).toEqual({
      systemMessage: expect.stringMatching(/^ask-user-bridge could not reach its gateway \(no gateway token: .*is not running: start it again\)\), so this was not sent to your phone; Claude Code asks here instead\.$/u),
    });
    await model.close();
  });
});

describe("hook claude-code --install and --test", () => {
  it("--install keeps other settings and hooks, replaces its own, backs the file up, and changes nothing the second time", () => {
    const project = tempDir("aub-install-");
    mkdirSync(join(project, ".claude"));
    const mine = { matcher: "Bash", hooks: [{ type: "command", command: "./lint.sh" }] };
    const old = { matcher: "*", hooks: [{ type: "command", command: "/old/node /old/ask-user-bridge.js hook claude-code --to telegram:1" }] };
    writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ model: "opus", hooks: { PreToolUse: [mine], PermissionRequest: [old] } }));
    const block = { hooks: { PreToolUse: [{ matcher: "AskUserQuestion", hooks: [{ type: "command", command: "node x.js hook claude-code --to web" }] }], PermissionRequest: [{ matcher: "*", hooks: [{ type: "command", command: "node x.js hook claude-code --to web" }] }] } };
    const first = installClaudeSettings(project, block);
    expect(first).toMatchObject({ changed: true, backup: join(project, ".claude", "settings.json.bak") });
    const written = JSON.parse(readFileSync(first.file, "utf8"));
    expect(written.model).toBe("opus");
    expect(written.hooks.PreToolUse).toEqual([mine, block.hooks.PreToolUse[0]]);
    expect(written.hooks.PermissionRequest).toEqual([block.hooks.PermissionRequest[0]]);
    expect(JSON.parse(readFileSync(first.backup!, "utf8")).hooks.PermissionRequest).toEqual([old]);
    expect(installClaudeSettings(project, block)).toEqual({ file: first.file, changed: false });
  });

  it("--install refuses a settings file it cannot read, and leaves it as it was", () => {
    const project = tempDir("aub-install-");
    mkdirSync(join(project, ".claude"));
    writeFileSync(join(project, ".claude", "settings.json"), "{ not json");
    expect(() => installClaudeSettings(project, { hooks: {} })).toThrow(/cannot be read as JSON/u);
    expect(readFileSync(join(project, ".claude", "settings.json"), "utf8")).toBe("{ not json");
  });

  it("--test asks a sample permission request through the gateway and prints the decision", async () => {
    const { xdg } = machine();
    const gateway = await startIn(xdg);
    try {
      const run = spawnCli(["hook", "claude-code", "--test", "--to", "web"], { XDG_CONFIG_HOME: xdg });
      const asked = await waitUntil(async () => (await call(gateway, "question.list", { status: "pending" })).questions[0], "the sample request");
      expect(asked.approval.input.command).toBe("echo hello from ask-user-bridge");
      await call(gateway, "question.resolve", { id: asked.id, answers: { approval: ["Deny"] } });
      const done = await run.exited;
      expect(done.code).toBe(3);
      expect(JSON.parse(done.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny" } } });
    } finally {
      gateway.run.child.kill("SIGTERM");
      await gateway.run.exited;
    }
  });
});
