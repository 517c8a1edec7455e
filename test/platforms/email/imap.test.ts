/**
 * Replies read from a mailbox (EMAIL_IMAP_URL): the real bot reading a real Dovecot (test/helpers/dovecot.ts) over
 * imapflow, beside a real gateway and the fake outgoing SMTP server. Replies arrive as people's mail does, appended to
 * the mailbox (IMAP APPEND) with the thread headers a mail client sets. IDLE takes a reply at once; a server without IDLE
 * is polled; an answer is marked (or moved); a restart, even a SIGKILL, neither loses a reply nor reads one again; a
 * refused login is one line, not one per retry.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { ImapFlow } from "imapflow";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmailBot } from "../../../bots/email/index.ts";
import { DONE_KEYWORD, returnPathOf } from "../../../bots/email/imap.ts";
import { createImapCursorStore } from "../../../bots/email/imap-cursor.ts";
import { ConfigError, loadConfig } from "../../../src/runtime/config.ts";
import { parseImapUrl } from "../../../src/platforms/email/platform.ts";
import type { RunningBot } from "../../../bots/shared.ts";
import { dovecotMissing, IMAP_PASS, IMAP_USER, startDovecot, type TestDovecot } from "../../helpers/dovecot.ts";
import { rpcOk, spawnCli, startTestGateway, tempDir, TOKEN, waitForOutput, type TestGateway } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { BOT_ADDRESS, startFakeSmtp, type FakeMail, type FakeSmtp } from "./fake-api.ts";

const missing = dovecotMissing();
const HOW = "install it as root with `apt-get install -y dovecot-imapd` (.ci/run does)";
if (missing && !process.env.CI) console.warn(`test/platforms/email/imap.test.ts skipped: no Dovecot here (${missing}); ${HOW}`);

const ada = { id: "ada@example.com", name: "Ada" };
const deploy = (id = "deploy_target") => ({ id, header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] });

/** A person's reply to `prompt`, as their mail client writes it (the quoted prompt below). */
function replyTo(prompt: FakeMail, text: string, who = ada): Promise<Buffer> {
  const quoted = prompt.text.split("\n").map((l) => `> ${l}`).join("\n");
  const composer = new MailComposer({
    from: `"${who.name}" <${who.id}>`,
    to: BOT_ADDRESS,
    subject: `Re: ${prompt.subject}`,
    messageId: `<${Math.random().toString(16).slice(2)}@example.com>`,
    inReplyTo: prompt.id,
    references: [...prompt.references, prompt.id],
    text: `${text}\n\nOn Wed, Dec 2, 2026 at 9:00 AM Ask bot <${BOT_ADDRESS}> wrote:\n${quoted}`,
  });
  return composer.compile().build();
}

/** The people's side of the mailbox: the provider delivering mail into it, and a look at what the bot did to it. */
async function openMailbox(dovecot: TestDovecot) {
  const client = new ImapFlow({ host: dovecot.host, port: dovecot.port, secure: false, auth: { user: IMAP_USER, pass: IMAP_PASS }, logger: false });
  await client.connect();
  return {
    async deliver(raw: Buffer | string, flags: string[] = []): Promise<number> {
      const appended = await client.append("INBOX", raw, flags);
      if (!appended || appended.uid === undefined) throw new Error("APPEND gave no UID");
      return appended.uid;
    },
    async flags(uid: number, mailbox = "INBOX"): Promise<string[] | undefined> {
      const lock = await client.getMailboxLock(mailbox);
      try {
        const found = await client.fetchOne(String(uid), { flags: true }, { uid: true });
        return found ? [...(found.flags ?? [])] : undefined;
      } finally {
        lock.release();
      }
    },
    async count(mailbox: string): Promise<number> {
      const status = await client.status(mailbox, { messages: true });
      return status ? (status.messages ?? 0) : 0;
    },
    async setFlags(uid: number, flags: string[]): Promise<void> {
      const lock = await client.getMailboxLock("INBOX");
      try {
        await client.messageFlagsSet(String(uid), flags, { uid: true });
      } finally {
        lock.release();
      }
    },
    close: () => client.logout(),
  };
}

interface Setup {
  dovecot: TestDovecot;
  gateway: TestGateway;
  smtp: FakeSmtp;
  dataDir: string;
  mailbox: Awaited<ReturnType<typeof openMailbox>>;
  env(extra?: Record<string, string>): Record<string, string>;
  /** The bot in this process, its log lines collected. */
  start(extra?: Record<string, string>): Promise<{ bot: RunningBot; logs: string[] }>;
  ask(id?: string): Promise<{ id: string; prompt: FakeMail }>;
  close(): Promise<void>;
}

