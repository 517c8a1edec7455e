/**
 * Reply mails in: each is parsed (mailparser), checked, stripped of quoted text and signatures (email-reply-parser),
 * and handed to the bridge as a typed reply to the question its thread names; the bridge's response goes back as reply
 * mails. A mail is an answer only when its In-Reply-To or References name one of the bot's own mails (./message-id.ts)
 * sent to the very address it comes from, and that address may answer (EMAIL_ALLOWED_SENDERS). Anything else (a reply
 * to an unknown message id, mail from the wrong sender, an auto-reply or a bounce, mail with no text, MIME that does
 * not parse) is dropped with a log line: nothing is recorded, and nothing is sent back, so no forged sender gets mail.
 * One sender's mails are handled in order.
 */
import { createHash } from "node:crypto";
import EmailReplyParser from "email-reply-parser";
import { simpleParser, type ParsedMail } from "mailparser";
import { applyEffects, type Bridge } from "../../src/bridge/index.ts";
import { normalizeAddress } from "../../src/platforms/email/platform.ts";
import type { Log } from "../shared.ts";
import type { InboundMail } from "./listener.ts";
import type { MessageIds } from "./message-id.ts";
import { emailOps } from "./ops.ts";
import type { SmtpSender } from "./transport.ts";

export interface EmailInboundOptions {
  bridge: Pick<Bridge, "handle" | "sent">;
  smtp: SmtpSender;
  ids: MessageIds;
  /** The bot's own address (EMAIL_FROM's): mail from it is never an answer. */
  ownAddress: string;
  /** Who may answer at all: addresses and `@domain`s, normalised; empty: anyone a question was mailed to. */
  allowedSenders: readonly string[];
  log: Log;
}

/**
 * What became of a mail: an answer the bridge handled and replied to (taken, or refused with a reply that says why),
 * a mail that is none ("dropped", logged), or one whose handling threw ("failed", logged).
 */
export type MailOutcome = "answer" | "dropped" | "failed";

/** What a mail is: an answer's parts, or why it is none (for the log line). */
type Verdict = { ok: true; sender: string; name?: string; replyTo: string; text: string; messageId: string; references: string[]; subject: string } | { ok: false; why: string };

const header = (mail: ParsedMail, name: string): string | undefined => {
  const value = mail.headers.get(name);
  return typeof value === "string" ? value.trim().toLowerCase() : value === undefined ? undefined : String(value).toLowerCase();
};

/** An out-of-office reply, a list mail or a bounce (RFC 3834 and the common headers): never a person's answer. */
function automatic(mail: ParsedMail, mailFrom: string): string | undefined {
  if (mailFrom === "") return "a bounce (empty envelope sender)";
  const submitted = header(mail, "auto-submitted");
  if (submitted && submitted !== "no") return `an automatic mail (Auto-Submitted: ${submitted})`;
  const precedence = header(mail, "precedence");
  if (precedence && ["bulk", "junk", "list", "auto_reply"].includes(precedence)) return `an automatic mail (Precedence: ${precedence})`;
  if (mail.headers.has("x-autoreply") || mail.headers.has("x-autorespond")) return "an auto-reply";
  return undefined;
}

/** The ids of a thread the bot looks at: the newest (a client keeps a thread's first and last ids, at least). */
const NAMED_MAX = 100;

const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : v.split(/\s+/u)).map((s) => s.trim()).filter(Boolean);

