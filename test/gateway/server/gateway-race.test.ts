/**
 * The first resolution wins, atomically: 50 concurrent question.resolve calls on one question, from several
 * WebSocket connections and the HTTP mirror, give exactly one success and 49 QUESTION_ALREADY_TERMINAL.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { cleanup, oneQuestion, RawWs, rpc, startTestGateway, type ResFrame, type TestGateway } from "../../helpers/gateway.ts";

let gateway: TestGateway;
let sockets: RawWs[] = [];
beforeAll(async () => {
  gateway = await startTestGateway();
  sockets = await Promise.all(Array.from({ length: 5 }, () => RawWs.connect(gateway.wsUrl)));
});
afterAll(async () => {
  for (const ws of sockets) ws.close();
  await gateway.close();
  await cleanup();
});

/** The i-th of 50 attempts: answers and cancels, over five sockets and HTTP. */
function attempt(id: string, i: number): { via: string; params: Record<string, unknown> } {
  const params =
    i % 3 === 0
      ? { id, cancel: true, reason: i % 2 ? "skipped" : "cancelled", by: { surface: "api", user: `u${i}`, via: "api" } }
      : { id, answers: { deploy_target: i % 2 ? "Production" : "Staging (Recommended)" }, by: { surface: "web", user: `u${i}`, via: "web" } };
  return { via: i % 2 === 0 ? `ws${(i / 2) % sockets.length}` : "http", params };
}

async function send(via: string, params: Record<string, unknown>): Promise<ResFrame> {
  if (via === "http") {
    const res = await rpc(gateway.url, "question.resolve", params);
    expect(res.status).toBe(res.body.ok ? 200 : 409);
    return res.body;
  }
  return sockets[Number(via.slice(2))]!.request("question.resolve", params);
}

it.each([1, 2, 3])("50 concurrent resolves: exactly one wins (round %i)", async () => {
  const { id } = await sockets[0]!.ok("question.request", oneQuestion());
  const listener = await RawWs.connect(gateway.wsUrl);
  const attempts = Array.from({ length: 50 }, (_, i) => attempt(id, i));
  const results = await Promise.all(attempts.map(({ via, params }) => send(via, params)));

  const wins = results.flatMap((r, i) => (r.ok ? [{ record: r.payload, attempt: attempts[i]! }] : []));
  const losses = results.filter((r): r is Extract<ResFrame, { ok: false }> => !r.ok);
  expect(wins).toHaveLength(1);
  expect(losses).toHaveLength(49);
  for (const loss of losses) expect(loss.error.code).toBe("QUESTION_ALREADY_TERMINAL");
  expect(new Set(attempts.map((a) => a.via)).size).toBe(6);

  // The stored record is the winner's, and only one question.resolved event went out.
  const winner = wins[0]!;
  const stored = (await rpc(gateway.url, "question.get", { id })).body;
  expect(stored).toMatchObject({ ok: true, payload: winner.record });
  expect(winner.record.by.user).toBe((winner.attempt.params.by as { user: string }).user);
  await listener.ok("question.list", { limit: 1 }); // a round trip on the listener, so any stray event has arrived
  expect(listener.events.filter((e) => e.event === "question.resolved" && e.payload.id === id)).toHaveLength(1);
  listener.close();
});
