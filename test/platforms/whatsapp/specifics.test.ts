/**
 * Issue 37 §5, replays: a signed webhook body is valid for ever, so the bot must judge a message by its `timestamp`.
 * One older than 10 minutes on arrival, or older than the prompt of the question it would answer, answers nothing;
 * the gateway remembers message ids for as long as a reply could count. The compiled bot, a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { waitUntil, scenarioTools } from "../../scenarios/tools.ts";
import { startWhatsAppBotProcess, type WhatsAppBotProcess } from "./bot-process-kit.ts";
import { createHmac } from "node:crypto";
import { renderWhatsAppPrompt } from "../../../src/platforms/whatsapp/payload.ts";
import { decodeWhatsAppRowId } from "../../../src/platforms/whatsapp/callback-data.ts";
import { WHATSAPP_ROW_TITLE_MAX, WHATSAPP_ROW_DESCRIPTION_MAX } from "../../../src/platforms/whatsapp/platform.ts";
import { toWhatsAppText } from "../../../src/platforms/whatsapp/escaping.ts";
import { createWhatsAppHarness, WA, type WhatsAppHarness } from "./harness.ts";
import type { QuestionRecord } from "../../../src/record/record.ts";

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

const deployQuestion = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};

describe("whatsapp: the list message", () => {
  const record = (options: Array<{ label: string; description?: string }>) =>
    ({ id: "q1", status: "pending", questions: [{ id: "x", header: "H", question: "Q?", multiSelect: false, options }], targets: [], deliveries: [] }) as unknown as QuestionRecord;

  it("one row per option, then Other… and Skip; ids carry the question and option index, never the text", () => {
    const message = renderWhatsAppPrompt(record([{ label: "Staging", description: "safe" }, { label: "Production" }]));
    expect(message.type).toBe("interactive");
    if (message.type !== "interactive") return;
    const rows = message.interactive.action.sections[0].rows;
    expect(rows.map((r) => r.title)).toEqual(["Staging", "Production", "Other…", "Skip"]);
    expect(rows[0]!.description).toBe("safe");
    expect(rows.map((r) => decodeWhatsAppRowId(r.id))).toEqual([
      { questionId: "q1", action: { kind: "choice", optionIndex: 0 } },
      { questionId: "q1", action: { kind: "choice", optionIndex: 1 } },
      { questionId: "q1", action: { kind: "other" } },
      { questionId: "q1", action: { kind: "skip" } },
    ]);
    expect(rows.some((r) => r.id.includes("Staging"))).toBe(false);
    expect(message.interactive.action.button.length).toBeLessThanOrEqual(20);
  });

  it("a long label keeps 24 characters in the title; its rest and the description go into the row's description, cut at 72", () => {
    const label = "Blue-green deployment across every region";
    const description = "Spins up a full second fleet, shifts traffic gradually, and keeps the old one warm for an hour";
    const message = renderWhatsAppPrompt(record([{ label, description }, { label: "No" }]));
    if (message.type !== "interactive") throw new Error("expected a list");
    const [row] = message.interactive.action.sections[0].rows;
    expect(row!.title.length).toBeLessThanOrEqual(WHATSAPP_ROW_TITLE_MAX);
    expect(row!.title).toMatch(/^Blue-green deployment.*…$/u);
    expect(row!.description!.length).toBeLessThanOrEqual(WHATSAPP_ROW_DESCRIPTION_MAX);
    expect(row!.description).toMatch(/^…cross every region — Spins up/u);
    expect(row!.title.slice(0, -1) + row!.description!.slice(1).split(" — ")[0]).toBe(label);
  });

  it("several questions, or a multi-select, are numbered text", () => {
    const message = renderWhatsAppPrompt({ ...record([{ label: "A" }, { label: "B" }]), questions: [{ id: "x", header: "H", question: "Q?", multiSelect: true, options: [{ label: "A" }, { label: "B" }] }] } as unknown as QuestionRecord);
    expect(message).toMatchObject({ type: "text", text: { preview_url: false } });
    if (message.type === "text") expect(message.text.body).toMatch(/1\. A\n2\. B/u);
  });

  it("formatting markers are defused", () => {
    expect(toWhatsAppText("*bold* _it_ ~s~ `c`\n> quote")).not.toMatch(/\*bold\*|_it_|~s~|`c`|^>/mu);
  });
});

describe("whatsapp: specifics", () => {
  let h: WhatsAppHarness;
  beforeAll(async () => {
    h = await createWhatsAppHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const ask = async (chat = h.chat, extra: Record<string, unknown> = {}) =>
    (await rpcOk(h.gatewayUrl(), "question.request", { questions: [deployQuestion], targets: [{ surface: "whatsapp", chat }], ...extra })).id as string;
  const { promptOf, result, status } = scenarioTools(() => h);

  it("the GET handshake answers the challenge for the right verify token, and 403 for a wrong one", async () => {
    const url = (token: string) => `${h.webhookUrl}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`;
    const ok = await fetch(url(WA.verifyToken));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    expect((await fetch(url("wrong"))).status).toBe(403);
    expect((await fetch(`${h.webhookUrl}?hub.mode=unsubscribe&hub.verify_token=${WA.verifyToken}&hub.challenge=1`)).status).toBe(403);
  });

  it("a POST with a bad or missing signature is refused and changes nothing; a signed malformed body is answered without a crash", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    const list = h.fake.message(copy.ref)!;
    const forged = h.fake.webhookBody(h.person.id, "Ada", { id: "wamid.FORGED1", type: "interactive", interactive: { type: "list_reply", list_reply: { id: list.rows[1]!.id } } });
    expect((await h.fake.post(forged, "not-the-app-secret")).status).toBe(401);
    expect((await h.fake.post(forged, null)).status).toBe(401);
    await sleep(300);
    expect(await status(id)).toBe("pending");
    // Signed, but not JSON: 400. Signed JSON of the wrong shape: 200, skipped. Then a good entry after a bad one in the same body.
    expect((await h.fake.post("{not json")).status).toBe(400);
    expect((await h.fake.post({ object: "whatsapp_business_account", entry: [{ changes: [{ field: "messages", value: { messages: [{ nonsense: true }] } }] }] })).status).toBe(200);
    const good = h.fake.webhookBody(h.person.id, "Ada", { id: "wamid.GOOD1", type: "interactive", interactive: { type: "list_reply", list_reply: { id: list.rows[1]!.id } }, context: { id: list.id } });
    const mixed = { ...good, entry: [{ id: "x", changes: [{ field: "messages", value: { metadata: { phone_number_id: WA.phoneNumberId }, messages: [null, { from: 12 }] } }, ...good.entry[0]!.changes] }] };
    const raw = JSON.stringify(mixed);
    const res = await fetch(h.webhookUrl, { method: "POST", headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${createHmac("sha256", WA.appSecret).update(raw).digest("hex")}` }, body: raw });
    expect(res.status).toBe(200);
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
  });

  it("no edits: the prompt stays as sent, a summary reply quotes it, and a stale selection gets 'already answered'", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    expect(await h.press(copy, 0, h.person)).toBe("Answer submitted.");
    const summary = await waitUntil(() => h.fake.botMessages(h.chat).find((m) => m.replyTo === copy.ref && /✅ Deployment t/u.test(m.text)), "the summary reply");
    expect(summary.type).toBe("text");
    expect(h.fake.message(copy.ref)!.rows).toHaveLength(4); // the list itself is unchanged
    expect(h.fake.calls.filter((c) => c.body.context?.message_id === copy.ref && c.status === 200)).toHaveLength(1);
    expect(await h.press(h.sentCopy!(copy.chat, copy.ref), 1, h.person)).toBe("This question was already answered.");
    expect((await result(id)).answers.answers.deploy_target).toEqual(["Staging (Recommended)"]);
  });

  it("a stranger gets a 🙈 reaction and nothing is recorded, not even a reply", async () => {
    const before = h.fake.botMessages(h.stranger.id).length;
    const sent = await h.type(h.stranger.id, h.stranger, "2");
    await waitUntil(() => sent.reactions().includes("🙈"), "the reaction");
    await sleep(200);
    expect(h.fake.botMessages(h.stranger.id).length).toBe(before);
  });

  it("a credential is refused; the bot cannot delete it, so it says to delete it and rotate it", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    const before = h.botReplies(h.chat).length;
    await h.type(h.chat, h.person, "EAAGm0PX4ZCpsBAKZBxRkZCfGqZBbH7ZAQ8wZDZD0aBcDeFgHiJkLmNoPqRsTuVwXyZ12345", { replyTo: copy });
    const note = await waitUntil(() => h.botReplies(h.chat).slice(before).find((t) => /secrets flow/u.test(t)), "the credential note");
    expect(note).toMatch(/still visible/u);
    expect(note).toMatch(/rotate/u);
    expect(await status(id)).toBe("pending");
    expect(JSON.stringify(await rpcOk(h.gatewayUrl(), "question.get", { id }))).not.toContain("EAAGm0PX4");
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("131056 (one recipient's rate limit) is retried with backoff and the prompt arrives once", async () => {
    h.fake.failNext((body) => body.type === "interactive" && !body.context, 131056, { times: 3 });
    const id = await ask();
    await promptOf(id);
    const refused = h.fake.calls.filter((c) => c.code === 131056);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    const gaps = refused.slice(-3).map((c, i, all) => (i === 0 ? 0 : c.atMs - all[i - 1]!.atMs)).slice(1);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]! * 1.5); // the waits grow
    expect(h.promptSends(id)).toBe(1);
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("outside the 24-hour window without WHATSAPP_TEMPLATE the target fails at once, saying so", async () => {
    h.fake.closeWindow(h.colleague.id);
    try {
      const started = Date.now();
      const id = await ask(h.colleague.id);
      const outcome = await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 });
      expect(outcome.status).toBe("delivery_failed");
      expect(Date.now() - started).toBeLessThan(3_000);
      const record = await rpcOk(h.gatewayUrl(), "question.get", { id });
      expect(record.targetStates).toEqual([expect.objectContaining({ chat: h.colleague.id, state: "failed", reason: expect.stringMatching(/24 hours.*WHATSAPP_TEMPLATE/u) })]);
    } finally {
      h.fake.closeWindow(h.colleague.id, false);
    }
  });

  it("a prompt taken and refused later by a failed status (131047) without WHATSAPP_TEMPLATE: its delivery is withdrawn and the target fails at once", async () => {
    h.fake.closeWindow(h.colleague.id, true, { refusedLater: true });
    try {
      const started = Date.now();
      const id = await ask(h.colleague.id);
      const outcome = await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 });
      expect(outcome).toMatchObject({ status: "delivery_failed", reason: expect.stringMatching(/24 hours.*WHATSAPP_TEMPLATE is unset/u) });
      expect(Date.now() - started).toBeLessThan(5_000); // the report, not the 30 s delivery timeout
      // The Cloud API took the prompt (200, a message id) and refused it only in the status webhook.
      expect(h.fake.calls.filter((c) => c.status === 200 && c.body.to === h.colleague.id && c.body.type === "interactive" && JSON.stringify(c.body).includes(`|${id}|`))).toHaveLength(1);
      const record = await rpcOk(h.gatewayUrl(), "question.get", { id });
      expect(record.deliveries).toEqual([]);
      expect(record.targetStates).toEqual([
        expect.objectContaining({ surface: "whatsapp", chat: h.colleague.id, state: "failed", reason: expect.stringMatching(/has not written to this number in the last 24 hours.*131047.*WHATSAPP_TEMPLATE is unset/u) }),
      ]);
      expect(h.fake.botMessages(h.colleague.id).filter((m) => m.type === "template")).toEqual([]);
    } finally {
      h.fake.closeWindow(h.colleague.id, false);
    }
  });

  it("with two targets, a prompt refused later as undeliverable (131026) fails only that target; the other copy still answers", async () => {
    const unreachable = "15550000103";
    h.fake.undeliverable(unreachable, { later: true, afterMs: 1_000 });
    const { id } = await rpcOk(h.gatewayUrl(), "question.request", { questions: [deployQuestion], targets: [{ surface: "whatsapp", chat: h.person.id }, { surface: "whatsapp", chat: unreachable }] });
    // The Cloud API took both prompts: both copies are recorded as delivered, until the status webhook comes.
    await waitUntil(async () => (await rpcOk(h.gatewayUrl(), "question.get", { id })).deliveries.length === 2 || undefined, "both copies delivered");
    const failed = await waitUntil(async () => {
      const record = await rpcOk(h.gatewayUrl(), "question.get", { id });
      return record.targetStates?.some((s: { state: string }) => s.state === "failed") ? record : undefined;
    }, "the refused target failed");
    expect(failed.status).toBe("pending");
    expect(failed.targetStates).toEqual([expect.objectContaining({ chat: unreachable, state: "failed", reason: expect.stringMatching(/Message undeliverable \(error 131026\)/u) })]);
    expect(failed.deliveries).toEqual([expect.objectContaining({ surface: "whatsapp", chat: h.person.id })]);
    const copy = await promptOf(id);
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    const record = await rpcOk(h.gatewayUrl(), "question.get", { id });
    expect(record.deliveries.map((d: { chat: string }) => d.chat)).toEqual([h.person.id]);
  });
});

describe("whatsapp: the 24-hour window with WHATSAPP_TEMPLATE", () => {
  let h: WhatsAppHarness;
  beforeAll(async () => {
    h = await createWhatsAppHarness({ env: { WHATSAPP_TEMPLATE: "ask_user_waiting:en_US" } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it("the template opens the conversation (the header as its parameter); the prompt follows the person's reply, once", async () => {
    h.fake.closeWindow(h.person.id);
    const { id } = await rpcOk(h.gatewayUrl(), "question.request", { questions: [deployQuestion], targets: [{ surface: "whatsapp", chat: h.person.id }] });
    const template = await waitUntil(() => h.fake.botMessages(h.person.id).find((m) => m.type === "template"), "the template");
    expect(template.template).toEqual({ name: "ask_user_waiting", language: "en_US", parameters: ["Deployment t"] }); // the header, as the record keeps it (12 characters)
    const waiting = await waitUntil(async () => (await rpcOk(h.gatewayUrl(), "question.get", { id })).targetStates?.[0], "the target waiting");
    expect(waiting).toMatchObject({ state: "waiting", reason: expect.stringMatching(/template ask_user_waiting/u) });
    await sleep(1_500); // it waits: neither the template again nor the prompt
    expect(h.fake.botMessages(h.person.id).filter((m) => m.type === "template")).toHaveLength(1);
    expect(h.fake.calls.filter((c) => c.code === 131047)).toHaveLength(1);
    await h.type(h.person.id, h.person, "hi, what is it?");
    const copy = await waitUntil(async () => {
      const d = (await rpcOk(h.gatewayUrl(), "question.get", { id })).deliveries[0];
      return d && h.copy(h.person.id, d.messageRef);
    }, "the prompt after the reply", 15_000);
    expect(copy.buttons).toEqual(["Staging (Recommended)", "Production", "Other…", "Skip"]);
    // "hi, what is it?" came before the prompt: it answered nothing.
    expect((await rpcOk(h.gatewayUrl(), "question.get", { id })).status).toBe("pending");
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(h.fake.botMessages(h.person.id).filter((m) => m.type === "template")).toHaveLength(1);
  });

  it("as Meta mostly reports it, a failed status (131047) after the send: the template goes out, and the prompt follows the reply", async () => {
    h.fake.closeWindow(h.colleague.id, true, { refusedLater: true });
    const { id } = await rpcOk(h.gatewayUrl(), "question.request", { questions: [deployQuestion], targets: [{ surface: "whatsapp", chat: h.colleague.id }] });
    const template = await waitUntil(() => h.fake.botMessages(h.colleague.id).find((m) => m.type === "template"), "the template");
    expect(template.template?.parameters).toEqual(["Deployment t"]);
    expect(h.fake.botMessages(h.colleague.id).filter((m) => m.type === "interactive")).toEqual([]); // the prompt never showed
    await h.type(h.colleague.id, h.colleague, "ok, show me");
    const list = await waitUntil(() => h.fake.botMessages(h.colleague.id).find((m) => m.type === "interactive"), "the prompt after the reply");
    await sleep(200);
    expect((await rpcOk(h.gatewayUrl(), "question.get", { id })).status).toBe("pending"); // the opening message answered nothing
    const before = h.fake.botMessages(h.colleague.id).length;
    // A typed reply quoting the prompt people see answers, and the summary quotes that prompt.
    await h.fake.type(h.colleague.id, h.colleague.name, "2", list.id);
    expect(await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    await waitUntil(() => h.fake.botMessages(h.colleague.id).slice(before).find((m) => m.replyTo === list.id && /✅ Deployment t/u.test(m.text)), "the summary reply to the prompt people saw");
  });
});
