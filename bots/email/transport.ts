/**
 * SMTP out, with nodemailer: one transport from EMAIL_SMTP_URL (smtp:// with STARTTLS when the server offers it, or
 * smtps://), every mail from EMAIL_FROM with its own Message-ID, a text and an HTML part, and the thread headers of a
 * reply. A recipient or a mail the server refuses for good (a 5xx to RCPT TO or to the data) is a PermanentSendError; anything else (a 4xx, a
 * dropped connection, a timeout) is thrown as it is, and the bridge's send retries try it again.
 */
import nodemailer from "nodemailer";
import { PermanentSendError } from "../../src/bridge/index.ts";
import type { EmailMessage } from "../../src/platforms/email/payload.ts";

export interface OutgoingMail {
  to: string;
  messageId: string;
  message: EmailMessage;
  /** The mail it answers, and the thread so far (oldest first). */
  inReplyTo?: string;
  references?: readonly string[];
  /** The question the mail is about (the X-Ask-User-Bridge-Question header: for mail filters and logs). */
  questionId?: string;
}

export interface SmtpSender {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** The header that names the question a mail is about. */
export const QUESTION_HEADER = "X-Ask-User-Bridge-Question";

/** A nodemailer error with the server's reply code (`responseCode`) and nodemailer's own `code`. */
interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  command?: string;
}

/** A failure that will not pass: the server refused this recipient (or this mail) for good. */
export function isPermanentSmtpError(error: unknown): boolean {
  const e = error as SmtpError;
  return (e?.code === "EENVELOPE" || e?.code === "EMESSAGE") && typeof e.responseCode === "number" && e.responseCode >= 500 && e.responseCode < 600;
}

/** "smtp://bot:secret@host" → "smtp://bot:***@host", for errors and logs. */
export function redactSmtpUrl(text: string): string {
  return text.replace(/(smtps?:\/\/[^:/@\s]*:)[^@\s]*@/giu, "$1***@");
}

export function createSmtpSender({ url, from }: { url: string; from: string }): SmtpSender {
  // A server that stops answering fails the send within a minute (nodemailer waits up to 10), and the bridge's send
  // retries take over; the URL's own query parameters (?socketTimeout=…) still win.
  const transport = nodemailer.createTransport({ url, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 });
  return {
    async send({ to, messageId, message, inReplyTo, references, questionId }) {
      try {
        await transport.sendMail({
          from,
          to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId,
          ...(inReplyTo ? { inReplyTo } : {}),
          ...(references?.length ? { references: [...references] } : {}),
          // Tells auto-responders (out-of-office) not to answer, so that no mail loop starts.
          headers: { "Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All", ...(questionId ? { [QUESTION_HEADER]: questionId } : {}) },
        });
      } catch (error) {
        const message = redactSmtpUrl(error instanceof Error ? error.message : String(error));
        if (isPermanentSmtpError(error)) throw new PermanentSendError(`email: the SMTP server refused ${to}: ${message}`);
        // The server answered (a 4xx): its reply is the reason. Otherwise the connection failed, and its code says how.
        if (typeof (error as SmtpError)?.responseCode === "number") throw new Error(`email: the SMTP server deferred the mail to ${to}: ${message}`);
        throw new Error(`email: could not send to ${to}: ${message}`, { cause: error });
      }
    },
    close: () => transport.close(),
  };
}