async function setUp(dovecotOptions: Parameters<typeof startDovecot>[0] = {}): Promise<Setup> {
  const dovecot = await startDovecot(dovecotOptions);
  const dataDir = tempDir("aub-email-imap-");
  const gateway = await startTestGateway({ dataDir, DELIVERY_TIMEOUT_SECONDS: 30 });
  const smtp = await startFakeSmtp();
  const mailbox = await openMailbox(dovecot);
  const bots: RunningBot[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: dataDir,
    EMAIL_SMTP_URL: smtp.url,
    EMAIL_FROM: `Ask bot <${BOT_ADDRESS}>`,
    EMAIL_IMAP_URL: dovecot.url(),
    EMAIL_ALLOWED_SENDERS: ada.id,
    ...extra,
  });
  let asked = 0;
  return {
    dovecot,
    gateway,
    smtp,
    dataDir,
    mailbox,
    env,
    async start(extra) {
      const logs: string[] = [];
      const bot = await startEmailBot(loadConfig(env(extra)), { log: (message, error) => void logs.push(error instanceof Error ? `${message}: ${error.message}` : message) });
      bots.push(bot);
      return { bot, logs };
    },
    async ask(questionId = `q${++asked}`) {
      const { id } = await rpcOk(gateway.url, "question.request", { questions: [deploy(questionId)], targets: [{ surface: "email", chat: ada.id }] });
      const prompt = await waitUntil(() => smtp.mails.find((m) => m.questionId === id && m.inReplyTo === undefined), `the prompt of ${id}`);
      return { id, prompt };
    },
    async close() {
      for (const bot of bots) await bot.stop();
      await mailbox.close().catch(() => {});
      await smtp.close();
      await gateway.close();
      await dovecot.stop();
    },
  };
}

const answerOf = async (gateway: TestGateway, id: string, timeoutMs = 5_000) => (await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs })) as { status: string; answers?: { answers: Record<string, string[]> } };

