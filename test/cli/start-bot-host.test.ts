/**
 * `start` with several platforms runs their bots in one supervised child process (issue 36 §5), each bot in an
 * error boundary of its own: a crash in the Telegram bot (ASK_TEST_CRASH_BOT, thrown from a timer in its own async
 * context) restarts the Telegram bot only, the Slack bot goes on (same process, same Socket Mode connection, still
 * delivering), and a question sent to Telegram while its bot was down is delivered once it is back. Real processes,
 * fake Bot API and Slack.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeTelegram } from "../platforms/telegram/fake-api.ts";
import { startFakeSlack } from "../platforms/slack/fake-api.ts";
import { SLACK_TEST_TOKENS } from "../platforms/slack/harness.ts";
import { cleanup, freePort, oneQuestion, rpcOk, spawnCli, tempDir, TOKEN } from "../helpers/gateway.ts";
import { logLines } from "../helpers/cli.ts";
import { waitUntil } from "../scenarios/tools.ts";

afterAll(() => cleanup());

const lines = logLines;

describe("start runs several bots in one process", { timeout: 90_000 }, () => {
  it("restarts a crashed bot alone; the others go on, and the crashed bot's queued question is delivered", async () => {
    const telegram = await startFakeTelegram();
    const slack = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: [{ id: "U0ADA", name: "ada" }], channels: ["C0HOST"] });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const start = spawnCli(
      ["start"],
      {
        GATEWAY_TOKEN: TOKEN,
        DATA_DIR: tempDir(),
        GATEWAY_PORT: String(port),
        TELEGRAM_BOT_TOKEN: "123456:TEST-host-token",
        TELEGRAM_API_ROOT: telegram.apiRoot,
        SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
        SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
        SLACK_API_URL: slack.apiUrl.replace(/\/$/u, ""),
        ASK_TEST_CRASH_BOT: "telegram",
      },
      { timeoutMs: 90_000 },
    );
    try {
      const polling = await waitUntil(() => lines(start).find((l) => l.name === "bot:telegram" && /long polling as @/u.test(String(l.msg))), "the Telegram bot polling", 30_000);
      const slackUp = await waitUntil(() => lines(start).find((l) => l.name === "bot:slack" && /connected in Socket Mode/u.test(String(l.msg))), "the Slack bot connected", 30_000);
      // One child process for both, not one each.
      expect(slackUp.pid).toBe(polling.pid);
      expect(lines(start).find((l) => l.name === "bots" && /^running telegram, slack in one process/u.test(String(l.msg)))).toMatchObject({ pid: polling.pid });

      const crashed = await waitUntil(() => lines(start).find((l) => l.name === "bot:telegram" && l.level === "error" && /^crashed: ASK_TEST_CRASH_BOT/u.test(String(l.msg))), "the crash", 20_000);
      expect(crashed.pid).toBe(polling.pid);
      const restarting = await waitUntil(() => lines(start).find((l) => l.name === "bots" && /^bot:telegram stopped; restarting it in [\d.]+ s \(the other bots go on\)$/u.test(String(l.msg))), "the restart line");
      expect(restarting).toMatchObject({ level: "warn", child: "bot:telegram", restartInMs: expect.any(Number) });

      // While the Telegram bot is down: a question for it waits; one for Slack is delivered at once.
      const forTelegram = await rpcOk(url, "question.request", oneQuestion({ targets: [{ surface: "telegram", chat: "4242" }] }));
      const forSlack = await rpcOk(url, "question.request", oneQuestion({ targets: [{ surface: "slack", chat: "C0HOST" }] }));
      await waitUntil(() => slack.botMessages("C0HOST").find((m) => m.prompt), "the Slack prompt");
      await waitUntil(() => telegram.botMessages(4242)[0], "the Telegram prompt, once its bot is back", 30_000);
      const again = await waitUntil(() => lines(start).filter((l) => l.name === "bot:telegram" && /long polling as @/u.test(String(l.msg)))[1], "the Telegram bot polling again");
      // The question was asked while the bot was down (the restart waits at least 0.5 s).
      expect((await rpcOk(url, "question.get", { id: forTelegram.id })).createdAtMs).toBeLessThan(Date.parse(String(again.time)));

      // The same process throughout, the Slack bot's first Socket Mode connection never dropped, nothing exited.
      expect(new Set(lines(start).filter((l) => String(l.name).startsWith("bot")).map((l) => l.pid))).toEqual(new Set([polling.pid]));
      expect(slack.connectionsOpened()).toBe(1);
      expect(lines(start).some((l) => /exited \(/u.test(String(l.msg)))).toBe(false);
      expect(telegram.botMessages(4242)).toHaveLength(1);
      expect((await rpcOk(url, "question.get", { id: forTelegram.id })).status).toBe("pending");
      expect((await rpcOk(url, "question.get", { id: forSlack.id })).status).toBe("pending");
    } finally {
      start.child.kill("SIGTERM");
      const exit = await start.exited;
      expect(exit.code).toBe(0);
      await telegram.close();
      await slack.close();
    }
  });

  it("leaves a bot whose token was rejected stopped while the others go on; the process exits 78 when every bot is", async () => {
    const refusing = createServer((req, res) => {
      req.resume().on("end", () => res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ ok: false, error_code: 401, description: "Unauthorized" })));
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    const slack = await startFakeSlack({ botToken: SLACK_TEST_TOKENS.bot, appToken: SLACK_TEST_TOKENS.app, people: [], channels: [] });
    const env = async (slackToken: string) => ({
      GATEWAY_TOKEN: TOKEN,
      DATA_DIR: tempDir(),
      GATEWAY_PORT: String(await freePort()),
      TELEGRAM_BOT_TOKEN: "123456:TEST-rejected-token",
      TELEGRAM_API_ROOT: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
      SLACK_BOT_TOKEN: slackToken,
      SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
      SLACK_API_URL: slack.apiUrl.replace(/\/$/u, ""),
    });
    const oneRejected = spawnCli(["start"], await env(SLACK_TEST_TOKENS.bot), { timeoutMs: 60_000 });
    const allRejected = spawnCli(["start"], await env("xoxb-revoked-token-value"), { timeoutMs: 60_000 });
    try {
      await waitUntil(() => lines(oneRejected).find((l) => l.name === "bots" && /^bot:telegram stopped on an error a restart cannot fix/u.test(String(l.msg))), "the not-restarting line", 30_000);
      await waitUntil(() => lines(oneRejected).find((l) => l.name === "bot:slack" && /connected in Socket Mode/u.test(String(l.msg))), "the Slack bot connected", 30_000);
      expect(lines(oneRejected).find((l) => l.level === "fatal" && l.name === "bot:telegram")).toMatchObject({ msg: expect.stringMatching(/the token was rejected/u) });

      // Every bot rejected: the child exits 78, and start does not restart it.
      const gaveUp = await waitUntil(() => lines(allRejected).find((l) => l.name === "gateway" && /^bots stopped on an error a restart cannot fix/u.test(String(l.msg))), "the child giving up", 30_000);
      expect(gaveUp).toMatchObject({ level: "error", code: 78 });
      expect(lines(allRejected).some((l) => /restarting in/u.test(String(l.msg)))).toBe(false);
      expect(oneRejected.stdout() + allRejected.stdout()).not.toMatch(/TEST-rejected-token|xoxb-revoked-token-value/u);
    } finally {
      for (const run of [oneRejected, allRejected]) run.child.kill("SIGTERM");
      expect((await oneRejected.exited).code).toBe(0);
      expect((await allRejected.exited).code).toBe(0);
      refusing.close();
      await slack.close();
    }
  });
});
