/**
 * The e-mail side of the tests: a fake outgoing SMTP server (smtp-server in this process, recording every mail
 * nodemailer sends, parsed by mailparser; it can refuse a recipient for good, fail the next matching mail with a 4xx or
 * 5xx, or hold its answer) and the people's mail clients, which send replies to the bot's SMTP listener with the
 * thread headers a real client sets and the quoted text and signature it adds.
 */
import { randomBytes } from "node:crypto";
import { simpleParser } from "mailparser";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";

export const SMTP_USER = "bot";
export const SMTP_PASS = "smtp-pass-not-real";
export const BOT_ADDRESS = "ask-bot@bridge.example";

export interface FakeMail {
  id: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  inReplyTo?: string;
  references: string[];
  questionId?: string;
  /** The raw mail as the server received it. */
  raw: string;
}

export interface Attempt {
  to: string;
  mail?: FakeMail;
  /** The reply code the fake gave: 250, or the failure's. */
  code: number;
}

type Rule = { match: (mail: FakeMail) => boolean; code: number; message: string; once: boolean };

export interface FakeSmtp {
  /** smtp://bot:…@127.0.0.1:port, for EMAIL_SMTP_URL. */
  url: string;
  /** Every mail the server took (or holds), in order. */
  mails: FakeMail[];
  attempts: Attempt[];
  mailsTo(address: string): FakeMail[];
  byId(id: string): FakeMail | undefined;
  /** RCPT TO this address gets 550: a recipient that can never receive. */
  refuse(address: string): void;
  /** The mails matching get `code` until the returned function is called (`once`: the next one only). */
  fail(match: (mail: FakeMail) => boolean, code: number, message: string, once?: boolean): () => void;
  /** The next matching mail is shown to people at once, but the bot gets the server's answer only on release(). */
  holdNext(match: (mail: FakeMail) => boolean): { whenArrived: Promise<FakeMail>; release(): void };
  close(): Promise<void>;
}

const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : v.split(/\s+/u)).filter(Boolean);

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const mails: FakeMail[] = [];
  const attempts: Attempt[] = [];
  const refused = new Set<string>();
  const rules: Rule[] = [];
  const holds: Array<{ match: (m: FakeMail) => boolean; arrived: (m: FakeMail) => void; released: Promise<void> }> = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS) return callback(null, { user: SMTP_USER });
      callback(new Error("535 5.7.8 Authentication credentials invalid"));
    },
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address.toLowerCase())) {
        attempts.push({ to: address.address, code: 550 });
        const error = new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`) as Error & { responseCode: number };
        error.responseCode = 550;
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const parsed = await simpleParser(raw);
        const question = parsed.headers.get("x-ask-user-bridge-question");
        const mail: FakeMail = {
          id: parsed.messageId ?? "",
          to: session.envelope.rcptTo.map((r) => r.address).join(","),
          from: parsed.from?.value[0]?.address ?? "",
          subject: parsed.subject ?? "",
          text: (parsed.text ?? "").replace(/\n+$/u, ""),
          html: typeof parsed.html === "string" ? parsed.html : "",
          references: listOf(parsed.references),
          raw,
          ...(parsed.inReplyTo ? { inReplyTo: parsed.inReplyTo } : {}),
          ...(typeof question === "string" ? { questionId: question } : {}),
        };
        const rule = rules.find((r) => r.match(mail));
        if (rule) {
          if (rule.once) rules.splice(rules.indexOf(rule), 1);
          attempts.push({ to: mail.to, mail, code: rule.code });
          const error = new Error(rule.message) as Error & { responseCode: number };
          error.responseCode = rule.code;
          return callback(error);
        }
        const hold = holds.find((h) => h.match(mail));
        mails.push(mail);
        attempts.push({ to: mail.to, mail, code: 250 });
        if (hold) {
          holds.splice(holds.indexOf(hold), 1);
          hold.arrived(mail);
          await hold.released;
        }
        callback(null, "2.0.0 Ok: queued");
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASS}@127.0.0.1:${port}`,
    mails,
    attempts,
    mailsTo: (address) => mails.filter((m) => m.to.toLowerCase() === address.toLowerCase()),
    byId: (id) => mails.find((m) => m.id === id),
    refuse: (address) => void refused.add(address.toLowerCase()),
    fail(match, code, message, once = false) {
      const rule = { match, code, message, once };
      rules.push(rule);
      return () => {
        const i = rules.indexOf(rule);
        if (i !== -1) rules.splice(i, 1);
      };
    },
    holdNext(match) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let arrived!: (m: FakeMail) => void;
      const whenArrived = new Promise<FakeMail>((resolve) => (arrived = resolve));
      holds.push({ match, arrived, released });
      return { whenArrived, release };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A reply as a person's mail client sends it. */
export interface PersonMail {
  messageId: string;
  send(): Promise<void>;
}

export interface ReplyOptions {
  /** The mail it answers: In-Reply-To, and the thread's References (that mail's, then its id). */
  replyTo?: FakeMail;
  /** Override the thread headers (a forged or unknown id). */
  inReplyTo?: string;
  references?: string[];
  /** The quoted original and a signature below the answer, as mail clients add them (default true). */
  quote?: boolean;
  headers?: Record<string, string>;
  /** The text as an HTML part only (no text part). */
  htmlOnly?: boolean;
  /** Sent by another From than the person's own (a forged sender). */
  from?: string;
}

/** The people's side: replies sent to the bot's SMTP listener. */
export function createMailClient(listenerPort: () => number, botAddress = BOT_ADDRESS) {
  const transport = () => nodemailer.createTransport({ host: "127.0.0.1", port: listenerPort(), secure: false, ignoreTLS: true });
  return {
    compose(who: { id: string; name: string }, text: string, options: ReplyOptions = {}): PersonMail {
      const messageId = `<${randomBytes(8).toString("hex")}@${who.id.split("@")[1] ?? "example.com"}>`;
      const original = options.replyTo;
      const inReplyTo = options.inReplyTo ?? original?.id;
      const references = options.references ?? (original ? [...original.references, original.id] : inReplyTo ? [inReplyTo] : []);
      const quoted = original && options.quote !== false ? `\n\nOn Wed, Dec 2, 2026 at 9:00 AM Ask bot <${botAddress}> wrote:\n${original.text.split("\n").map((l) => `> ${l}`).join("\n")}\n\n-- \n${who.name}\nSent from my phone` : "";
      const body = `${text}${quoted}`;
      const mail = {
        from: `"${who.name}" <${options.from ?? who.id}>`,
        to: botAddress,
        subject: original ? `Re: ${original.subject}` : "Hello",
        messageId,
        ...(inReplyTo ? { inReplyTo } : {}),
        ...(references.length ? { references } : {}),
        ...(options.htmlOnly ? { html: `<p>${body.replace(/&/gu, "&amp;").replace(/</gu, "&lt;").replace(/\n/gu, "<br>")}</p>` } : { text: body }),
        ...(options.headers ? { headers: options.headers } : {}),
      };
      return {
        messageId,
        send: async () => {
          const t = transport();
          try {
            await t.sendMail(mail);
          } finally {
            t.close();
          }
        },
      };
    },
    /** Raw bytes to the listener (garbage MIME, oversize): resolves to the server's last reply line. */
    async sendRaw(from: string, raw: string | Buffer): Promise<void> {
      const t = transport();
      try {
        await t.sendMail({ envelope: { from, to: [botAddress] }, raw });
      } finally {
        t.close();
      }
    },
  };
}
