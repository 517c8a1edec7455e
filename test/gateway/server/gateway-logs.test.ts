import { afterAll, describe, expect, it } from "vitest";
import { cleanup, freePort, oneQuestion, rpcOk, spawnGateway, tempDir, type ChildGateway } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

/** The JSON log lines a process wrote to stdout (other lines, like the start-up banner, are skipped). */
function logLines(gateway: ChildGateway): Array<Record<string, unknown>> {
  return gateway.run
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const start = async (env: Record<string, string> = {}) =>
  spawnGateway({ DATA_DIR: tempDir(), GATEWAY_PORT: String(await freePort()), DELIVERY_TIMEOUT_SECONDS: "30", ...env });

describe("gateway logs (issue 19 §1)", () => {
  afterAll(cleanup);

  it("writes one JSON line per lifecycle step, named gateway, with no question or answer text at info", async () => {
    const gateway = await start();
    const { id } = await rpcOk(gateway.url, "question.request", { ...oneQuestion(), targets: [{ surface: "telegram", chat: "42" }] });
    await rpcOk(gateway.url, "question.deliveryFailed", { id, surface: "telegram", chat: "42", reason: "502 Bad Gateway", permanent: false, retryAtMs: Date.now() + 1000 });
    await rpcOk(gateway.url, "question.delivered", { id, surface: "telegram", chat: "42", messageRef: "7" });
    await rpcOk(gateway.url, "question.resolve", { id, answers: { deploy_target: ["Production"] }, by: { surface: "telegram", chat: "42", user: "1", via: "button" } });
    const lines = await waitUntil(() => {
      const all = logLines(gateway);
      return all.some((l) => l.msg === "resolved") ? all : undefined;
    }, "a resolved line");
    // No bot is connected (the test reports by hand): said once, at once, then the bot-like reports follow.
    const mine = lines.filter((l) => l.id === id);
    expect(mine.map((l) => l.msg)).toEqual(["asked", "no bot connected; waiting for one", "send failed; retrying", "delivered", "resolved"]);
    expect(mine.splice(1, 1)[0]).toMatchObject({ level: "warn", surface: "telegram", chat: "42", state: "waiting", error: "no Telegram bot is connected" });
    for (const line of mine) expect(line).toMatchObject({ name: "gateway", pid: expect.any(Number), time: expect.any(String), level: expect.any(String) });
    expect(mine[0]).toMatchObject({ level: "info", targets: ["telegram:42"], questions: 1 });
    expect(mine[1]).toMatchObject({ level: "warn", surface: "telegram", chat: "42", error: "502 Bad Gateway", state: "retrying" });
    expect(mine[2]).toMatchObject({ level: "info", surface: "telegram", chat: "42", ms: expect.any(Number) });
    expect(mine[3]).toMatchObject({ level: "info", status: "answered", surface: "telegram", via: "button", ms: expect.any(Number) });
    const text = gateway.run.stdout();
    expect(text).not.toContain("Where should I deploy?");
    expect(text).not.toContain("Production");
    await gateway.kill("SIGTERM");
  });

  it("adds question and answer text at LOG_LEVEL=debug, and never the token", async () => {
    const gateway = await start({ LOG_LEVEL: "debug" });
    const { id } = await rpcOk(gateway.url, "question.request", oneQuestion());
    await rpcOk(gateway.url, "question.resolve", { id, answers: { deploy_target: ["Production"] } });
    await waitUntil(() => logLines(gateway).find((l) => l.msg === "resolved: answers"), "the debug answers line");
    expect(gateway.run.stdout()).toContain("Where should I deploy?");
    expect(gateway.run.stdout()).not.toContain("x".repeat(32));
    await gateway.kill("SIGTERM");
  });

  it("logs a reminder, an escalation step and a late answer once each, with no answer text at info (issue 20)", async () => {
    const gateway = await start({ ASK_TEST_MIN_TIMEOUT_SECONDS: "1" });
    const { id } = await rpcOk(gateway.url, "question.request", {
      ...oneQuestion({ timeoutSeconds: 3, reminders: [1], lateAnswerSeconds: 1 }),
      targets: [{ surface: "telegram", chat: "42" }],
      escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C1" }] }],
    });
    await rpcOk(gateway.url, "question.delivered", { id, surface: "telegram", chat: "42", messageRef: "7" });
    await waitUntil(() => logLines(gateway).find((l) => l.id === id && l.msg === "resolved"), "the expiry", 8_000);
    await rpcOk(gateway.url, "question.resolve", { id, answers: { deploy_target: ["Production"] }, by: { surface: "slack", chat: "C1", user: "1", via: "button" } });
    await waitUntil(() => logLines(gateway).find((l) => l.id === id && l.msg === "answered late"), "the late answer");
    await new Promise((r) => setTimeout(r, 1_500)); // past the late window's end (announced; nothing new to log)
    const all = logLines(gateway).filter((l) => l.id === id);
    // No bot is connected: the first target and the escalation step's each say so once (the step's as it is taken).
    const waiting = all.filter((l) => l.msg === "no bot connected; waiting for one");
    expect(waiting.map((l) => `${l.surface}:${l.chat}`)).toEqual(["telegram:42", "slack:C1"]);
    const mine = all.filter((l) => l.msg !== "no bot connected; waiting for one");
    expect(mine.map((l) => l.msg)).toEqual(["asked", "delivered", "escalated", "reminded", "resolved", "answered late"]);
    expect(mine[2]).toMatchObject({ step: 0, targets: ["slack:C1"] });
    expect(mine[3]).toMatchObject({ offsetSeconds: 1 });
    expect(mine[5]).toMatchObject({ level: "info", surface: "slack", via: "button" });
    expect(gateway.run.stdout()).not.toContain("Production");
    await gateway.kill("SIGTERM");
  });

  it("refuses an unknown LOG_LEVEL at start with the list", async () => {
    await expect(start({ LOG_LEVEL: "loud" })).rejects.toThrow(/LOG_LEVEL.*fatal, error, warn, info, debug, trace, silent/su);
  });
});
