/**
 * The package as a user gets it: `npm pack`, then the tarball installed into a fresh project outside the repo that
 * has no TypeScript and no tsx, offline (test/helpers/consumer-project.ts). There, plain `node` imports the SDK and
 * each framework entry, `tsc` type-checks a consumer file against our .d.ts, the installed bin answers --help and
 * --version, runs the gateway, and an MCP SDK client started outside the repo uses the installed `mcp` server.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, consumerProject, type ConsumerProject } from "../helpers/consumer-project.ts";
import { ROOT } from "../helpers/cli.ts";
import { freePort, rpc } from "../helpers/gateway.ts";

const run = promisify(execFile);
const FRAMEWORKS = ["ai", "@langchain/core", "@openai/agents"];
const VERSION: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

let dir: string;
let consumer: ConsumerProject;
let tarball: string;
let packedFiles: string[];
let repositoryManifest: string;
const PACK_MANIFEST = join(ROOT, "scripts", "pack-manifest.mjs");

/** `node --input-type=module -e SCRIPT` inside the consumer project; resolves to stdout. */
async function nodeIn(script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, env: cleanEnv(), timeout: 60_000 });
  return stdout.trim();
}

const bin = () => join(dir, "node_modules", ".bin", "ask-user-bridge");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aub-consumer-"));
  // dist/ is fresh (test/global-setup.ts), so pack it as it is: `prepack` would rebuild it under the other test files.
  // Its other step, the cleaned manifest (scripts/pack-manifest.mjs), runs here as npm runs it, around the pack.
  repositoryManifest = readFileSync(join(ROOT, "package.json"), "utf8");
  await run(process.execPath, [PACK_MANIFEST, "clean"], { cwd: ROOT, env: cleanEnv() });
  let stdout: string;
  try {
    ({ stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: ROOT, env: cleanEnv(), timeout: 120_000 }));
  } finally {
    await run(process.execPath, [PACK_MANIFEST, "restore"], { cwd: ROOT, env: cleanEnv() });
  }
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(dir, packed!.filename);
  packedFiles = packed!.files.map((f) => f.path);
  consumer = consumerProject(dir, tarball);
  await consumer.install();
}, 600_000);

// The consumer project holds the frameworks' node_modules: removing it takes a while on a loaded machine.
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 180_000);

