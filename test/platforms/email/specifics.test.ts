/**
 * What only e-mail has: the mail itself (text and HTML parts, answer links, escaping), threading by Message-ID, reply
 * stripping, who may answer and which mails are answers at all, the late-answer mail and the silence of every other
 * resolution, reminders and escalation as mails, and the listener's limits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmailAdapter } from "../../../bots/email/adapter.ts";
import { createMessageIds } from "../../../bots/email/message-id.ts";
import type { OutgoingMail } from "../../../bots/email/transport.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { parseTarget } from "../../../src/record/targets.ts";
import type { QuestionRecord } from "../../../src/record/record.ts";
import { EMAIL_LINKS_GUIDANCE, renderEmailCopy, renderEmailPrompt } from "../../../src/platforms/email/payload.ts";
import { optionLinkUrl } from "../../../src/record/answer-links.ts";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { createEmailHarness, PEOPLE, type EmailHarness } from "./harness.ts";
import { BOT_ADDRESS, type FakeMail } from "./fake-api.ts";

const single = {
  id: "deploy_target",
  header: "Deployment t",
  question: "Where should I deploy?",
  multiSelect: false,
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};
const region = { id: "region", header: "Region", question: "Which region?", multiSelect: false, options: [{ label: "EU" }, { label: "US" }] };
const LINK = "https://bridge.example/a/tok_abc123";

const recordOf = (questions: unknown[], extra: Record<string, unknown> = {}) =>
  ({ id: "q1", status: "pending", questions, targets: [{ surface: "email", chat: "ada@example.com" }], deliveries: [], createdAtMs: 0, expiresAtMs: 1, ...extra }) as unknown as QuestionRecord;

describe("email: the mail", () => {
  it("holds the header, the question, each option with its description and its answer link, the question's link, and how to reply", () => {
    const record = recordOf([single], { links: [{ target: "email:ada@example.com", url: LINK }, { target: "email:grace@example.com", url: "https://bridge.example/a/other" }] });
    const mail = renderEmailPrompt(record, { chat: "ada@example.com" });
    expect(mail.subject).toBe("Deployment t: Where should I deploy?");
    expect(mail.text).toBe(
      [
        "Deployment t",
        "Where should I deploy?",
        "",
        "1. Staging (Recommended) - safe to try",
        `   Answer: ${LINK}?q=deploy_target&o=0`,
        "2. Production",
        `   Answer: ${LINK}?q=deploy_target&o=1`,
        "",
        `Answer on the web: ${LINK}`,
        "",
        "None of these? Reply in your own words.",
        EMAIL_LINKS_GUIDANCE,
        "Reply skip to skip.",
      ].join("\n"),
    );
    expect(mail.text).toContain("or reply with a number, a label or your own words");
    expect(mail.html).toContain(`<a href="${LINK}?q=deploy_target&amp;o=1">Answer</a>`);
    expect(mail.html).toContain(`<a href="${LINK}">Answer on the web</a>`);
    expect(mail.text).not.toContain("/a/other"); // another target's link never
  });

  it("per-option links name each question by its id (encoded) and the option by its 0-based index", () => {
    expect(optionLinkUrl(LINK, "a b&c", 3)).toBe(`${LINK}?q=a+b%26c&o=3`);
    const mail = renderEmailPrompt(recordOf([single, region], { links: [{ target: "email:ada@example.com", url: LINK }] }), { chat: "ada@example.com" });
    expect(mail.text).toContain(`${LINK}?q=region&o=1`);
    expect(mail.text).toContain("Question 2: Region");
    expect(mail.subject).toBe("2 questions: Deployment t, Region");
    // Several questions: the link line, then the shared guidance on how to reply to several.
    expect(mail.text).toMatch(/Open an answer's link to answer on the web, or reply:\nReply with one line per question/u);
  });

  it("without links (links off, or none for this address) the mail works by reply alone", () => {
    const mail = renderEmailPrompt(recordOf([single], { links: [{ target: "email:grace@example.com", url: LINK }] }), { chat: "ada@example.com" });
    expect(mail.text).not.toContain("Answer:");
    expect(mail.text).not.toContain("http");
    expect(mail.text).toContain("Reply with a number, a label, or your own words.");
    expect(mail.text).toContain("Reply skip to skip.");
    // A link that is not the gateway's http(s) is not used.
    expect(renderEmailPrompt(recordOf([single], { links: [{ target: "email:ada@example.com", url: "javascript:alert(1)" }] }), { chat: "ada@example.com" }).html).not.toContain("javascript:");
  });

  it("escapes the HTML part: no tag, entity or attribute forms from question text; broadcast mentions are broken", () => {
    const hostile = { ...single, question: `Deploy <script>alert(1)</script> & "quote" @everyone?`, options: [{ label: `<img src=x onerror=alert(1)>` }, { label: "B" }] };
    const mail = renderEmailPrompt(recordOf([hostile]), { chat: "ada@example.com" });
    expect(mail.html).not.toMatch(/<script|<img/u);
    expect(mail.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quote&quot;");
    expect(mail.text).not.toContain("@everyone");
    expect(mail.subject).not.toMatch(/[\r\n]/u);
  });

  it("a copy is its prompt until the question takes a late answer: resolution changes nothing the person got", () => {
    const pending = recordOf([single]);
    const answered = recordOf([single], { status: "answered", answers: { deploy_target: ["Production"] }, resolvedAtMs: 2 });
    expect(renderEmailCopy(answered, "ada@example.com")).toEqual(renderEmailCopy(pending, "ada@example.com"));
    const late = recordOf([single], { status: "expired", resolvedAtMs: 2, lateAnswer: { answers: { deploy_target: ["Production"] }, atMs: 3, by: { surface: "email", user: "ada@example.com", userName: "Ada", via: "text" } } });
    expect(renderEmailCopy(late, "ada@example.com").text).toMatch(/^✅ \(late\) Deployment t: Production — answered late in E-mail by Ada/u);
  });

  it("the adapter's update of a copy is a declared no-op for every resolution but a late answer, which is one reply to the prompt", async () => {
    const sent: OutgoingMail[] = [];
    const adapter = createEmailAdapter({ smtp: { send: async (mail) => void sent.push(mail), close() {} }, ids: createMessageIds("key", "bridge.example") });
    expect(adapter.edits).toBe(false);
    const delivery = { surface: "email" as const, chat: "ada@example.com", messageRef: "<aub.p.1@bridge.example>", deliveredAtMs: 0 };
    for (const status of ["answered", "cancelled", "expired"]) await adapter.updatePrompt(recordOf([single], { status, resolvedAtMs: 2, answers: { deploy_target: ["Production"] } }), delivery);
    expect(sent).toEqual([]);
    const late = recordOf([single], { id: "q9", status: "expired", resolvedAtMs: 2, lateAnswer: { answers: { deploy_target: ["Production"] }, atMs: 3, by: { surface: "web", via: "web" } } });
    await adapter.updatePrompt(late, delivery);
    expect(sent).toMatchObject([{ to: "ada@example.com", inReplyTo: delivery.messageRef, references: [delivery.messageRef], questionId: "q9" }]);
    expect(sent[0]!.message.text).toMatch(/^✅ \(late\) Deployment t: Production — answered late on the web/u);
  });

  it("the bot's Message-IDs are signed for their recipient: another address's, a tampered or a foreign id is not the bot's", () => {
    const ids = createMessageIds("key", "bridge.example");
    const id = ids.next("p", "ada@example.com");
    expect(ids.ownFor(id, "ada@example.com")).toEqual({ id, kind: "p" });
    expect(ids.ownFor(` ${id} `, "ada@example.com")).toEqual({ id, kind: "p" });
    expect(ids.ownFor(id, "grace@example.com")).toBeUndefined();
    expect(ids.looksOwn(id)).toBe(true);
    expect(createMessageIds("another key", "bridge.example").ownFor(id, "ada@example.com")).toBeUndefined();
    const tampered = id.replace(/\.([0-9a-f])/u, (_, c: string) => `.${c === "0" ? "1" : "0"}`);
    expect(ids.ownFor(tampered, "ada@example.com")).toBeUndefined();
    for (const foreign of ["<CAF=abc@mail.gmail.com>", "", "<aub.x.1.2@bridge.example>", "aub.p"]) expect(ids.ownFor(foreign, "ada@example.com")).toBeUndefined();
  });

    it("targets write addresses with `+`, the domain in lower case; a bad EMAIL_ALLOWED_SENDERS entry is named", () => {
    expect(parseTarget("email:ada+ops@example.com")).toEqual({ ok: true, target: { surface: "email", chat: "ada+ops@example.com" } });
    expect(parseTarget("email:ada@example.com:grace@example.com")).toEqual({ ok: true, target: { surface: "email", chat: "ada@example.com", users: ["grace@example.com"] } });
    expect(parseTarget("email:Ada@Example.COM").ok).toBe(false);
    expect(parseTarget("email:not-an-address").ok).toBe(false);
    expect(loadConfig({ EMAIL_ALLOWED_SENDERS: "Ada@Example.com, @OPS.example.com" }).EMAIL_ALLOWED_SENDERS).toEqual(["Ada@example.com", "@ops.example.com"]);
    expect(() => loadConfig({ EMAIL_ALLOWED_SENDERS: "ada@example.com,nobody" })).toThrow(/EMAIL_ALLOWED_SENDERS.*"nobody" is not an address/su);
    // A listener password without its user would turn AUTH off without a word: it is refused instead.
    expect(() => loadConfig({ EMAIL_INBOUND_AUTH: "just-a-password" })).toThrow(/EMAIL_INBOUND_AUTH.*user:password/su);
  });
});

describe("email: the bot against the fake SMTP server and its own listener", { timeout: 60_000 }, () => {
  let h: EmailHarness;
  beforeAll(async () => {
    h = await createEmailHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const ask = async (chat: string, extra: Record<string, unknown> = {}, questions: unknown[] = [single]) =>
    (await rpcOk(h.gatewayUrl(), "question.request", { questions, targets: [{ surface: "email", chat }], ...extra })).id as string;
  const get = (id: string) => rpcOk(h.gatewayUrl(), "question.get", { id });
  const promptTo = (chat: string, id: string) => waitUntil(() => h.smtp.mailsTo(chat).find((m) => m.questionId === id && !m.inReplyTo), `the prompt of ${id}`);
  const logged = (pattern: RegExp) => waitUntil(() => h.logs.find((l) => pattern.test(l)), `a log line matching ${pattern}`);
  const quiet = () => sleep(400);

  it("threads: the prompt has its own Message-ID (the copy's messageRef); the confirmation replies to the person's mail in the same thread", async () => {
    const id = await ask(PEOPLE.person.id);
    const prompt = await promptTo(PEOPLE.person.id, id);
    expect(prompt.id).toMatch(/^<aub\.p\.[0-9a-f]{24}\.[0-9a-f]{24}@bridge\.example>$/u);
    expect(prompt.from).toBe(BOT_ADDRESS);
    expect((await get(id)).deliveries[0].messageRef).toBe(prompt.id);
    const client = h.client.compose(PEOPLE.person, "2", { replyTo: prompt });
    await client.send();
    const confirmation = await waitUntil(() => h.smtp.mailsTo(PEOPLE.person.id).find((m) => m.inReplyTo === client.messageId), "the confirmation");
    expect(confirmation.text).toBe("✅ Recorded: Production (option 2)");
    expect(confirmation.subject).toBe("Re: Deployment t: Where should I deploy?");
    expect(confirmation.references).toEqual([prompt.id, client.messageId]);
    expect((await get(id)).by).toMatchObject({ surface: "email", user: PEOPLE.person.id, userName: "Ada", via: "text" });
  });

  it("strips quoted text and signatures before the parser reads the reply; an HTML-only reply is read too", async () => {
    const id = await ask(PEOPLE.person.id);
    const prompt = await promptTo(PEOPLE.person.id, id);
    // The quote holds "1. Staging": only the answer above it counts.
    await h.replyAs(PEOPLE.person, "Production please\n\n-- \nAda Lovelace\nAnalytical Engines Ltd", { replyTo: prompt });
    expect((await get(id)).answers).toEqual({ deploy_target: ["Production please"] });
    const html = await ask(PEOPLE.person.id);
    const htmlPrompt = await promptTo(PEOPLE.person.id, html);
    const answer = await h.replyAs(PEOPLE.person, "staging", { replyTo: htmlPrompt, htmlOnly: true, quote: false });
    expect(answer?.text).toBe("✅ Recorded: Staging (Recommended) (option 1)");
  });

  it("mail from the wrong sender is dropped with a log line: nothing recorded, no mail back", async () => {
    const id = await ask(PEOPLE.person.id);
    const prompt = await promptTo(PEOPLE.person.id, id);
    // Grace (allowed, but the question went to Ada) replies to Ada's mail; Mallory forges Ada's thread too.
    expect(await h.replyAs(PEOPLE.colleague, "2", { replyTo: prompt })).toBeUndefined();
    await logged(/dropped a mail from grace@example\.com that answers a mail the bot sent to another address \(wrong sender\)/u);
    expect(await h.replyAs(PEOPLE.stranger, "2", { replyTo: prompt })).toBeUndefined();
    expect((await get(id)).status).toBe("pending");
    expect(h.smtp.mailsTo(PEOPLE.stranger.id)).toEqual([]);
    expect(h.smtp.mailsTo(PEOPLE.colleague.id).filter((m) => m.inReplyTo)).toEqual([]);
    // The address's domain is compared case-insensitively: ADA's own reply with an upper-case domain answers.
    expect((await h.replyAs(PEOPLE.person, "1", { replyTo: prompt, from: "ada@EXAMPLE.com" }))?.text).toMatch(/Recorded: Staging/u);
  });

  it("only EMAIL_ALLOWED_SENDERS may answer at all: a target outside it gets the prompt, and its reply is dropped", async () => {
    const id = await ask(PEOPLE.stranger.id);
    const prompt = await promptTo(PEOPLE.stranger.id, id);
    expect(await h.replyAs(PEOPLE.stranger, "2", { replyTo: prompt })).toBeUndefined();
    await logged(/mallory@example\.net, who is not in EMAIL_ALLOWED_SENDERS/u);
    expect((await get(id)).status).toBe("pending");
    expect(h.smtp.mailsTo(PEOPLE.stranger.id).filter((m) => m.inReplyTo)).toEqual([]);
  });

  it("a reply to an unknown message id, a forged id in the bot's shape, a fresh mail: dropped, nothing recorded, no mail back", async () => {
    const id = await ask(PEOPLE.person.id);
    await promptTo(PEOPLE.person.id, id);
    const before = h.smtp.mailsTo(PEOPLE.person.id).length;
    expect(await h.replyAs(PEOPLE.person, "2", { inReplyTo: "<unknown-1234@mail.example.com>" })).toBeUndefined();
    await logged(/ada@example\.com that answers no mail of the bot's \(unknown message id\)/u);
    expect(await h.replyAs(PEOPLE.person, "2", { inReplyTo: `<aub.p.${"a".repeat(24)}.${"b".repeat(24)}@bridge.example>` })).toBeUndefined();
    expect(await h.replyAs(PEOPLE.person, "2")).toBeUndefined();
    expect((await get(id)).status).toBe("pending");
    expect(h.smtp.mailsTo(PEOPLE.person.id).length).toBe(before);
  });

  it("an out-of-office reply, a bounce, mail with no text, garbage MIME: dropped with a log line; an oversize mail is refused", async () => {
    const id = await ask(PEOPLE.person.id);
    const prompt = await promptTo(PEOPLE.person.id, id);
    expect(await h.replyAs(PEOPLE.person, "I am out of office until Monday.", { replyTo: prompt, headers: { "Auto-Submitted": "auto-replied" } })).toBeUndefined();
    await logged(/an automatic mail \(Auto-Submitted: auto-replied\) from ada@example\.com/u);
    await h.client.sendRaw("", `From: ada@example.com\r\nTo: ${BOT_ADDRESS}\r\nIn-Reply-To: ${prompt.id}\r\nSubject: Undelivered\r\n\r\n2\r\n`);
    await logged(/a bounce \(empty envelope sender\)/u);
    await h.client.sendRaw(PEOPLE.person.id, `From: ada@example.com\r\nTo: ${BOT_ADDRESS}\r\nIn-Reply-To: ${prompt.id}\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n`);
    await logged(/ada@example\.com with no text part/u);
    await h.client.sendRaw(PEOPLE.person.id, "\u0000\u0001garbage: \r\n\r\n\r\n--\r\n");
    await logged(/dropped a mail (from ::ffff:127\.0\.0\.1|from 127\.0\.0\.1|without a From address)/u);
    await expect(h.client.sendRaw(PEOPLE.person.id, `From: ada@example.com\r\nIn-Reply-To: ${prompt.id}\r\n\r\n${"2".repeat(1_100_000)}\r\n`)).rejects.toThrow(/552|size/iu);
    await quiet();
    expect((await get(id)).status).toBe("pending");
    expect(h.smtp.mailsTo(PEOPLE.person.id).filter((m) => m.inReplyTo === prompt.id)).toEqual([]);
  });

  it("resolution sends no mail; a late answer gets one mail, in reply to the prompt, that says it was taken", async () => {
    const id = await ask(PEOPLE.person.id);
    const prompt = await promptTo(PEOPLE.person.id, id);
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, answers: { deploy_target: ["Production"] }, by: { surface: "web", via: "web", user: "ops" } });
    await waitUntil(async () => (await get(id)).status === "answered", "the answer");
    await sleep(500);
    expect(h.smtp.mailsTo(PEOPLE.person.id).filter((m) => m.inReplyTo === prompt.id)).toEqual([]);

    const late = await ask(PEOPLE.person.id, { timeoutSeconds: 1 });
    const latePrompt = await promptTo(PEOPLE.person.id, late);
    await waitUntil(async () => (await get(late)).status === "expired", "the expiry");
    await sleep(400);
    expect(h.smtp.mailsTo(PEOPLE.person.id).filter((m) => m.inReplyTo === latePrompt.id)).toEqual([]); // expiry: no mail
    expect((await h.replyAs(PEOPLE.person, "2", { replyTo: latePrompt }))?.text).toBe("✅ Recorded (late): Production (option 2)");
    const taken = await waitUntil(() => h.smtp.mailsTo(PEOPLE.person.id).find((m) => m.inReplyTo === latePrompt.id), "the late answer's mail");
    expect(taken.text).toMatch(/^✅ \(late\) Deployment t: Production — answered late in E-mail by Ada/u);
    expect(taken.subject).toBe(`Re: ${latePrompt.subject}`);
    await h.restartBot();
    await sleep(500);
    expect(h.smtp.mailsTo(PEOPLE.person.id).filter((m) => m.inReplyTo === latePrompt.id)).toHaveLength(1);
  });

  it("a reminder is a reply mail in the prompt's thread; an escalation step mails the next address its own prompt", async () => {
    const id = await ask(PEOPLE.person.id, { timeoutSeconds: 8, reminders: [6], escalate: [{ afterSeconds: 1, targets: [{ surface: "email", chat: PEOPLE.colleague.id }] }] });
    const prompt = await promptTo(PEOPLE.person.id, id);
    const escalated = await promptTo(PEOPLE.colleague.id, id);
    expect(escalated.id).not.toBe(prompt.id);
    expect(escalated.text).toContain("Where should I deploy?");
    const reminder = await waitUntil(() => h.smtp.mailsTo(PEOPLE.person.id).find((m) => m.inReplyTo === prompt.id && m.text.startsWith("⏰")), "the reminder");
    expect(reminder.subject).toBe(`Re: ${prompt.subject}`);
    expect(reminder.references).toEqual([prompt.id]);
    expect(reminder.html).toContain("⏰ Still waiting for your answer");
    await h.replyAs(PEOPLE.colleague, "1", { replyTo: escalated });
    expect((await get(id)).answers).toEqual({ deploy_target: ["Staging (Recommended)"] });
  });

  it("a chat the SMTP server refuses for good fails delivery at once; an address not written in normal form is refused", async () => {
    h.smtp.refuse("gone@example.com");
    const gone = await ask("gone@example.com");
    expect(await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id: gone, timeoutMs: 10_000 })).toMatchObject({ status: "delivery_failed" });
    expect((await get(gone)).targetStates[0].reason).toMatch(/550|Recipient address rejected/u);
    const upper = await ask("Ada@EXAMPLE.com");
    expect(await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id: upper, timeoutMs: 10_000 })).toMatchObject({ status: "delivery_failed" });
    expect((await get(upper)).targetStates[0].reason).toMatch(/domain in lower case/u);
  });
});

describe("email: the listener's SMTP AUTH", { timeout: 60_000 }, () => {
  let h: EmailHarness;
  beforeAll(async () => {
    h = await createEmailHarness({ env: { EMAIL_INBOUND_AUTH: "relay:relay-pass-not-real" } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it("with EMAIL_INBOUND_AUTH set, a relay without the password is refused; with it, the reply answers", async () => {
    const { id } = await rpcOk(h.gatewayUrl(), "question.request", { questions: [single], targets: [{ surface: "email", chat: PEOPLE.person.id }] });
    const prompt: FakeMail = await waitUntil(() => h.smtp.mailsTo(PEOPLE.person.id)[0], "the prompt");
    await expect(h.client.compose(PEOPLE.person, "2", { replyTo: prompt }).send()).rejects.toThrow(/530|auth/iu);
    const nodemailer = (await import("nodemailer")).default;
    const relay = nodemailer.createTransport({ host: "127.0.0.1", port: h.inboundPort, secure: false, ignoreTLS: true, auth: { user: "relay", pass: "wrong" } });
    await expect(relay.sendMail({ from: PEOPLE.person.id, to: BOT_ADDRESS, text: "2", inReplyTo: prompt.id })).rejects.toThrow(/535|Invalid/iu);
    relay.close();
    const good = nodemailer.createTransport({ host: "127.0.0.1", port: h.inboundPort, secure: false, ignoreTLS: true, auth: { user: "relay", pass: "relay-pass-not-real" } });
    await good.sendMail({ from: PEOPLE.person.id, to: BOT_ADDRESS, subject: `Re: ${prompt.subject}`, text: "2", inReplyTo: prompt.id, references: [prompt.id] });
    good.close();
    expect(await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
  });
});
