/**
 * Issue 30 §3, a chat target with no bot connected: the gateway says so at once (`targetStates` `waiting`, "no
 * Telegram bot is connected") in question.get, the events, the SDK's onUpdate and `ask`'s progress, and keeps the
 * delivery watch: a bot that starts late delivers, and the state is gone. A bot declares its surface on `connect`
 * (the bridge does it on every connection); a bot-scoped credential counts by its own surface.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGateway, type GatewayClient } from "../../../src/client/index.ts";
import { askUser } from "../../../src/client/sdk.ts";
import { createAskProgress } from "../../../src/cli/ask-progress.ts";
import { hashToken, newScopedToken } from "../../../src/gateway/auth/principal.ts";
import type { QuestionRecord } from "../../../src/record/record.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import type { RunningBot } from "../../../bots/shared.ts";
import { cleanup, oneQuestion, RawWs, startTestGateway, TOKEN, type TestGateway } from "../../helpers/gateway.ts";
import { startMemoryBot } from "../../platforms/memory/bot.ts";
import { createMemoryPlatform } from "../../platforms/memory/fake-api.ts";
import { waitUntil } from "../../scenarios/tools.ts";

let gateway: TestGateway;
let client: GatewayClient;
beforeAll(async () => {
  gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
  client = await connectGateway({ url: gateway.url, token: TOKEN });
});
afterAll(async () => {
  client.close();
  await gateway.close();
  await cleanup();
});

const telegram = (chat: string) => ({ surface: "telegram" as const, chat });
const waiting = (chat: string) => expect.objectContaining({ surface: "telegram", chat, state: "waiting", reason: "no Telegram bot is connected" });
const scopedToken = async (role: string) => {
  const { id, token } = newScopedToken();
  await gateway.credentials.add({ id, name: role, role: role as never, createdAtMs: Date.now() }, hashToken(token));
  return token;
};
const startBot = () => startMemoryBot(createMemoryPlatform(), loadConfig({ GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN }), ["101"]);

describe("a chat target with no bot connected", () => {
  it("is waiting at once, in question.get and in the events; web and other surfaces' targets are not", async () => {
    const ws = await RawWs.connect(gateway.wsUrl);
    const { id } = await ws.ok("question.request", oneQuestion({ targets: [telegram("1"), { surface: "web" }] }));
    const record = await ws.ok("question.get", { id });
    expect(record).toMatchObject({ status: "pending", targetStates: [waiting("1")] });
    expect(record.targetStates).toHaveLength(1);
    const requested = await ws.waitFor(() => ws.events.find((e) => e.event === "question.requested" && e.payload.id === id), 5_000, "question.requested");
    expect(requested.payload.targetStates).toEqual([waiting("1")]);
    const updated = await ws.waitFor(() => ws.events.find((e) => e.event === "question.updated" && e.payload.id === id), 5_000, "question.updated");
    expect(updated.payload.targetStates).toEqual([waiting("1")]);
    await ws.ok("question.resolve", { id, cancel: true });
    ws.close();
  });

  it("the SDK's onUpdate hears it at once, and `ask`'s progress prints it at once", async () => {
    const lines: string[] = [];
    const progress = createAskProgress({ client, gatewayUrl: gateway.url, err: (line) => lines.push(line) });
    const updates: QuestionRecord[] = [];
    let asked = "";
    const result = askUser(client, oneQuestion({ timeoutSeconds: 60 }), {
      targets: [telegram("2")],
      onRequested: (question) => {
        asked = question.id;
        progress.onRequested(question);
      },
      onUpdate: (record) => updates.push(record),
    });
    await waitUntil(() => updates.some((r) => r.targetStates?.some((s) => s.state === "waiting")), "onUpdate with the waiting state");
    expect(updates[0]?.targetStates).toEqual([waiting("2")]);
    await waitUntil(() => lines.some((line) => line.startsWith("telegram:2:")), "the progress line");
    expect(lines).toContain("telegram:2: no Telegram bot is connected; waiting for one to start");
    await client.resolve({ id: asked, cancel: true });
    await result;
    progress.stop();
  });

  it("a bot that starts late delivers it, and the waiting state is gone; the question is still pending", async () => {
    const { id } = await client.request(oneQuestion({ timeoutSeconds: 60, targets: [telegram("-1001")] }));
    expect((await client.get(id)).targetStates).toEqual([waiting("-1001")]);
    const bot: RunningBot = await startBot();
    try {
      await waitUntil(async () => (await client.get(id)).deliveries.length > 0, "the late bot's copy");
      const record = await client.get(id);
      expect(record.status).toBe("pending");
      expect(record.targetStates).toBeUndefined();
      // A question asked now, while the bot is connected, never waits.
      const next = await client.request(oneQuestion({ timeoutSeconds: 60, targets: [telegram("-1002")] }));
      const fresh = await client.get(next.id);
      expect(fresh.targetStates?.some((s) => s.state === "waiting")).not.toBe(true);
      await client.resolve({ id: next.id, cancel: true });
    } finally {
      await client.resolve({ id, cancel: true }).catch(() => undefined);
      await bot.stop();
    }
    // The bot went: a new question waits again.
    await waitUntil(async () => {
      const again = await client.request(oneQuestion({ timeoutSeconds: 60, targets: [telegram("-1003")] }));
      const states = (await client.get(again.id)).targetStates;
      await client.resolve({ id: again.id, cancel: true });
      return states?.[0]?.state === "waiting";
    }, "waiting again once the bot stopped");
  });

  it("a bot's claim clears it (the bot is there after all), and a claim of a reminder copy does not", async () => {
    const ws = await RawWs.connect(gateway.wsUrl);
    const { id } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 60, reminders: [20], targets: [telegram("3"), telegram("4")] }));
    await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "4", claimant: "bot-x", copy: "reminder:20" }).catch(() => undefined);
    expect((await ws.ok("question.get", { id })).targetStates).toEqual([waiting("3"), waiting("4")]);
    expect(await ws.ok("question.claimDelivery", { id, surface: "telegram", chat: "3", claimant: "bot-x" })).toMatchObject({ ok: true });
    const after = await ws.ok("question.get", { id });
    expect(after.targetStates).toEqual([waiting("4")]);
    await ws.waitFor(() => ws.events.find((e) => e.event === "question.updated" && e.payload.id === id && e.payload.targetStates?.length === 1), 5_000, "the update");
    await ws.ok("question.resolve", { id, cancel: true });
    ws.close();
  });

  it("never overwrites a bot's retrying or failed report, and a report replaces it", async () => {
    const ws = await RawWs.connect(gateway.wsUrl);
    const { id } = await ws.ok("question.request", oneQuestion({ timeoutSeconds: 60, targets: [telegram("5"), telegram("6")] }));
    const retrying = await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "5", reason: "502 Bad Gateway", permanent: false });
    expect(retrying.targetStates).toEqual([expect.objectContaining({ chat: "5", state: "retrying" }), waiting("6")]);
    const failed = await ws.ok("question.deliveryFailed", { id, surface: "telegram", chat: "6", reason: "chat not found" });
    expect(failed.status).toBe("pending"); // chat 5 may still get it
    expect(failed.targetStates).toEqual([expect.objectContaining({ chat: "5", state: "retrying" }), expect.objectContaining({ chat: "6", state: "failed" })]);
    await ws.ok("question.resolve", { id, cancel: true });
    ws.close();
  });

  it("the delivery watch still runs: with no bot ever, the question ends delivery_failed naming the cause", async () => {
    const quick = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 1 });
    try {
      const ws = await RawWs.connect(quick.wsUrl);
      const { id } = await ws.ok("question.request", oneQuestion({ targets: [telegram("7")] }));
      const outcome = await ws.ok("question.waitAnswer", { id, timeoutMs: 10_000 });
      expect(outcome).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining("telegram:7: waiting: no Telegram bot is connected") });
      ws.close();
    } finally {
      await quick.close();
    }
  });
});

describe("a bot declares its surface on connect", () => {
  it("a connection on the admin token that declares telegram counts as a Telegram bot while it stays", async () => {
    const bot = await RawWs.connect(gateway.wsUrl);
    expect(await bot.ok("connect", { token: TOKEN, surface: "telegram" })).toEqual({ ok: true });
    const { id } = await client.request(oneQuestion({ timeoutSeconds: 60, targets: [telegram("8")] }));
    expect((await client.get(id)).targetStates).toBeUndefined();
    bot.close();
    await waitUntil(async () => {
      const again = await client.request(oneQuestion({ timeoutSeconds: 60, targets: [telegram("9")] }));
      const states = (await client.get(again.id)).targetStates;
      await client.resolve({ id: again.id, cancel: true });
      return states?.[0]?.state === "waiting";
    }, "waiting once the declared bot is gone");
    await client.resolve({ id, cancel: true });
  });

  it("a bot-scoped credential counts by its own surface, with or without declaring it", async () => {
    const bot = await RawWs.connect(gateway.wsUrl, await scopedToken("bot:telegram"));
    const { id } = await client.request(oneQuestion({ timeoutSeconds: 60, targets: [telegram("10"), { surface: "slack", chat: "C1" }] }));
    expect((await client.get(id)).targetStates).toEqual([expect.objectContaining({ surface: "slack", chat: "C1", state: "waiting", reason: "no Slack bot is connected" })]);
    await client.resolve({ id, cancel: true });
    bot.close();
  });

  it("refuses a surface that is no chat platform, another bot's surface, and a declaration by a caller that is not a bot", async () => {
    const ws = await RawWs.open(gateway.wsUrl);
    for (const surface of ["web", "TELEGRAM", "", 7, null, { name: "telegram" }, "x".repeat(200)]) {
      const res = await ws.request("connect", { token: TOKEN, surface });
      expect(res).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS", issues: [{ path: "surface" }] } });
    }
    // Still unauthenticated and open: a valid connect goes through.
    expect(await ws.ok("connect", { token: TOKEN, surface: "slack" })).toEqual({ ok: true });
    ws.close();

    const slackToken = await scopedToken("bot:slack");
    const declared = await RawWs.open(gateway.wsUrl);
    expect(await declared.request("connect", { token: slackToken, surface: "telegram" })).toMatchObject({
      ok: false,
      error: { code: "FORBIDDEN", message: "this credential is the slack bot's, not the telegram bot's" },
    });
    // Refused before it authenticated: the connection is still unauthenticated.
    expect(await declared.request("question.list", {})).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
    expect(await declared.ok("connect", { token: slackToken, surface: "slack" })).toEqual({ ok: true });
    // Authenticated as the Slack bot, it cannot declare Telegram afterwards either.
    expect(await declared.request("connect", { token: slackToken, surface: "telegram" })).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    declared.close();
    const agent = await RawWs.open(gateway.wsUrl);
    expect(await agent.request("connect", { token: await scopedToken("agent"), surface: "telegram" })).toMatchObject({ ok: false, error: { code: "FORBIDDEN", message: "only a bot's connection declares a surface" } });
    agent.close();
    // None of the refused declarations counts as a Telegram bot.
    const { id } = await client.request(oneQuestion({ timeoutSeconds: 60, targets: [telegram("11")] }));
    expect((await client.get(id)).targetStates).toEqual([waiting("11")]);
    await client.resolve({ id, cancel: true });
  });
});
