/**
 * Issue 37 §5, replays: a signed webhook body is valid for ever, so the bot must judge a message by its `timestamp`.
 * One older than 10 minutes on arrival, or older than the prompt of the question it would answer, answers nothing;
 * the gateway remembers message ids for as long as a reply could count. The compiled bot, a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { startWhatsAppBotProcess, type WhatsAppBotProcess } from "./bot-process-kit.ts";

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };
const chat = "15550003101";
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("whatsapp: a replayed webhook body (issue 37 §5)", { timeout: 90_000 }, () => {
  let p: WhatsAppBotProcess;
  beforeAll(async () => {
    p = await startWhatsAppBotProcess();
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  async function ask(): Promise<{ id: string; listId: string }> {
    const { id } = await rpcOk(p.gateway.url, "question.request", { questions: [single], targets: [{ surface: "whatsapp", chat }] });
    const list = await waitUntil(() => p.fake.botMessages(chat).find((m) => m.type === "interactive" && m.rows.some((r) => r.id.includes(`|${id}|`))), "the list message");
    await waitUntil(async () => (await rpcOk(p.gateway.url, "question.get", { id })).deliveries.length > 0 || undefined, "the delivery recorded");
    return { id, listId: list.id };
  }

  /** Posts a signed body with one text message from the person, as Meta would (or as someone replaying a capture). */
  async function post(message: { id: string; text: string; timestamp: number }): Promise<void> {
    const body = p.fake.webhookBody(chat, "Ada", { id: message.id, type: "text", text: { body: message.text }, timestamp: String(message.timestamp) });
    expect((await p.fake.post(body)).status).toBe(200); // signed: the webhook takes it
  }

  it("a capture replayed after the 48-hour reply-key window (a message from two days ago) does not answer a new question in that chat", async () => {
    const earlier = await ask();
    const sent = await p.fake.type(chat, "Ada", "2");
    expect(await rpcOk(p.gateway.url, "question.waitAnswer", { id: earlier.id, timeoutMs: 8_000 })).toMatchObject({ status: "answered" });
    const { id } = await ask();
    // The capture, 49 hours later: the gateway pruned its reply key at 48 h, so its message id is one the gateway
    // no longer knows (a fresh id stands for it here); the body and its timestamp are the capture's.
    const before = p.fake.botMessages(chat).length;
    await post({ id: `${sent.id}-pruned`, text: "2", timestamp: nowSeconds() - 49 * 60 * 60 });
    await sleep(1_500);
    expect((await rpcOk(p.gateway.url, "question.get", { id })).status).toBe("pending");
    expect(p.fake.botMessages(chat).slice(before)).toEqual([]); // nothing said about it either
    // The person's own answer, now, is taken.
    await p.fake.type(chat, "Ada", "1");
    expect(await rpcOk(p.gateway.url, "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Staging"] } } });
  });

  it("a message older than the question's prompt in that chat answers nothing, even within 10 minutes", async () => {
    const { id } = await ask();
    // Written two minutes ago, before the prompt went out (chatter then, or a capture of it): never this answer.
    await post({ id: "wamid.FROM-BEFORE-THE-PROMPT", text: "2", timestamp: nowSeconds() - 120 });
    await sleep(1_500);
    expect((await rpcOk(p.gateway.url, "question.get", { id })).status).toBe("pending");
    await post({ id: "wamid.AFTER-THE-PROMPT", text: "2", timestamp: nowSeconds() });
    expect(await rpcOk(p.gateway.url, "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
  });
});
