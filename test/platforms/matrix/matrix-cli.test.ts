/**
 * The Matrix bot as ops run it: the real `ask-user-bridge bot matrix` process (the compiled package) against the fake
 * homeserver and a real gateway.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, rpcOk, spawnCli, startTestGateway, TOKEN, waitForOutput } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { POLL_START, startFakeMatrix } from "./fake-api.ts";

afterAll(() => cleanup());

const question = { id: "deploy_target", header: "Deploy", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };

describe("the Matrix bot process", { timeout: 60_000 }, () => {
  it("`bot matrix` delivers a poll, takes a vote, and ends the poll; a rejected token exits 78 with one line", async () => {
    const gateway = await startTestGateway();
    const fake = await startFakeMatrix();
    const ada = { id: "@ada:fake.test", name: "Ada" };
    fake.addRoom("!ops:fake.test", [ada, { id: "@grace:fake.test", name: "Grace" }]);
    const env = { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, MATRIX_HOMESERVER_URL: fake.baseUrl };
    const bot = spawnCli(["bot", "matrix"], { ...env, MATRIX_ACCESS_TOKEN: fake.token, MATRIX_ALLOWED_USERS: ada.id }, { timeoutMs: 50_000 });
    try {
      await waitForOutput(bot, /syncing/u);
      const { id } = await rpcOk(gateway.url, "question.request", { questions: [question], targets: [{ surface: "matrix", chat: "!ops:fake.test" }] });
      const poll = await waitUntil(() => fake.botEvents("!ops:fake.test").find((e) => e.type === POLL_START), "the poll");
      fake.vote("!ops:fake.test", ada, poll.event_id, [poll.content[POLL_START].answers[1].id]);
      const answer = await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 10_000 });
      expect(answer).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
      await waitUntil(() => fake.pollEnded(poll.event_id), "the poll ended");
      expect(bot.stdout()).not.toContain(fake.token);
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
    const rejected = await spawnCli(["bot", "matrix"], { ...env, MATRIX_ACCESS_TOKEN: "syt_revoked_token_value" }, { timeoutMs: 30_000 }).exited;
    expect({ code: rejected.code, fatal: rejected.stdout.match(/"level":"fatal".*"msg":"([^"]+)"/u)?.[1] }).toEqual({
      code: 78,
      fatal: expect.stringContaining("matrix: the access token was rejected (M_UNKNOWN_TOKEN)"),
    });
    expect(rejected.stdout).not.toContain("syt_revoked_token_value");
    await Promise.all([fake.close(), gateway.close()]);
  });
});
