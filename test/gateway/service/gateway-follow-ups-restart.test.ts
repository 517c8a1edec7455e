/**
 * Reminders and escalation steps are durable (issue 20): a real gateway process is killed with kill -9 after
 * scheduling them and before they came due. Started again once they are due, it fires each exactly once (the
 * latest reminder due; an earlier one that came due meanwhile is recorded as skipped, so nobody gets two at once;
 * one too close to expiry to help is skipped too), and a second kill -9 and restart fires nothing again.
 */
import { afterAll, expect, it } from "vitest";
import { cleanup, freePort, oneQuestion, RawWs, sleep, spawnGateway, tempDir } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

afterAll(() => cleanup());

it("fires a reminder and an escalation step missed during a kill -9 exactly once after the restart", async () => {
  const port = await freePort();
  const env = { GATEWAY_PORT: String(port), DATA_DIR: tempDir("aub-follow-ups-"), ASK_TEST_MIN_TIMEOUT_SECONDS: "1" };
  const first = await spawnGateway(env);
  let ws = await RawWs.connect(first.wsUrl);
  // Due 2 s and 4 s after asking (22 s and 20 s before expiry); the step after 3 s.
  const main = await ws.ok(
    "question.request",
    oneQuestion({ timeoutSeconds: 24, reminders: [22, 20], escalate: [{ afterSeconds: 3, targets: [{ surface: "slack", chat: "C0123ABCD" }] }] }),
  );
  // Due 1 s after asking, with 7 s left: by the restart (4.6 s) under 3.5 s is left, too little for it to help (it
  // needs half its offset), and the question is still open for a restart that takes up to 3 s on a loaded machine.
  const short = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 8, reminders: [7] }));
  const asked = Date.now();
  expect((await ws.ok("question.get", { id: main.id })).remindersSent).toBeUndefined();
  ws.close();
  await first.kill("SIGKILL");
  expect(Date.now() - asked).toBeLessThan(1_000); // killed before anything came due

  await sleep(Math.max(0, asked + 4_600 - Date.now()));
  const restartedAt = Date.now();
  const second = await spawnGateway(env);
  ws = await RawWs.connect(second.wsUrl);
  const fired = await waitUntil(async () => {
    const record = await ws.ok("question.get", { id: main.id });
    return record.remindersSent && record.escalated ? record : undefined;
  }, "the missed reminder and step");
  expect(fired.remindersSent).toEqual([{ offsetSeconds: 20, atMs: expect.any(Number) }]);
  expect(fired.remindersSkipped).toEqual([{ offsetSeconds: 22, atMs: fired.remindersSent[0].atMs }]);
  expect(fired.remindersSent[0].atMs).toBeGreaterThanOrEqual(restartedAt);
  expect(fired.escalated).toEqual([{ step: 0, afterSeconds: 3, targets: [{ surface: "slack", chat: "C0123ABCD" }], atMs: expect.any(Number) }]);
  expect(fired.targets).toContainEqual({ surface: "slack", chat: "C0123ABCD" });
  const shortRecord = await ws.ok("question.get", { id: short.id });
  expect(shortRecord.remindersSent).toBeUndefined();
  expect(shortRecord.remindersSkipped).toEqual([{ offsetSeconds: 7, atMs: expect.any(Number) }]);
  ws.close();
  await second.kill("SIGKILL");

  const third = await spawnGateway(env);
  ws = await RawWs.connect(third.wsUrl);
  await sleep(300);
  const again = await ws.ok("question.get", { id: main.id });
  expect(again.remindersSent).toEqual(fired.remindersSent);
  expect(again.escalated).toEqual(fired.escalated);
  expect(again.targets).toEqual(fired.targets);
  expect(ws.events.filter((e) => e.event === "question.reminded" || e.event === "question.escalated")).toEqual([]);
  ws.close();
  await third.kill("SIGKILL");
}, 60_000);
