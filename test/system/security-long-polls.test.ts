/**
 * Issue 37 §7, against the gateway as a child process (`ask-user-bridge gateway`): one agent token held 2,000 HTTP
 * `question.waitAnswer` long-polls, none of them counted by GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL, which held its
 * sockets only. Now a long-poll over `POST /rpc` (`question.waitAnswer`, `question.request` with `waitMs`) takes one
 * of its credential's places while it waits, with the credential's sockets: past the cap it gets 429 (the socket
 * gets 503 at the upgrade, or 4429 after a connect frame), and it gives its place back when it ends, however it ends
 * (an answer, or the client going away).
 */
import { request, type ClientRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, freePort, oneQuestion, RawWs, rpc, sleep, spawnCli, spawnGateway, tempDir, TOKEN, type ChildGateway, type ResFrame } from "../helpers/gateway.ts";
import { until } from "./system-harness.ts";

const CAP = 5;
const ATTEMPTS = 2_000;

afterAll(cleanup);

interface LongPoll {
  req: ClientRequest;
  /** Settles with the response; stays pending while the gateway holds the poll. */
  done: Promise<{ status: number; body: ResFrame }>;
  settled: boolean;
}

/** POST /rpc/<method> on a connection of its own, left open until the gateway answers or `req.destroy()`. */
function longPoll(gateway: ChildGateway, token: string, method: string, params: unknown): LongPoll {
  const url = new URL(gateway.url);
  const poll = { settled: false } as LongPoll;
  poll.done = new Promise((resolve) => {
    poll.req = request(
      { host: url.hostname, port: url.port, path: `/rpc/${method}`, method: "POST", agent: false, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } },
      (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => {
          poll.settled = true;
          resolve({ status: res.statusCode!, body: JSON.parse(body) as ResFrame });
        });
      },
    );
    // This side went away (req.destroy()): the poll is over.
    poll.req.on("error", () => {
      poll.settled = true;
      resolve({ status: 0, body: { type: "res", id: null, ok: false, error: { code: "DISCONNECTED", message: "closed here" } } });
    });
    poll.req.end(JSON.stringify(params));
  });
  return poll;
}

const held = (polls: LongPoll[]) => polls.filter((poll) => !poll.settled);

describe("HTTP long-polls count toward GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL", () => {
  let gateway: ChildGateway;
  let agent: string;
  let questionId: string;
  beforeAll(async () => {
    const env = { DATA_DIR: tempDir("aub-polls-"), GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL: String(CAP) };
    gateway = await spawnGateway({ ...env, GATEWAY_PORT: String(await freePort()) });
    const created = await spawnCli(["token", "create", "--role", "agent", "--name", "poller"], env).exited;
    expect(created.code, created.stderr).toBe(0);
    agent = created.stdout.trim();
    const asked = await rpc(gateway.url, "question.request", oneQuestion(), { token: agent });
    if (!asked.body.ok) throw new Error(asked.body.error.message);
    questionId = asked.body.payload.id;
  }, 60_000);
  afterAll(() => gateway?.kill());

  it(`${ATTEMPTS} waitAnswer long-polls from one agent token: ${CAP} are held, the rest refused with 429; its sockets share the cap; places come back when polls end`, async () => {
    // In waves of 250 (the listen backlog is 511: more at once only waits on SYN retries); each wave's polls stay open.
    const polls: LongPoll[] = [];
    for (let wave = 0; wave < ATTEMPTS / 250; wave++) {
      polls.push(...Array.from({ length: 250 }, () => longPoll(gateway, agent, "question.waitAnswer", { id: questionId, timeoutMs: 60_000 })));
      await until(async () => polls.filter((poll) => poll.settled).length === polls.length - CAP, `${polls.length - CAP} long-polls refused`, 30_000);
    }
    const refused = await Promise.all(polls.filter((poll) => poll.settled).map((poll) => poll.done));
    expect(new Set(refused.map((res) => res.status))).toEqual(new Set([429]));
    expect(refused[0]!.body).toMatchObject({ ok: false, error: { code: "QUOTA_EXCEEDED", message: expect.stringMatching(/has 5 connections open, its limit \(GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL\)/) } });
    expect(held(polls)).toHaveLength(CAP);

    // The credential's sockets count with them: no socket now, by the upgrade header or a connect frame.
    await expect(RawWs.open(gateway.wsUrl, { bearer: agent })).rejects.toThrow("upgrade refused: HTTP 503");
    await expect(RawWs.connect(gateway.wsUrl, agent)).rejects.toThrow("connect failed: UNAUTHORIZED");
    // question.request with waitMs is a long-poll too; a short request is not held to the cap.
    const asking = longPoll(gateway, agent, "question.request", { ...oneQuestion(), waitMs: 60_000 });
    expect((await asking.done).status).toBe(429);
    expect((await rpc(gateway.url, "question.list", {}, { token: agent })).status).toBe(200);
    // The admin token has no cap.
    const admin = longPoll(gateway, TOKEN, "question.waitAnswer", { id: questionId, timeoutMs: 60_000 });

    // Two clients go away: their places come back (and only theirs).
    for (const poll of held(polls).slice(0, 2)) poll.req.destroy();
    const again: LongPoll[] = [];
    await until(
      async () => {
        const poll = longPoll(gateway, agent, "question.waitAnswer", { id: questionId, timeoutMs: 60_000 });
        await Promise.race([poll.done, sleep(500)]);
        if (!poll.settled) again.push(poll);
        return again.length === 2;
      },
      "two places back after two clients went away",
      10_000,
    );
    expect((await longPoll(gateway, agent, "question.waitAnswer", { id: questionId, timeoutMs: 60_000 }).done).status).toBe(429);

    // The question is answered (here: cancelled): every poll ends with it, and every place comes back.
    const waiting = [...held(polls), ...again, admin];
    expect(waiting.every((poll) => !poll.settled)).toBe(true);
    const cancelled = await rpc(gateway.url, "question.resolve", { id: questionId, cancel: true });
    expect(cancelled.status).toBe(200);
    const ended = await Promise.all(waiting.map((poll) => poll.done));
    expect(ended.map((res) => res.status)).toEqual(Array(CAP + 1).fill(200));
    const sockets = [];
    for (let i = 0; i < CAP; i++) sockets.push(await RawWs.open(gateway.wsUrl, { bearer: agent }));
    await expect(RawWs.open(gateway.wsUrl, { bearer: agent })).rejects.toThrow("upgrade refused: HTTP 503");
    for (const ws of sockets) ws.close();
  }, 90_000);
});
