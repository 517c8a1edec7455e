/** E-mail, as the shared core knows it (the bot, nodemailer out and an smtp-server listener in, is bots/email). */
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
    /** The interface the inbound SMTP listener binds; unset: GATEWAY_HOST. */
    EMAIL_INBOUND_HOST: optionalText,
    EMAIL_INBOUND_PORT: port.default(EMAIL_INBOUND_DEFAULT_PORT),
    /** `user:password` the relay must give (SMTP AUTH) before it may hand over a mail; unset: no AUTH. */
    EMAIL_INBOUND_AUTH: optionalText.refine((v) => v === undefined || /^[^:]+:.+$/su.test(v), { message: "must be user:password" }),
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
  secrets: ["EMAIL_SMTP_URL", "EMAIL_INBOUND_AUTH"],
  tokenVar: "EMAIL_SMTP_URL",
  portVars: ["EMAIL_INBOUND_PORT"],
  botHelp: "EMAIL_SMTP_URL + EMAIL_FROM (replies through the SMTP listener on EMAIL_INBOUND_PORT; optional EMAIL_ALLOWED_SENDERS)",
  apiName: "the SMTP server",
  escapeText: toEmailText,
  // SMTP credentials have no shape of their own: the known shapes of the other platforms and the entropy check apply.
  credentialShapes: { known: [], split: [] },
  // `+` is part of many addresses (ada+ops@…), so targets write the chat with it: `email:ada+ops@example.com`.
  targetIds: { chat: `${CHAT_LOCAL}@${ADDRESS_DOMAIN}`, user: `${USER_LOCAL}@${ADDRESS_DOMAIN}` },
  answerLinks: true,
  sdks: ["nodemailer", "smtp-server", "mailparser", "email-reply-parser"],
});
