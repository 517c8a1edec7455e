/**
 * Issue 30 §3, the CLI's rough edges: `ask` checks its question with the contract before it connects and names the
 * flag a problem came from; the top-level help names every MCP tool; a negative `--limit` is one clear line.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { main, MAIN_HELP } from "../../src/cli/main.ts";
import { flagOfPath } from "../../src/cli/ask-input-issues.ts";
import { MCP_TOOLS } from "../../src/cli/mcp/tools.ts";
import { BIN, cleanup, freePort, ROOT, spawnCli, tempDir } from "../helpers/gateway.ts";
import { afterAll } from "vitest";

afterAll(() => cleanup());

async function runMain(argv: string[], environment: Record<string, string | undefined>) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, environment, { out: (s) => void (stdout += `${s}\n`), err: (s) => void (stderr += `${s}\n`) });
  return { code, stdout, stderr };
}

describe("ask checks its question before it connects", () => {
  // Nothing listens there: a problem reported is the local check's, not the gateway's.
  const nowhere = async () => ({ GATEWAY_URL: `http://127.0.0.1:${await freePort()}`, GATEWAY_TOKEN: "t".repeat(32) });

  it.each<[string, string[], string]>([
    ["an empty --question", ["--question", "", "--option", "A", "--option", "B"], "--question: must not be empty"],
    ["one --option", ["--question", "Q?", "--option", "A"], "--option: must have 2 to 4 options (got 1)"],
    ["an empty second --option", ["--question", "Q?", "--option", "A", "--option", ""], "--option 2: must not be empty"],
    ["a fractional --timeout", ["--question", "Q?", "--option", "A", "--option", "B", "--timeout", "5.5"], "--timeout: must be an integer (got 5.5)"],
    ["a bad --id", ["--question", "Q?", "--option", "A", "--option", "B", "--id", "Not Snake"], "--id: "],
  ])("%s: one line naming the flag, exit 1", async (_what, args, line) => {
    const { code, stdout, stderr } = await runMain(["ask", ...args], await nowhere());
    expect(stdout).toBe("");
    expect(stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(stderr).toContain(`ask: ${line}`);
    expect(stderr).not.toMatch(/questions\[|INVALID_PARAMS|ECONNREFUSED|cannot reach/u);
    expect(code).toBe(1);
  });

  it("several problems are one line, each named by its flag", async () => {
    const { stderr } = await runMain(["ask", "--question", "Q?", "--header", "", "--option", "Other", "--option", "B"], await nowhere());
    expect(stderr).toMatch(/^ask: the question is invalid: --header: must not be empty; --option 1: "Other" is an authored Other option; [^\n]*\n$/u);
  });

  it.each([
    ["questions[0].options[3].label", "--option 4"],
    ["questions[0].options[0].description", "--description of --option 1"],
    ["questions[0].options", "--option"],
    ["questions[0].multiSelect", "--multi"],
    ["questions[1].header", "questions[1].header"],
  ])("%s is %s", (path, flag) => expect(flagOfPath(path)).toBe(flag));
});

describe("the CLI's help and its numbers", () => {
  // The bin writes these two with write(2) on fd 1, not through process.stdout (start-up time, benchmark 6).
  it("the bin's --help and --version arrive whole on a pipe and in a file (child processes)", () => {
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
    for (const [args, expected] of [[["--help"], `${MAIN_HELP}\n`], [["--version"], `${version}\n`]] as const) {
      const piped = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
      expect([piped.status, piped.stdout, piped.stderr]).toEqual([0, expected, ""]);
      const file = join(tempDir("aub-cli-out-"), "out.txt");
      const fd = openSync(file, "w");
      const toFile = spawnSync(process.execPath, [BIN, ...args], { stdio: ["ignore", fd, "pipe"], env: { PATH: process.env.PATH ?? "" } });
      closeSync(fd);
      expect([toFile.status, readFileSync(file, "utf8")]).toEqual([0, expected]);
    }
  });

  it("the top-level --help names every MCP tool the server lists", async () => {
    const { stdout } = await runMain(["--help"], {});
    const help = stdout.replace(/\s+/gu, " ");
    for (const tool of MCP_TOOLS) expect(help).toContain(tool.name);
  });

  it("list --limit -5 (and --limit=-5) is one clear line (child process)", async () => {
    const spaced = await spawnCli(["list", "--limit", "-5"], { GATEWAY_TOKEN: "t".repeat(32) }).exited;
    expect(spaced.stderr).toBe(`list: --limit: "-5" is not a positive integer (see "ask-user-bridge list --help")\n`);
    expect(spaced.code).toBe(1);
    const joined = await runMain(["list", "--limit=-5"], { GATEWAY_TOKEN: "t".repeat(32) });
    expect(joined.stderr).toBe(`list: --limit: "-5" is not a positive integer (see "ask-user-bridge list --help")\n`);
  });
});