export function createEmailInbound({ bridge, smtp, ids, ownAddress, allowedSenders, log }: EmailInboundOptions) {
  const chains = new Map<string, Promise<void>>();
  const own = normalizeAddress(ownAddress);
  const allowed = (sender: string) => {
    if (allowedSenders.length === 0) return true;
    const domain = sender.slice(sender.lastIndexOf("@"));
    return allowedSenders.includes(sender) || allowedSenders.includes(domain);
  };

  function judge(mail: ParsedMail, mailFrom: string): Verdict {
    const from = mail.from?.value.find((a) => a.address);
    if (!from?.address) return { ok: false, why: "a mail without a From address" };
    const sender = normalizeAddress(from.address);
    if (sender === own) return { ok: false, why: `a mail from the bot's own address ${sender}` };
    const auto = automatic(mail, mailFrom);
    if (auto) return { ok: false, why: `${auto} from ${sender}` };
    if (!allowed(sender)) return { ok: false, why: `a mail from ${sender}, who is not in EMAIL_ALLOWED_SENDERS` };
    const references = listOf(mail.references);
    // The mail it answers first, then the thread from the newest back.
    const named = [...listOf(mail.inReplyTo), ...[...references].reverse()].slice(0, NAMED_MAX);
    const ours = named.map((id) => ids.ownFor(id, sender)).filter((id) => id !== undefined);
    if (ours.length === 0) {
      const elsewhere = named.some((id) => ids.looksOwn(id));
      return { ok: false, why: elsewhere ? `a mail from ${sender} that answers a mail the bot sent to another address (wrong sender)` : `a mail from ${sender} that answers no mail of the bot's (unknown message id)` };
    }
    // The prompt's id, where the thread holds it: the gateway keeps it (the copy's messageRef), across restarts.
    const replyTo = (ours.find((id) => id.kind === "p") ?? ours[0]!).id;
    const body = mail.text ?? "";
    if (body.trim() === "" && !mail.html) return { ok: false, why: `a mail from ${sender} with no text part` };
    const text = new EmailReplyParser().read(body).getVisibleText().trim();
    const messageId = mail.messageId?.trim() || `<sha256.${createHash("sha256").update(`${sender}\n${mail.subject ?? ""}\n${body}`).digest("hex")}@unknown>`;
    return { ok: true, sender, ...(from.name ? { name: from.name } : {}), replyTo, text, messageId, references: references.length ? references : [replyTo], subject: mail.subject ?? "" };
  }

  async function handle({ raw, mailFrom, remoteAddress }: InboundMail): Promise<MailOutcome> {
    let mail: ParsedMail;
    try {
      mail = await simpleParser(raw, { skipImageLinks: true, maxHtmlLengthToParse: 1024 * 1024 });
    } catch (error) {
      log(`dropped a mail from ${remoteAddress} that does not parse`, error);
      return "dropped";
    }
    const verdict = judge(mail, mailFrom);
    if (!verdict.ok) {
      log(`dropped ${verdict.why}`);
      return "dropped";
    }
    const { sender, name, replyTo, text, messageId, references, subject } = verdict;
    const response = await bridge.handle({ kind: "text", text, user: { id: sender, ...(name ? { name } : {}) }, chat: sender, direct: true, messageRef: messageId, replyToMessageRef: replyTo });
    if (!response) {
      // A question it does not name, or a mail the gateway had taken before (the same Message-ID, re-read).
      log(`dropped a mail from ${sender}: it answers no question the bot knows`);
      return "dropped";
    }
    await applyEffects(response, emailOps({ smtp, ids, bridge, chat: sender, messageId, references, subject }));
    return "answer";
  }

  /** Handles `mail` after the ones before it from the same sender; never rejects (a failure is logged: "failed"). */
  function take(mail: InboundMail): Promise<MailOutcome> {
    // The sender is known only once parsed; the envelope's is close enough to keep one person's mails in order.
    const key = mail.mailFrom.toLowerCase();
    const outcome = (chains.get(key) ?? Promise.resolve()).then(() => handle(mail)).catch((error): MailOutcome => {
      log("could not handle a mail", error);
      return "failed";
    });
    const next = outcome.then(() => {});
    chains.set(key, next);
    void next.then(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
    return outcome;
  }

  return {
    /** One mail the listener took: handled in the background, after the ones before it from the same sender. */
    onMail(mail: InboundMail): void {
      void take(mail);
    },
    /** One mail read from the mailbox (./imap.ts): resolves once it was handled, to what it was. */
    take,
    /** Resolves once every mail taken so far was handled. */
    async idle(): Promise<void> {
      await Promise.all([...chains.values()]);
    },
  };
}
