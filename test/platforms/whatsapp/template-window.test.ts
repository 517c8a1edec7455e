/**
 * Issue 37 §10, the 24-hour window with WHATSAPP_TEMPLATE: the template goes out, and the question waits for the
 * person's reply in the `waiting` target state (not failed by the delivery watch); when they write, the prompt
 * follows, and their first message is no answer. The compiled bot, a real gateway with a 2-second delivery timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { startWhatsAppBotProcess, type WhatsAppBotProcess } from "./bot-process-kit.ts";

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };
const DELIVERY_TIMEOUT_SECONDS = 2;

describe("whatsapp: a template sent, the question waits for the person's reply (issue 37 §10)", { timeout: 90_000 }, () => {
  let p: WhatsAppBotProcess;
  beforeAll(async () => {
    p = await startWhatsAppBotProcess({ env: { WHATSAPP_TEMPLATE: "ask_user_waiting:en_US" }, gateway: { DELIVERY_TIMEOUT_SECONDS } });
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it.each([
    ["refused at once (131047)", "15550003201", false],
    ["taken, then refused in a status webhook (131047)", "15550003202", true],
  ])("%s: waiting past the delivery timeout, then the prompt follows their Hello, which answers nothing", async (_, chat, refusedLater) => {
    p.fake.closeWindow(chat, true, { refusedLater });
    const { id } = await rpcOk(p.gateway.url, "question.request", { questions: [single], targets: [{ surface: "whatsapp", chat }] });
    await waitUntil(() => p.fake.botMessages(chat).find((m) => m.type === "template"), "the template");
    await sleep(DELIVERY_TIMEOUT_SECONDS * 2_000 + 500); // well past the delivery timeout
    const waiting = await rpcOk(p.gateway.url, "question.get", { id });
    expect(waiting.status).toBe("pending");
    if (!refusedLater) {
      expect(waiting.targetStates).toEqual([expect.objectContaining({ surface: "whatsapp", chat, state: "waiting", reason: expect.stringMatching(/template ask_user_waiting.*follows their reply/u) })]);
    }
    await p.fake.type(chat, "Ada", "Hello");
    const list = await waitUntil(() => p.fake.botMessages(chat).find((m) => m.type === "interactive"), "the prompt after their reply");
    await sleep(500);
    const after = await rpcOk(p.gateway.url, "question.get", { id });
    expect(after.status).toBe("pending"); // "Hello" answered nothing
    expect(after.targetStates).toBeUndefined();
    expect(after.deliveries).toEqual([expect.objectContaining({ surface: "whatsapp", chat })]);
    await p.fake.select(chat, "Ada", list, 1);
    expect(await rpcOk(p.gateway.url, "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    expect(p.fake.botMessages(chat).filter((m) => m.type === "template")).toHaveLength(1);
  });
});
