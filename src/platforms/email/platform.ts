/** E-mail, as the shared core knows it (the bot, nodemailer out, an smtp-server listener and an imapflow reader in, is bots/email). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform } from "../kit/descriptor.ts";
import { emailSurface } from "./surface.ts";
import { toEmailText } from "./escaping.ts";

/** A subject line: cut to this many characters (RFC 5322 advises lines under 78; clients show about 60). */
export const EMAIL_SUBJECT_MAX = 120;
/** A mail's text part: prompts are cut to fit this (a mail could be longer; a question never needs more). */
export const EMAIL_TEXT_MAX = 32_000;
/** A reply mail the listener takes, in bytes (SMTP SIZE): a typed answer never needs more. */
export const EMAIL_INBOUND_MAX_BYTES = 1024 * 1024;
/** The default port of the inbound SMTP listener (a relay forwards replies to it). */
export const EMAIL_INBOUND_DEFAULT_PORT = 2525;

/** How often the mailbox is read when the server has no IDLE (and, with IDLE, as a safety net), by default. */
export const EMAIL_IMAP_DEFAULT_POLL_SECONDS = 60;

/** EMAIL_IMAP_URL, taken apart: the server, the account and the mailbox the replies arrive in. */
export interface ImapMailbox {
  host: string;
  port: number;
  /** imaps:// (TLS from the start); imap:// uses STARTTLS when the server offers it. */
  secure: boolean;
  user: string;
  pass: string;
  mailbox: string;
}

/**
 * `imap://user:pass@host[:port][/mailbox]` or `imaps://…` (ports 143 and 993 by default, mailbox INBOX), the user and
 * password percent-encoded; a string saying what is wrong otherwise (it never repeats the value: it holds a password).
 */
export function parseImapUrl(value: string): ImapMailbox | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a URL; use imap://user:password@host:143/INBOX or imaps://user:password@host:993/INBOX";
  }
  const secure = url.protocol === "imaps:";
  if (!secure && url.protocol !== "imap:") return "must start with imap:// or imaps://";
  if (!url.username || !url.password || !url.hostname) return "must name the user, the password and the host: imap://user:password@host/INBOX";
  try {
    const mailbox = decodeURIComponent(url.pathname.replace(/^\/+/u, "")) || "INBOX";
    return { host: url.hostname.replace(/^\[(.*)\]$/u, "$1"), port: url.port ? Number(url.port) : secure ? 993 : 143, secure, user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password), mailbox };
  } catch {
    return "holds a broken percent-encoding (write a % in the password as %25)";
  }
}

/** An address as targets write it: a local part (case kept), the domain in lower case (normalised once, here). */
const LOCAL_CHARS = "A-Za-z0-9._%'=!#$&*/?^`{|}~-";
/** A chat's local part may hold `+` (ada+ops@…); a user's may not, since `+` separates a target's users. */
const CHAT_LOCAL = `[+${LOCAL_CHARS}]{1,64}`;
const USER_LOCAL = `[${LOCAL_CHARS}]{1,64}`;
const ADDRESS_DOMAIN = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+";

/** An EMAIL_ALLOWED_SENDERS entry: an address or `@domain`, in any case (normalised when read). */
const ALLOWED_SENDER = new RegExp(`^(?:${CHAT_LOCAL})?@${ADDRESS_DOMAIN}$`, "iu");

/** An address as the bot compares it: the domain in lower case (mail domains are case-insensitive), the local part kept. */
export function normalizeAddress(address: string): string {
  const at = address.lastIndexOf("@");
  return at === -1 ? address.trim() : `${address.slice(0, at).trim()}@${address.slice(at + 1).trim().toLowerCase()}`;
}

