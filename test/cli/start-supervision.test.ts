/**
 * `ask-user-bridge start` as ops run it (issue 19 §2): it restarts a crashed bot with backoff and logs why, leaves a
 * bot whose token was rejected stopped, and exits within 2 s of SIGTERM with its bots. Real processes, fake Bot API.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeTelegram } from "../platforms/telegram/fake-api.ts";
import { cleanup, freePort, spawnCli, tempDir, TOKEN, type CliRun } from "../helpers/gateway.ts";
import { logLines } from "../helpers/cli.ts";
import { waitUntil } from "../scenarios/tools.ts";

afterAll(() => cleanup());

const lines = logLines;

async function startWith(apiRoot: string): Promise<CliRun> {
  return spawnCli(["start"], { GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir(), GATEWAY_PORT: String(await freePort()), TELEGRAM_BOT_TOKEN: "123456:TEST-start-token", TELEGRAM_API_ROOT: apiRoot }, { timeoutMs: 60_000 });
}

describe("start supervises its bots", { timeout: 60_000 }, () => {
  it("restarts a bot killed with SIGKILL, logging why and when, and exits within 2 s of SIGTERM", async () => {
    const telegram = await startFakeTelegram();
    const start = await startWith(telegram.apiRoot);
    try {
      const first = await waitUntil(() => lines(start).find((l) => l.name === "bot:telegram" && /long polling as @/u.test(String(l.msg))), "the bot polling", 30_000);
      process.kill(Number(first.pid), "SIGKILL");
      const restarting = await waitUntil(() => lines(start).find((l) => /bot:telegram exited \(SIGKILL\); restarting in/u.test(String(l.msg))), "the restart line");
      expect(restarting).toMatchObject({ name: "gateway", level: "warn", child: "bot:telegram", signal: "SIGKILL", restartInMs: expect.any(Number) });
      const second = await waitUntil(
        () => lines(start).find((l) => l.name === "bot:telegram" && l.pid !== first.pid && /long polling as @/u.test(String(l.msg))),
        "the restarted bot polling",
        30_000,
      );
      expect(second.pid).not.toBe(first.pid);

      const stopping = Date.now();
      start.child.kill("SIGTERM");
      const exit = await start.exited;
      expect(Date.now() - stopping).toBeLessThan(2_000);
      expect(exit.code).toBe(0);
      // The bot went with it.
      expect(() => process.kill(Number(second.pid), 0)).toThrow();
    } finally {
      await telegram.close();
    }
  });

  it("leaves a bot whose token was rejected stopped, and says so", async () => {
    const server = createServer((req, res) => {
      req.resume().on("end", () => res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ ok: false, error_code: 401, description: "Unauthorized" })));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const start = await startWith(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const stopped = await waitUntil(() => lines(start).find((l) => /bot:telegram stopped on an error a restart cannot fix/u.test(String(l.msg))), "the not-restarting line", 30_000);
      expect(stopped).toMatchObject({ level: "error", code: 78 });
      expect(lines(start).some((l) => l.level === "fatal" && /the token was rejected/u.test(String(l.msg)))).toBe(true);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(lines(start).filter((l) => /restarting in/u.test(String(l.msg)))).toHaveLength(0);
      start.child.kill("SIGTERM");
      expect((await start.exited).code).toBe(0);
    } finally {
      server.close();
    }
  });
});