describe("EMAIL_IMAP_URL and the envelope sender", () => {
  it.each([
    ["imap://bot:pw@imap.example.com/INBOX", { host: "imap.example.com", port: 143, secure: false, user: "bot", pass: "pw", mailbox: "INBOX" }],
    ["imaps://bot%40example.com:p%25w@imap.example.com", { host: "imap.example.com", port: 993, secure: true, user: "bot@example.com", pass: "p%w", mailbox: "INBOX" }],
    ["imaps://bot:pw@[::1]:1993/Replies%2FBot", { host: "::1", port: 1993, secure: true, mailbox: "Replies/Bot" }],
  ])("%s", (url, expected) => {
    expect(parseImapUrl(url)).toMatchObject(expected);
  });

  it.each([
    ["smtp://bot:pw@host", "EMAIL_IMAP_URL: must start with imap:// or imaps://"],
    ["imap://host/INBOX", "EMAIL_IMAP_URL: must name the user, the password and the host: imap://user:password@host/INBOX"],
    ["imap://bot:s3cret-pw%zz@host", "EMAIL_IMAP_URL: holds a broken percent-encoding (write a % in the password as %25)"],
    ["not a url s3cret-pw", "EMAIL_IMAP_URL: is not a URL; use imap://user:password@host:143/INBOX or imaps://user:password@host:993/INBOX"],
  ])("%s is refused by loadConfig, naming the variable and not the password", (url, message) => {
    let error: unknown;
    try {
      loadConfig({ EMAIL_IMAP_URL: url });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain("s3cret-pw");
  });

  it.each([
    ["Return-Path: <ada@example.com>\r\nFrom: a@b.c\r\n\r\nbody", "ada@example.com"],
    ["return-path:<>\r\n\r\nbody", ""],
    ["From: a@b.c\r\n\r\nReturn-Path: <in@body.example>\r\n", undefined],
  ])("the Return-Path of %j is %j", (raw, expected) => {
    expect(returnPathOf(Buffer.from(raw))).toBe(expected);
  });
});

describe("e-mail from a mailbox: Dovecot is installed", () => {
  it.runIf(Boolean(missing && process.env.CI))("under CI, the IMAP tests run (they are not skipped)", () => {
    expect.fail(`no Dovecot on this CI machine: ${missing}. ${HOW}`);
  });
});

describe.skipIf(Boolean(missing))("e-mail from a mailbox (IMAP, IDLE)", { timeout: 60_000 }, () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp();
  });
  afterAll(async () => s?.close());

  it("reads a reply as it arrives (IDLE), takes it as the answer, and marks it \\Seen and done; no SMTP listener opens", async () => {
    const { bot, logs } = await s.start();
    await waitUntil(() => logs.some((l) => /reading the mailbox INBOX at 127\.0\.0\.1:\d+ \(IDLE\)/u.test(l)), "the bot reading the mailbox");
    expect(logs.join("\n")).not.toMatch(/SMTP listener/u);
    const { id, prompt } = await s.ask();
    const arrived = Date.now();
    const uid = await s.mailbox.deliver(await replyTo(prompt, "2"));
    expect(await answerOf(s.gateway, id)).toMatchObject({ status: "answered", answers: { answers: { q1: ["Production"] } } });
    expect(Date.now() - arrived).toBeLessThan(2_500);
    await waitUntil(async () => (await s.mailbox.flags(uid))?.includes(DONE_KEYWORD), "the answer marked");
    expect(await s.mailbox.flags(uid)).toEqual(expect.arrayContaining(["\\Seen", DONE_KEYWORD]));
    // A mail that is no answer is marked as read by the bot, but left unread for a person.
    const stray = await s.mailbox.deliver(`From: Ada <${ada.id}>\r\nTo: ${BOT_ADDRESS}\r\nSubject: hello\r\nMessage-ID: <stray@example.com>\r\n\r\nJust saying hi\r\n`);
    await waitUntil(async () => (await s.mailbox.flags(stray))?.includes(DONE_KEYWORD), "the stray mail marked");
    expect(await s.mailbox.flags(stray)).not.toContain("\\Seen");
    expect(logs.join("\n")).toMatch(/dropped a mail from ada@example\.com that answers no mail of the bot's/u);
    expect(logs.join("\n")).not.toContain(IMAP_PASS);
    await bot.stop();
  });

  it("a restart loses no reply (one that came while the bot was down is read) and reads none again", async () => {
    const first = await s.start();
    await waitUntil(() => first.logs.some((l) => l.startsWith("reading the mailbox")), "the bot reading the mailbox");
    const a = await s.ask("before");
    const b = await s.ask("while_down");
    await s.mailbox.deliver(await replyTo(a.prompt, "1"));
    expect(await answerOf(s.gateway, a.id)).toMatchObject({ status: "answered" });
    await first.bot.stop();
    const mailsBefore = s.smtp.mails.length;
    // While the bot is down, b's reply arrives.
    await s.mailbox.deliver(await replyTo(b.prompt, "2"));
    const second = await s.start();
    expect(await answerOf(s.gateway, b.id)).toMatchObject({ status: "answered", answers: { answers: { while_down: ["Production"] } } });
    await waitUntil(() => second.logs.some((l) => l.startsWith("reading the mailbox")), "the second bot reading");
    // Nothing read twice: a's reply again would have reached the gateway, which refuses a Message-ID it took.
    expect(second.logs.join("\n")).not.toMatch(/dropped/u);
    await waitUntil(() => s.smtp.mails.length > mailsBefore, "the confirmation of b's answer");
    expect(s.smtp.mails.slice(mailsBefore).every((m) => m.questionId !== a.id && m.to === ada.id)).toBe(true);
    await second.bot.stop();
  });

  it("a SIGKILL between the answer and its mark reads the reply again, and the gateway refuses the copy: no second answer", async () => {
    const env = s.env();
    const run = () => spawnCli(["bot", "email"], env, { timeoutMs: 60_000 });
    const bot = run();
    await waitForOutput(bot, /reading the mailbox/u);
    const { id, prompt } = await s.ask("killed");
    const uid = await s.mailbox.deliver(await replyTo(prompt, "1"));
    expect(await answerOf(s.gateway, id)).toMatchObject({ status: "answered", answers: { answers: { killed: ["Staging"] } } });
    const cursor = createImapCursorStore(s.dataDir, `${IMAP_USER}@127.0.0.1:${s.dovecot.port}/INBOX`);
    await waitUntil(() => cursor.read()?.uid === uid, "the cursor past the answer");
    bot.child.kill("SIGKILL");
    await bot.exited;
    // As if it had died before marking the mail and moving the cursor: unmarked, and the cursor one mail back.
    await s.mailbox.setFlags(uid, []);
    const saved = JSON.parse(readFileSync(cursor.file, "utf8"));
    writeFileSync(cursor.file, JSON.stringify({ ...saved, uid: uid - 1 }));
    const mailsBefore = s.smtp.mails.length;
    const again = run();
    await waitForOutput(again, /dropped a mail from ada@example\.com: it answers no question the bot knows/u);
    await waitUntil(async () => (await s.mailbox.flags(uid))?.includes(DONE_KEYWORD), "the copy marked");
    expect(await answerOf(s.gateway, id)).toMatchObject({ answers: { answers: { killed: ["Staging"] } } });
    expect(s.smtp.mails.length).toBe(mailsBefore); // no second confirmation
    again.child.kill("SIGTERM");
    await again.exited;
    expect(cursor.read()?.uid).toBe(uid);
  });

  it("a new UIDVALIDITY (a rebuilt mailbox): the unseen mail without the keyword is read, mail a person had read is not", async () => {
    const first = await s.start();
    const seen = await s.ask("read_by_a_person");
    const unseen = await s.ask("unseen");
    await first.bot.stop();
    const cursor = createImapCursorStore(s.dataDir, `${IMAP_USER}@127.0.0.1:${s.dovecot.port}/INBOX`);
    const validity = cursor.read()!.uidValidity;
    cursor.write("1", 1_000_000); // UIDs of another mailbox: they mean nothing here
    await s.mailbox.deliver(await replyTo(seen.prompt, "1"), ["\\Seen"]);
    const last = await s.mailbox.deliver(await replyTo(unseen.prompt, "2"));
    const second = await s.start();
    expect(await answerOf(s.gateway, unseen.id)).toMatchObject({ status: "answered", answers: { answers: { unseen: ["Production"] } } });
    expect(second.logs.join("\n")).toMatch(/the UIDVALIDITY of INBOX at 127\.0\.0\.1:\d+ changed \(the mailbox was rebuilt\): reading its unseen mail since \d{4}-\d\d-\d\d/u);
    await waitUntil(() => cursor.read()?.uidValidity === validity, "the cursor in the mailbox's UIDVALIDITY");
    expect(cursor.read()?.uid).toBe(last);
    expect((await rpcOk(s.gateway.url, "question.get", { id: seen.id })).status).toBe("pending");
    await second.bot.stop();
    await rpcOk(s.gateway.url, "question.resolve", { id: seen.id, cancel: true });
  });

  it("a refused login is one clear line, however often it is retried; the bot keeps running", async () => {
    const { bot, logs } = await s.start({ EMAIL_IMAP_URL: s.dovecot.url("INBOX", "wrong-password-1234") });
    await waitUntil(() => (s.dovecot.log().match(/auth failed/gu) ?? []).length >= 2, "two refused logins", 10_000);
    const lines = logs.filter((l) => /IMAP/u.test(l));
    expect(lines).toEqual([expect.stringMatching(/^IMAP warning: the server at 127\.0\.0\.1:\d+ refused the login of "bot".*check EMAIL_IMAP_URL; trying again with backoff$/u)]);
    expect(logs.join("\n")).not.toContain("wrong-password-1234");
    await bot.stop();
  });
});