export const email = definePlatform({
  ...emailSurface,
  exampleChat: "ada@example.com",
  // An address is one person's mailbox: every chat is a direct message, and an answer is a reply to one of the bot's
  // mails (matched by In-Reply-To/References), so the group rules never apply.
  chats: { group: "group", groupAnswer: "reply", replyHint: "Reply to this mail to answer." },
  // Mail has no buttons: every prompt is numbered text, with an answer link per option where the gateway makes them.
  buttons: undefined,
  callbackData: { field: "answer link", max: 2048, unit: "characters" },
  env: ({ z, port, optionalText }: EnvKit) => ({
    /** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465; the credentials are a secret. */
    EMAIL_SMTP_URL: optionalText,
    /** The sender of every mail: `ask-user-bridge <bot@example.com>` or a bare address. */
    EMAIL_FROM: optionalText,
    /** The interface the inbound SMTP listener binds; unset: 127.0.0.1 (with EMAIL_IMAP_URL set: no listener). */
    EMAIL_INBOUND_HOST: optionalText,
    EMAIL_INBOUND_PORT: port.default(EMAIL_INBOUND_DEFAULT_PORT),
    /** `user:password` the relay must give (SMTP AUTH) before it may hand over a mail; unset: no AUTH. */
    EMAIL_INBOUND_AUTH: optionalText.refine((v) => v === undefined || /^[^:]+:.+$/su.test(v), { message: "must be user:password" }),
    /** The listener's certificate (chain), a PEM file: with EMAIL_INBOUND_TLS_KEY it offers STARTTLS; unset: no TLS. */
    EMAIL_INBOUND_TLS_CERT: optionalText,
    /** The private key of EMAIL_INBOUND_TLS_CERT, a PEM file. */
    EMAIL_INBOUND_TLS_KEY: optionalText,
    /** AUTH in cleartext on a listener off the loopback (a network you trust); unset: only after STARTTLS there. */
    EMAIL_INBOUND_ALLOW_PLAIN_AUTH: z
      .string()
      .trim()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v === "" || /^(0|false)$/iu.test(v)) return false;
        if (/^(1|true)$/iu.test(v)) return true;
        ctx.addIssue({ code: "custom", message: 'must be "1" or "true" (or "0", "false", unset)' });
        return z.NEVER;
      }),
    /** The mailbox replies arrive in, read over IMAP (a secret): imap://user:pass@host:143/INBOX or imaps://…:993/…; unset: none. */
    EMAIL_IMAP_URL: optionalText.superRefine((v, ctx) => {
      const parsed = v === undefined ? undefined : parseImapUrl(v);
      if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
    }),
    /** Where answered mail is moved to (made when missing); unset: it stays, marked \Seen and $AskUserBridgeDone. */
    EMAIL_IMAP_DONE_MAILBOX: optionalText,
    /** Seconds between reads of the mailbox when the server has no IDLE (and, with IDLE, as a safety net). */
    EMAIL_IMAP_POLL_SECONDS: z.coerce.number().int().min(1).max(3_600).default(EMAIL_IMAP_DEFAULT_POLL_SECONDS),
    /** Who may answer at all: comma-separated addresses or `@domain`s; unset: anyone a question was mailed to. */
    EMAIL_ALLOWED_SENDERS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const entries = (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
        const bad = entries.find((entry) => !ALLOWED_SENDER.test(entry));
        if (bad) ctx.addIssue({ code: "custom", message: `"${bad}" is not an address or an @domain; use a comma-separated list such as ada@example.com,@ops.example.com` });
        return entries.map(normalizeAddress);
      }),
  }),
  secrets: ["EMAIL_SMTP_URL", "EMAIL_INBOUND_AUTH", "EMAIL_IMAP_URL"],
  tokenVar: "EMAIL_SMTP_URL",
  portVars: ["EMAIL_INBOUND_PORT"],
  // Replies come as mail: a relay forwards them to this SMTP listener (or the bot reads EMAIL_IMAP_URL, and listens on nothing).
  inbound: { protocol: "smtp", hostVar: "EMAIL_INBOUND_HOST", portVar: "EMAIL_INBOUND_PORT", paths: [] },
  botHelp: "EMAIL_SMTP_URL + EMAIL_FROM (replies through the SMTP listener on EMAIL_INBOUND_PORT, or from the mailbox of EMAIL_IMAP_URL; optional EMAIL_ALLOWED_SENDERS)",
  apiName: "the SMTP server",
  escapeText: toEmailText,
  // SMTP credentials have no shape of their own: the known shapes of the other platforms and the entropy check apply.
  credentialShapes: { known: [], split: [] },
  // `+` is part of many addresses (ada+ops@…), so targets write the chat with it: `email:ada+ops@example.com`.
  targetIds: { chat: `${CHAT_LOCAL}@${ADDRESS_DOMAIN}`, user: `${USER_LOCAL}@${ADDRESS_DOMAIN}` },
  answerLinks: true,
  sdks: ["nodemailer", "smtp-server", "mailparser", "email-reply-parser", "imapflow"],
});
