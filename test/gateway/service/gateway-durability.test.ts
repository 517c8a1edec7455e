/**
 * Durability: `ask-user-bridge gateway` as a child process with a temp DATA_DIR. Create 200 questions, resolve 50,
 * kill -9 it, start it again on the same DATA_DIR: all 200 are there, unchanged, and the short ones whose expiry
 * passed while it was down are `expired`.
 */
import { afterAll, expect, it } from "vitest";
import { cleanup, freePort, oneQuestion, RawWs, rpc, sleep, spawnGateway, tempDir, twoQuestions } from "../../helpers/gateway.ts";

afterAll(cleanup);

type Rec = Record<string, any> & { id: string; status: string; expiresAtMs: number };

const TOTAL = 200;
const SHORT = 30;
const SHORT_TIMEOUT_S = 2;

it("keeps every record across kill -9, and expires at start-up what passed its expiry while down", async () => {
  const port = await freePort();
  const env = { GATEWAY_PORT: String(port), DATA_DIR: tempDir("aub-durable-"), ASK_TEST_MIN_TIMEOUT_SECONDS: "1", DELIVERY_TIMEOUT_SECONDS: "60" };
  const first = await spawnGateway(env);
  expect(first.url).toBe(`http://127.0.0.1:${port}`); // GATEWAY_HOST unset: loopback only
  const ws = await RawWs.connect(first.wsUrl);

  // 170 long questions (900 s) with a variety of shapes, then 30 short ones (2 s).
  const long: string[] = [];
  for (let i = 0; i < TOTAL - SHORT; i++) {
    const extra = {
      timeoutSeconds: 900,
      ...(i % 4 === 0 ? { runId: `run_${i % 3}` } : {}),
      ...(i % 5 === 0 ? { sessionKey: `session_${i}` } : {}),
      ...(i % 6 === 0 ? { targets: [{ surface: "telegram", chat: `${1000 + i}`, users: ["42", "77"] }, { surface: "web" }] } : {}),
    };
    const { id } = await ws.ok("question.request", i % 2 ? twoQuestions(extra) : oneQuestion(extra));
    if (i % 6 === 0) await ws.ok("question.delivered", { id, surface: "telegram", chat: `${1000 + i}`, messageRef: `${1000 + i}:${i}` });
    long.push(id);
  }

  // Resolve 50 (45 long ones now, 5 short ones below): answers, and cancels with each reason.
  let n = 0;
  const resolve = async (id: string) => {
    const record: Rec = await ws.ok("question.get", { id });
    const multi = record.questions.length === 2;
    if (n % 4 === 3) await ws.ok("question.resolve", { id, cancel: true, reason: ["skipped", "cancelled", "aborted"][n % 3], by: { surface: "cli", via: "api" } });
    else
      await ws.ok("question.resolve", {
        id,
        answers: multi ? { env: n % 2 ? "production" : "Staging", checks: ["Lint", `own words ${n}`] } : { deploy_target: n % 2 ? "Production" : `deploy to canary ${n}` },
        by: { surface: "telegram", user: `${n}`, userName: `Person ${n}`, chat: "1000", via: n % 2 ? "button" : "text" },
      });
    n++;
  };
  for (const id of long.slice(0, 45)) await resolve(id);

  const shortStarted = Date.now();
  const short: string[] = [];
  for (let i = 0; i < SHORT; i++) short.push((await ws.ok("question.request", oneQuestion({ timeoutSeconds: SHORT_TIMEOUT_S, runId: "short" }))).id);
  for (const id of short.slice(0, 5)) await resolve(id);

  const before: Rec[] = (await ws.ok("question.list", { limit: 10_000 })).questions;
  ws.close();
  expect(before).toHaveLength(TOTAL);
  expect(before.filter((r) => r.status !== "pending")).toHaveLength(50);
  const counts = (records: Rec[]) => records.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
  expect(counts(before)).toEqual({ pending: 150, answered: 38, cancelled: 12 });

  await first.kill("SIGKILL");
  expect(first.run.child.signalCode).toBe("SIGKILL");
  // The short pending questions were still pending when the gateway died, or the test would prove nothing.
  expect(Date.now() - shortStarted).toBeLessThan(SHORT_TIMEOUT_S * 1000);

  const shortExpiries = before.filter((r) => short.includes(r.id)).map((r) => r.expiresAtMs);
  await sleep(Math.max(0, Math.max(...shortExpiries) - Date.now()) + 300);

  const second = await spawnGateway(env);
  const restartedAt = Date.now();
  const ws2 = await RawWs.connect(second.wsUrl);
  const after: Rec[] = (await ws2.ok("question.list", { limit: 10_000 })).questions;
  expect(after.map((r) => r.id).sort()).toEqual(before.map((r) => r.id).sort());

  const afterById = new Map(after.map((r) => [r.id, r]));
  let expired = 0;
  for (const old of before) {
    const now = afterById.get(old.id)!;
    if (short.includes(old.id) && old.status === "pending") {
      expired++;
      // Expired with the default late-answer window (LATE_ANSWER_SECONDS, 24 h) open from the expiry.
      expect(now).toEqual({ ...old, status: "expired", reason: "expired", resolvedAtMs: expect.any(Number), lateUntilMs: expect.any(Number) });
      expect(now.lateUntilMs).toBe(now.resolvedAtMs! + 86_400_000);
      expect(now.resolvedAtMs).toBeGreaterThanOrEqual(old.expiresAtMs);
      expect(now.resolvedAtMs).toBeLessThanOrEqual(restartedAt);
    } else {
      expect(now).toEqual(old);
    }
  }
  expect(expired).toBe(SHORT - 5);
  expect(counts(after)).toEqual({ pending: 125, answered: 38, cancelled: 12, expired: 25 });

  // The restarted gateway serves the old records as usual.
  const shortPending = short[SHORT - 1]!;
  expect(await ws2.ok("question.waitAnswer", { id: shortPending, timeoutMs: 1_000 })).toMatchObject({ status: "no_answer", reason: "expired" });
  const stillPending = before.find((r) => r.status === "pending" && !short.includes(r.id) && r.questions.length === 1)!;
  const waiting = ws2.ok("question.waitAnswer", { id: stillPending.id, timeoutMs: 10_000 });
  await ws2.ok("question.resolve", { id: stillPending.id, answers: { deploy_target: "Production" } });
  expect(await waiting).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
  const session = before.find((r) => r.status === "pending" && r.sessionKey)!;
  expect(await ws2.request("question.request", oneQuestion({ sessionKey: session.sessionKey }))).toMatchObject({ ok: false, error: { code: "SESSION_HAS_PENDING_QUESTION" } });

  // A graceful stop with long-polls in flight (WebSocket and HTTP) exits 0 at once.
  const longPoll = before.find((r) => r.status === "pending" && !short.includes(r.id) && r.id !== stillPending.id)!;
  const inFlight = [ws2.request("question.waitAnswer", { id: longPoll.id, timeoutMs: 600_000 }), rpc(second.url, "question.waitAnswer", { id: longPoll.id, timeoutMs: 600_000 })];
  inFlight.forEach((p) => p.catch(() => {}));
  await sleep(100);
  const stopping = Date.now();
  await second.kill("SIGTERM");
  expect({ code: second.run.child.exitCode, stderr: second.run.stderr() }).toEqual({ code: 0, stderr: "" });
  expect(second.run.stdout()).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/u);
  expect(Date.now() - stopping).toBeLessThan(2_000);
  ws2.close();
}, 90_000); // two child processes: ~1 s each to start on an idle machine, far more on a loaded one