describe("the packed tarball", () => {
  it("ships compiled JavaScript with types and source maps, the bin, and no TypeScript source or tests", () => {
    expect(packedFiles).toContain("dist/bin/ask-user-bridge.js");
    expect(packedFiles).toContain("dist/src/index.js");
    expect(packedFiles).toContain("dist/src/index.d.ts");
    expect(packedFiles).toContain("dist/src/index.js.map");
    expect(packedFiles).toContain("dist/src/web/static/index.html");
    expect(packedFiles).toContain(".env.example");
    // The README's links and picture lead into docs/: they work in the package too.
    expect(packedFiles).toContain("docs/coding-agents.md");
    expect(packedFiles).toContain("docs/platforms/telegram.md");
    expect(packedFiles).toContain("docs/control-ui-phone.png");
    const sources = packedFiles.filter((f) => /\.(ts|mts|cts)$/.test(f) && !/\.d\.ts$/.test(f));
    expect(sources).toEqual([]);
    expect(packedFiles.filter((f) => /^(test|bench|src|bots|bin|scripts)\//.test(f))).toEqual([]);
  });

  it("ships the MIT LICENSE, and a manifest without the repository's own scripts; the repository's manifest is back as it was", () => {
    expect(packedFiles).toContain("LICENSE");
    const license = readFileSync(join(dir, "node_modules", "ask-user-bridge", "LICENSE"), "utf8");
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 ask-user-bridge contributors\n/);
    const repository = JSON.parse(repositoryManifest) as { license: string; scripts: Record<string, string> };
    expect(repository.license).toBe("MIT");
    expect(repository.scripts).toMatchObject({ prepack: "npm run build && node scripts/pack-manifest.mjs clean", postpack: "node scripts/pack-manifest.mjs restore" });
    const packed = JSON.parse(readFileSync(join(dir, "node_modules", "ask-user-bridge", "package.json"), "utf8")) as { scripts: Record<string, string>; version: string };
    expect(Object.keys(packed.scripts).sort()).toEqual(Object.keys(repository.scripts).filter((s) => !["prepare", "test", "typecheck", "bench", "screenshots", "layers", "prepack", "postpack"].includes(s)).sort());
    expect(packed.scripts).not.toHaveProperty("prepare");
    expect(packed.version).toBe(VERSION);
    expect(readFileSync(join(ROOT, "package.json"), "utf8")).toBe(repositoryManifest);
    expect(existsSync(join(ROOT, ".package.json.prepack"))).toBe(false);
  });

  it("a tarball packed in the repository, and the manifest kept while packing, are git-ignored", async () => {
    const ignored = await run("git", ["check-ignore", "--no-index", `ask-user-bridge-${VERSION}.tgz`, ".package.json.prepack"], { cwd: ROOT });
    expect(ignored.stdout.trim().split("\n")).toEqual([`ask-user-bridge-${VERSION}.tgz`, ".package.json.prepack"]);
  });

  it("needs neither TypeScript nor tsx at run time: no compiled module imports them, and the project has neither", () => {
    const installed = join(dir, "node_modules", "ask-user-bridge", "dist");
    const offenders: string[] = [];
    const walk = (folder: string): void => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".js") && /\bfrom\s*["'](tsx|typescript)(\/[^"']*)?["']|import\(\s*["'](tsx|typescript)/.test(readFileSync(path, "utf8"))) offenders.push(path);
      }
    };
    walk(installed);
    expect(offenders).toEqual([]);
    expect(existsSync(join(dir, "node_modules", "typescript"))).toBe(false);
    expect(existsSync(join(dir, "node_modules", "tsx"))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(dir, "node_modules", "ask-user-bridge", "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies)).not.toContain("tsx");
    expect(Object.keys(manifest.dependencies)).not.toContain("typescript");
  });
});

describe("installed in a fresh project", () => {
  it("plain node imports the SDK; a framework entry without its framework says which package is missing", async () => {
    const exported = await nodeIn(`const m = await import("ask-user-bridge"); console.log(JSON.stringify(Object.keys(m).sort()))`);
    expect(JSON.parse(exported)).toEqual(expect.arrayContaining(["askUser", "connectGateway", "createAskUserTool", "createGatewayAsk", "normalizeAskUserInput", "askUserInputJsonSchema"]));
    await expect(nodeIn(`await import("ask-user-bridge/ai")`)).rejects.toThrow(/Cannot find (package|module) 'ai'/);
  });

  it("plain node imports each framework entry once that framework is installed, and each gives an ask_user tool", async () => {
    await consumer.install(FRAMEWORKS);
    const script = `
      const { createAskUserTool } = await import("ask-user-bridge");
      const ask = async () => ({ status: "no_answer", reason: "expired" });
      const session = { kind: "main", key: "s" };
      const { createAiSdkAskUserTool } = await import("ask-user-bridge/ai");
      const { createLangChainAskUserTool } = await import("ask-user-bridge/langchain");
      const { createOpenAIAgentsAskUserTool } = await import("ask-user-bridge/openai-agents");
      const core = createAskUserTool({ session, ask });
      console.log(JSON.stringify({
        ai: createAiSdkAskUserTool({ session, ask }).description === core.description,
        langchain: createLangChainAskUserTool({ session, ask }).name,
        openai: createOpenAIAgentsAskUserTool({ session, ask }).name,
        subagent: createAiSdkAskUserTool({ session: { kind: "subagent" }, ask }) === undefined,
      }));`;
    expect(JSON.parse(await nodeIn(script))).toEqual({ ai: true, langchain: "ask_user", openai: "ask_user", subagent: true });
  }, 120_000);

  it("tsc resolves our types for a consumer file, and refuses a wrong call (the types are real, not any)", async () => {
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules", "@types")],
        },
        files: ["consumer.ts"],
      }),
    );
    const consumerTs = (extra: string) => `
      import { askUser, connectGateway, createAskUserTool, createGatewayAsk, type AskUserResult } from "ask-user-bridge";
      const client = await connectGateway({ url: "http://127.0.0.1:8787", token: "t".repeat(32) });
      const result: AskUserResult = await askUser(client, { questions: [] }, { runId: "r" });
      if (result.status === "answered") console.log(result.answers.answers);
      const tool = createAskUserTool({ session: { kind: "main" }, ask: createGatewayAsk(client) });
      console.log(tool?.inputSchema);
      ${extra}
      export {};`;
    writeFileSync(join(dir, "consumer.ts"), consumerTs(""));
    await run(process.execPath, [TSC, "-p", dir], { cwd: dir, env: cleanEnv(), timeout: 120_000 });

    writeFileSync(join(dir, "consumer.ts"), consumerTs(`await connectGateway({ url: 8787 });`));
    const failed = await run(process.execPath, [TSC, "-p", dir], { cwd: dir, env: cleanEnv(), timeout: 120_000 }).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    expect(failed).toMatch(/consumer\.ts\(\d+,\d+\): error TS2/);
  }, 120_000);

  it("the coding-agent entries work from outside the repo: the hook's settings and the hook itself, the SDK subpaths", async () => {
    const printed = await run(bin(), ["hook", "claude-code", "--print-settings", "--to", "telegram:123456789"], { cwd: dir, env: cleanEnv(), timeout: 60_000 });
    const settings = JSON.parse(printed.stdout) as { hooks: Record<string, Array<{ matcher: string; hooks: Array<{ command: string; timeout: number }> }>> };
    const command = settings.hooks.PreToolUse![0]!.hooks[0]!.command;
    expect(command.startsWith(process.execPath)).toBe(true);
    expect(command).toMatch(/node_modules\/(\.bin\/ask-user-bridge|ask-user-bridge\/dist\/bin\/ask-user-bridge\.js) hook claude-code --to telegram:123456789$/);
    expect(command).not.toContain("npx");
    // The pasted command, run by a shell as Claude Code runs it: an event it does not handle prints nothing; a
    // question with no gateway to ask decides nothing (Claude Code then asks in its terminal), and says why where the
    // person sees it (a systemMessage) and on stderr.
    const hook = (event: object) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile("/bin/sh", ["-c", command], { cwd: dir, env: cleanEnv({ GATEWAY_URL: "http://127.0.0.1:9", GATEWAY_TOKEN: "t".repeat(32) }) }, (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
        child.stdin!.end(JSON.stringify(event));
      });
    expect(await hook({ hook_event_name: "Stop", session_id: "s" })).toEqual({ code: 0, stdout: "", stderr: "" });
    const unreachable = await hook({ hook_event_name: "PreToolUse", tool_name: "AskUserQuestion", tool_input: { questions: [] }, session_id: "s" });
    expect(unreachable.code).toBe(0);
    expect(JSON.parse(unreachable.stdout)).toEqual({ systemMessage: expect.stringMatching(/^ask-user-bridge could not (reach its gateway|ask this on your phone) \(.*cannot reach the gateway.*Claude Code asks here instead\.$/u) });
    expect(unreachable.stderr).toMatch(/cannot reach the gateway/);

    const entries = await nodeIn(`
      const { createCanUseTool } = await import("ask-user-bridge/claude-agent-sdk");
      const { createCodexServerRequestHandler } = await import("ask-user-bridge/codex");
      const { requireApproval } = await import("ask-user-bridge");
      console.log(JSON.stringify([typeof createCanUseTool, typeof createCodexServerRequestHandler, typeof requireApproval]));`);
    expect(JSON.parse(entries)).toEqual(["function", "function", "function"]);
  }, 120_000);

  it("npx ask-user-bridge --help and --version work", async () => {
    const help = await run("npx", ["--offline", "ask-user-bridge", "--help"], { cwd: dir, env: cleanEnv(), timeout: 60_000 });
    expect(help.stdout).toMatch(/^ask-user-bridge: let an AI agent ask a person/);
    expect(help.stdout).toContain("mcp");
    const version = await run("npx", ["--offline", "ask-user-bridge", "--version"], { cwd: dir, env: cleanEnv(), timeout: 60_000 });
    expect(version.stdout.trim()).toBe(VERSION);
  });

  it("the installed bin runs the gateway, and an MCP client started outside the repo lists and uses its tools", async () => {
    const port = await freePort();
    const dataDir = join(dir, "data");
    const gateway = execFile(bin(), ["start"], { cwd: dir, env: cleanEnv({ GATEWAY_PORT: String(port), DATA_DIR: dataDir }) });
    let output = "";
    gateway.stdout!.on("data", (d) => (output += d));
    gateway.stderr!.on("data", (d) => (output += d));
    const transport = new StdioClientTransport({
      command: bin(),
      args: ["mcp"],
      cwd: dir,
      // The token comes from the gateway's token file, found through DATA_DIR (as the README says).
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", GATEWAY_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir },
      stderr: "pipe",
    });
    const client = new Client({ name: "package-test", version: "0.0.0" });
    try {
      const url = `http://127.0.0.1:${port}`;
      for (let i = 0; !/listening on/.test(output); i++) {
        if (i > 400 || gateway.exitCode !== null) throw new Error(`the installed gateway did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["approve_tool_use", "ask_user", "ask_user_late_answers", "ask_user_start", "ask_user_wait"]);

      const question = { id: "deploy_target", header: "Deploy", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };
      const started = await client.callTool({ name: "ask_user_start", arguments: { questions: [question] } });
      const { id } = started.structuredContent as { id: string };
      const token = readFileSync(join(dataDir, "gateway-token"), "utf8").trim();
      const resolved = await rpc(url, "question.resolve", { id, answers: { deploy_target: ["Production"] } }, { token });
      expect(resolved.body.ok).toBe(true);
      const waited = await client.callTool({ name: "ask_user_wait", arguments: { id } });
      expect(waited.structuredContent).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    } finally {
      await client.close().catch(() => {});
      gateway.kill("SIGTERM");
      await new Promise((r) => gateway.once("exit", r));
    }
  }, 60_000);
});
