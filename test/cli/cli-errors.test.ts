/**
 * Expected CLI errors print one line that says what to do, with no stack trace, and exit 1: a port in use (a child
 * `gateway`), no gateway token, a missing --json file, an unreachable gateway. Anything else keeps its stack.
 */
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { expectedErrorLine } from "../../src/cli/expected-errors.ts";
import { cleanup, spawnCli, startTestGateway, tempDir, TOKEN } from "../helpers/gateway.ts";

afterAll(cleanup);

async function runMain(argv: string[], environment: Record<string, string | undefined>) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, environment, { out: (s) => void (stdout += `${s}\n`), err: (s) => void (stderr += `${s}\n`) });
  return { code, stdout, stderr };
}

/** A port nobody listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe("expected errors: one line, exit 1", { timeout: 90_000 }, () => {
  it("a port in use names the port and GATEWAY_PORT (child `gateway`)", async () => {
    const occupier = createServer().listen(0, "127.0.0.1");
    await once(occupier, "listening");
    const { port } = occupier.address() as AddressInfo;
    try {
      const { code, stderr } = await spawnCli(["gateway"], { GATEWAY_PORT: String(port), GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-port-"), STORE: "memory" }).exited;
      expect(stderr.trim()).toBe(`port ${port} is in use: set GATEWAY_PORT or stop the other process`);
      expect(code).toBe(1);
    } finally {
      occupier.close();
    }
  });

  it("a taken Telegram webhook port names TELEGRAM_WEBHOOK_PORT instead of hanging (child `bot telegram`)", async () => {
    const gateway = await startTestGateway({ STORE: "memory" });
    const occupier = createServer().listen(0, "127.0.0.1");
    await once(occupier, "listening");
    const { port } = occupier.address() as AddressInfo;
    try {
      const { code, stderr } = await spawnCli(["bot", "telegram"], {
        GATEWAY_URL: gateway.url,
        GATEWAY_TOKEN: TOKEN,
        DATA_DIR: tempDir("aub-hook-"),
        TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN-not-real",
        TELEGRAM_API_ROOT: `http://127.0.0.1:${await closedPort()}`,
        TELEGRAM_WEBHOOK_URL: "https://bot.example.test/telegram",
        TELEGRAM_WEBHOOK_SECRET: "s3cret-webhook-token",
        TELEGRAM_WEBHOOK_PORT: String(port),
        TELEGRAM_WEBHOOK_HOST: "127.0.0.1",
      }, { timeoutMs: 30_000 }).exited;
      expect(stderr.trim().split("\n").at(-1)).toBe(`port ${port} is in use: set TELEGRAM_WEBHOOK_PORT or stop the other process`);
      expect(code).toBe(1);
    } finally {
      occupier.close();
      await gateway.close();
    }
  });

  it("no token and no token file says to set GATEWAY_TOKEN or run on the gateway's machine", async () => {
    const dataDir = tempDir("aub-notoken-");
    const { code, stderr } = await runMain(["list"], { DATA_DIR: dataDir, GATEWAY_URL: "http://127.0.0.1:1" });
    expect(stderr.trim().split("\n")).toEqual([expect.stringMatching(/^no gateway token: set GATEWAY_TOKEN or run on the gateway's machine \(.*DATA_DIR.*\)$/)]);
    expect(stderr).toContain(dataDir);
    expect(code).toBe(1);
  });

  it("ask --json with a missing file says it cannot read it", async () => {
    const { code, stderr } = await runMain(["ask", "--json", "missing.json"], { GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir() });
    expect(stderr.trim()).toBe("cannot read missing.json: no such file");
    expect(code).toBe(1);
  });

  it("an unreachable gateway is one DISCONNECTED line that says to start it or set GATEWAY_URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await runMain(["list"], { GATEWAY_URL: url, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir() });
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^DISCONNECTED: .*Is the gateway running\? Start it with `ask-user-bridge start`, or set GATEWAY_URL$/);
    expect(code).toBe(1);
  });

  it("leaves anything else to the stack trace", () => {
    expect(expectedErrorLine(new Error("boom"), undefined)).toBeUndefined();
    expect(expectedErrorLine("not an error", undefined)).toBeUndefined();
  });
});
