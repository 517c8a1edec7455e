import { ConfigError, requireConfig, type Config } from "../../src/runtime/config.ts";
import { cutToFit } from "../../src/render/index.ts";
import { EMAIL_TEXT_MAX, parseImapUrl } from "../../src/platforms/email/platform.ts";
import { toEmailText } from "../../src/platforms/email/escaping.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { createEmailAdapter } from "./adapter.ts";
import { createImapCursorStore } from "./imap-cursor.ts";
import { createEmailInbound } from "./inbound.ts";
import { listenerSecurityOf } from "./listener-security.ts";
import { createMessageIds } from "./message-id.ts";
import { createSmtpSender } from "./transport.ts";

export interface EmailBotOptions {
  log?: Log;
}

/** The address of EMAIL_FROM (`Name <bot@example.com>` or a bare address), or a ConfigError. */
export function fromAddressOf(from: string): string {
  const address = /<([^<>\s]+@[^<>\s]+)>\s*$/u.exec(from)?.[1] ?? (/^[^\s<>]+@[^\s<>]+$/u.test(from.trim()) ? from.trim() : undefined);
  if (!address) throw new ConfigError([`EMAIL_FROM: "${from}" is not an address; use bot@example.com or "Name <bot@example.com>"`]);
  return address;
}

/**
 * The e-mail bot: prompts go out by SMTP with nodemailer (EMAIL_SMTP_URL, from EMAIL_FROM), and replies come in
 * through an SMTP listener (smtp-server) on EMAIL_INBOUND_HOST:EMAIL_INBOUND_PORT (127.0.0.1 by default; its TLS and
 * AUTH rules are ./listener-security.ts), which the mail relay forwards the bot's address to, or are read from the
 * mailbox of EMAIL_IMAP_URL (./imap.ts), or both. With EMAIL_IMAP_URL set, the listener runs only when
 * EMAIL_INBOUND_HOST names where it binds: a mailbox reader opens no port it was not asked to.
 */
export async function startEmailBot(config: Config, options: EmailBotOptions = {}): Promise<RunningBot> {
  const { EMAIL_SMTP_URL, EMAIL_FROM } = requireConfig(config, ["EMAIL_SMTP_URL", "EMAIL_FROM"]);
  // The value holds a password: the error never repeats it.
  if (!/^smtps?:\/\//iu.test(EMAIL_SMTP_URL)) throw new ConfigError(["EMAIL_SMTP_URL: must start with smtp:// or smtps://"]);
  const ownAddress = fromAddressOf(EMAIL_FROM);
  // loadConfig checked it; the check again here is for a Config made another way.
  const imap = config.EMAIL_IMAP_URL === undefined ? undefined : parseImapUrl(config.EMAIL_IMAP_URL);
  if (typeof imap === "string") throw new ConfigError([`EMAIL_IMAP_URL: ${imap}`]);
  const listens = !imap || config.EMAIL_INBOUND_HOST !== undefined;
  // Read and checked before anything connects: a bad certificate or a cleartext password is a ConfigError at start.
  const security = listens ? listenerSecurityOf(config) : undefined;
  const log = options.log ?? createLog("email");
  const smtp = createSmtpSender({ url: EMAIL_SMTP_URL, from: EMAIL_FROM });
  // Message-IDs are signed with the SMTP URL (a secret every bot process of the deployment shares), so a reply's
  // thread proves which of them are the bot's. A new EMAIL_SMTP_URL makes replies to the mails sent before unknown.
  const ids = createMessageIds(EMAIL_SMTP_URL, ownAddress.slice(ownAddress.lastIndexOf("@") + 1).toLowerCase());
  const adapter = createEmailAdapter({ smtp, ids });
  let inbound: ReturnType<typeof createEmailInbound> | undefined;

  return startBridgeBot({
    config,
    log,
    // EMAIL_ALLOWED_SENDERS holds `@domain`s too, so the bot checks it itself (inbound.ts) before the bridge sees a mail.
    allowedUsers: [],
    otherOpens: "reply",
    adapter,
    toPlatformText: (text) => cutToFit(text, EMAIL_TEXT_MAX, toEmailText),
    listen(bridge) {
      inbound = createEmailInbound({ bridge, smtp, ids, ownAddress, allowedSenders: config.EMAIL_ALLOWED_SENDERS, log });
    },
    async start(deliver) {
      // Each way in loads its library only when it is configured (smtp-server, imapflow): an idle bot holds less.
      const listener = security
        ? await (await import("./listener.ts")).listenSmtp({
            ...security,
            port: config.EMAIL_INBOUND_PORT,
            ...(config.EMAIL_INBOUND_AUTH ? { auth: config.EMAIL_INBOUND_AUTH } : {}),
            log,
            onMail: (mail) => inbound?.onMail(mail),
          })
        : undefined;
      try {
        await deliver();
      } catch (error) {
        await listener?.stop();
        smtp.close();
        throw error;
      }
      if (listener && security) log(`SMTP listener on port ${listener.port} (${security.host}${security.tls ? ", STARTTLS" : ""})`);
      // After the first sync: an answer read from the mailbox finds the bridge knowing the questions.
      const reader = imap
        ? (await import("./imap.ts")).startImapReader({
            mailbox: imap,
            ...(config.EMAIL_IMAP_DONE_MAILBOX ? { doneMailbox: config.EMAIL_IMAP_DONE_MAILBOX } : {}),
            pollMs: config.EMAIL_IMAP_POLL_SECONDS * 1000,
            cursor: createImapCursorStore(config.DATA_DIR, `${imap.user}@${imap.host}:${imap.port}/${imap.mailbox}`),
            take: (mail) => inbound!.take(mail),
            log,
            debug: config.LOG_LEVEL === "debug" || config.LOG_LEVEL === "trace",
          })
        : undefined;
      return {
        async stop() {
          await reader?.stop();
          await listener?.stop();
          // The mails being handled finish first (at most a few seconds), so none is half answered.
          await Promise.race([inbound?.idle(), new Promise((resolve) => setTimeout(resolve, 3_000).unref?.())]);
          smtp.close();
        },
      };
    },
  });
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot email`). */
export { startEmailBot as startBot };