describe.skipIf(Boolean(missing))("e-mail from a mailbox (no IDLE: polling; EMAIL_IMAP_DONE_MAILBOX)", { timeout: 60_000 }, () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp({ withoutIdle: true });
  });
  afterAll(async () => s?.close());

  it("polls every EMAIL_IMAP_POLL_SECONDS, and moves the answer to the done mailbox", async () => {
    const { bot, logs } = await s.start({ EMAIL_IMAP_POLL_SECONDS: "1", EMAIL_IMAP_DONE_MAILBOX: "Answered" });
    await waitUntil(() => logs.some((l) => /reading the mailbox INBOX .*polling every 1 s/u.test(l)), "the bot polling the mailbox");
    const { id, prompt } = await s.ask();
    await s.mailbox.deliver(await replyTo(prompt, "Production"));
    expect(await answerOf(s.gateway, id)).toMatchObject({ status: "answered", answers: { answers: { q1: ["Production"] } } });
    await waitUntil(async () => (await s.mailbox.count("Answered")) === 1, "the answer moved");
    expect(await s.mailbox.count("INBOX")).toBe(0);
    await bot.stop();
  });

  it("an unreachable server is one line too", async () => {
    const { bot, logs } = await s.start({ EMAIL_IMAP_URL: "imap://bot:secret-not-real@127.0.0.1:1/INBOX" });
    await waitUntil(() => logs.some((l) => l.startsWith("IMAP warning")), "the warning");
    expect(logs.filter((l) => /IMAP/u.test(l))).toEqual(["IMAP warning: cannot reach the IMAP server at 127.0.0.1:1 (ECONNREFUSED); trying again with backoff"]);
    await bot.stop();
  });
});
