/**
 * Issue 36 §1: a client finds the gateway from any folder. `start` records where it listens and its token file in
 * $XDG_CONFIG_HOME/ask-user-bridge/gateway.json (0600), and the CLI in another folder, with an empty environment,
 * asks through it; `--gateway NAME` picks one of several; a stopped gateway's record is never used; a gateway on its
 * own GATEWAY_TOKEN is recorded without it, and its clients are told to set the same one.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { registryPath } from "../../src/runtime/gateway-registry.ts";
import { main } from "../../src/cli/main.ts";
import { cleanup, freePort, rpcOk, spawnCli, tempDir, TOKEN, waitForOutput, type CliRun } from "../helpers/gateway.ts";

afterAll(cleanup);

const registry = (env: Record<string, string>) => JSON.parse(readFileSync(registryPath({ XDG_CONFIG_HOME: env.XDG_CONFIG_HOME }), "utf8"));

/** `start` in a folder of its own (the CLI helper gives each run one), with its own XDG_CONFIG_HOME. */
async function startGatewayProcess(xdg: string, extra: Record<string, string> = {}, args: string[] = []): Promise<{ run: CliRun; url: string; port: number }> {
  const port = await freePort();
  const run = spawnCli(["start", ...args], { XDG_CONFIG_HOME: xdg, GATEWAY_PORT: String(port), DATA_DIR: tempDir("aub-reg-data-"), ...extra });
  await waitForOutput(run, /Ask a first question/u);
  return { run, url: `http://127.0.0.1:${port}`, port };
}

async function stop(run: CliRun): Promise<void> {
  run.child.kill("SIGTERM");
  await run.exited;
}

/** `ask` from another folder with nothing but XDG_CONFIG_HOME, answered through the gateway at `url`. */
async function askAndAnswer(xdg: string, url: string, token: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawnCli(["ask", ...args, "--question", "Ship it?", "--option", "Yes", "--option", "No"], { XDG_CONFIG_HOME: xdg, ...env });
  const [, id] = await waitForOutput(run, /Asked (q[0-9a-f]+)/u);
  const res = await fetch(`${url}/rpc/question.resolve`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ id, answers: { ship_it: ["Yes"] } }) });
  expect(res.status).toBe(200);
  return run.exited;
}

describe("clients find the gateway from any folder", { timeout: 120_000 }, () => {
  it("start records itself (0600, no token in it); ask from another folder with an empty environment reaches it", async () => {
    const xdg = tempDir("aub-reg-xdg-");
    const { run, url } = await startGatewayProcess(xdg);
    try {
      const path = registryPath({ XDG_CONFIG_HOME: xdg });
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const recorded = registry({ XDG_CONFIG_HOME: xdg });
      expect(recorded).toMatchObject({ last: "default", gateways: { default: { url, tokenFile: expect.stringMatching(/gateway-token$/u) } } });
      const token = readFileSync(recorded.gateways.default.tokenFile, "utf8").trim();
      expect(readFileSync(path, "utf8")).not.toContain(token);
      const { code, stdout, stderr } = await askAndAnswer(xdg, url, token, ["--id", "ship_it"]);
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ status: "answered", answers: { answers: { ship_it: ["Yes"] } } });
    } finally {
      await stop(run);
    }
    // Stopped: its record is not used, and the error says so.
    const after = await spawnCli(["list"], { XDG_CONFIG_HOME: xdg }).exited;
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/^no gateway token: .*the gateway recorded as "default" \(http:\/\/127\.0\.0\.1:\d+, started in .*\) is not running: start it again\)$/mu);
  });

  it("--gateway NAME records a second gateway and picks it; without a name, the one started last", async () => {
    const xdg = tempDir("aub-reg-xdg-");
    const first = await startGatewayProcess(xdg, {}, ["--gateway", "work"]);
    const second = await startGatewayProcess(xdg, {}, ["--gateway=home"]);
    try {
      const recorded = registry({ XDG_CONFIG_HOME: xdg });
      expect(recorded.last).toBe("home");
      const tokenOf = (name: string) => readFileSync(recorded.gateways[name].tokenFile, "utf8").trim();
      const named = await askAndAnswer(xdg, first.url, tokenOf("work"), ["--gateway", "work", "--id", "ship_it"]);
      expect(named.code, named.stderr).toBe(0);
      const last = await askAndAnswer(xdg, second.url, tokenOf("home"), ["--id", "ship_it"]);
      expect(last.code, last.stderr).toBe(0);
      // Named on purpose, it wins over a token that a DATA_DIR in the client's folder happens to hold.
      const localData = tempDir("aub-reg-local-");
      writeFileSync(join(localData, "gateway-token"), `${"l".repeat(32)}\n`, { mode: 0o600 });
      const overLocal = await askAndAnswer(xdg, first.url, tokenOf("work"), ["--gateway", "work", "--id", "ship_it"], { DATA_DIR: localData });
      expect(overLocal.code, overLocal.stderr).toBe(0);
      const unknown = await spawnCli(["list", "--gateway", "nope"], { XDG_CONFIG_HOME: xdg }).exited;
      expect(unknown.stderr).toMatch(/no gateway named "nope" is recorded/u);
    } finally {
      await Promise.all([stop(first.run), stop(second.run)]);
    }
  });

  it("a gateway on its own GATEWAY_TOKEN is recorded without it: its clients are told to set the same one, and work when they do", async () => {
    const xdg = tempDir("aub-reg-xdg-");
    const { run, url } = await startGatewayProcess(xdg, { GATEWAY_TOKEN: TOKEN });
    try {
      expect(registry({ XDG_CONFIG_HOME: xdg }).gateways.default.tokenFile).toBeUndefined();
      const bare = await spawnCli(["list"], { XDG_CONFIG_HOME: xdg }).exited;
      expect(bare.stderr).toMatch(/uses its own GATEWAY_TOKEN: set the same one here/u);
      const listed = await spawnCli(["list", "--json"], { XDG_CONFIG_HOME: xdg, GATEWAY_TOKEN: TOKEN, GATEWAY_URL: url }).exited;
      expect(listed.code, listed.stderr).toBe(0);
      expect(await rpcOk(url, "question.list", {})).toBeDefined();
    } finally {
      await stop(run);
    }
  });

  it("keeps the user's own settings first: GATEWAY_URL naming another gateway is not silently replaced", async () => {
    const xdg = tempDir("aub-reg-xdg-");
    const { run } = await startGatewayProcess(xdg);
    try {
      const other = await spawnCli(["list"], { XDG_CONFIG_HOME: xdg, GATEWAY_URL: "http://127.0.0.1:1", DATA_DIR: join(tempDir("aub-reg-empty-"), "data") }).exited;
      expect(other.stderr).toMatch(/the recorded gateway is at http:\/\/127\.0\.0\.1:\d+, not GATEWAY_URL/u);
    } finally {
      await stop(run);
    }
  });
});

describe("ui-link prints the admin sign-in link again", () => {
  async function run(argv: string[], env: Record<string, string>, tty: boolean) {
    let stdout = "";
    let stderr = "";
    const code = await main(argv, env, { out: (t) => void (stdout += `${t}\n`), err: (t) => void (stderr += `${t}\n`), tty: { out: tty, err: tty } });
    return { code, stdout, stderr };
  }

  it("to a terminal; elsewhere only with --force, since it holds the admin token", async () => {
    const env = { GATEWAY_URL: "http://127.0.0.1:8787", GATEWAY_TOKEN: TOKEN };
    expect(await run(["ui-link"], env, true)).toEqual({ code: 0, stdout: `http://127.0.0.1:8787/#token=${TOKEN}\n`, stderr: "" });
    const piped = await run(["ui-link"], env, false);
    expect(piped.code).toBe(1);
    expect(piped.stdout).toBe("");
    expect(piped.stderr).toMatch(/stdout is not a terminal: the link holds the admin token/u);
    expect((await run(["ui-link", "--force"], { ...env, GATEWAY_PUBLIC_URL: "https://aub.example.com" }, false)).stdout).toBe(`https://aub.example.com/#token=${TOKEN}\n`);
  });

  it("of the gateway this user started, from any folder", { timeout: 60_000 }, async () => {
    const xdg = tempDir("aub-reg-xdg-");
    const { run: gateway, url } = await startGatewayProcess(xdg);
    try {
      const token = readFileSync(registry({ XDG_CONFIG_HOME: xdg }).gateways.default.tokenFile, "utf8").trim();
      const printed = await spawnCli(["ui-link", "--force"], { XDG_CONFIG_HOME: xdg }).exited;
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout.trim()).toBe(`${url}/#token=${token}`);
    } finally {
      await stop(gateway);
    }
  });
});
