/**
 * The other inbound path: replies read from a mailbox over IMAP (imapflow), for a deployment whose mail provider keeps
 * the bot's mail instead of forwarding it to the listener (./listener.ts). Each new mail goes, as its raw source, the very
 * way a listener's mail goes (./inbound.ts: mailparser, the sender and thread checks, reply stripping, the bridge), one at
 * a time in UID order. The provider took the mail, so SPF, DKIM and DMARC are its job, and EMAIL_INBOUND_AUTH (the relay's
 * login to the listener) has no part here: the mailbox's own login is EMAIL_IMAP_URL. A mail over EMAIL_INBOUND_MAX_BYTES is
 * dropped unread, as the listener refuses one.
 *
 * When a mail was handled it is marked, then the cursor moves past it (./imap-cursor.ts): an answer gets \Seen and
 * $AskUserBridgeDone (or is moved to EMAIL_IMAP_DONE_MAILBOX), a mail that is none only $AskUserBridgeDone, so it stays unread
 * for a person to look at. A crash before the mark reads the mail again, and the gateway, which takes a Message-ID once,
 * refuses the second copy (DUPLICATE_REPLY); a mail that came while the bot was down is read when it is back. With no cursor
 * (the first start) or a new UIDVALIDITY (the mailbox was rebuilt), the UIDs say nothing: the unseen mail without the
 * keyword is read (since the old cursor's day, for a new UIDVALIDITY), then the cursor starts from the newest mail.
 *
 * New mail is waited for with IDLE where the server has it, and the mailbox is also read every EMAIL_IMAP_POLL_SECONDS
 * (on a server without IDLE, that is how it is read). A server that cannot be reached or refuses the login is tried again
 * with backoff (up to 5 minutes apart), with one log line per new reason and none per attempt.
 */
import { ImapFlow, type FetchMessageObject } from "imapflow";
import { backoffDelay } from "../../src/kernel/backoff.ts";
import { EMAIL_INBOUND_MAX_BYTES, type ImapMailbox } from "../../src/platforms/email/platform.ts";
import type { Log } from "../shared.ts";
import type { ImapCursorStore } from "./imap-cursor.ts";
import type { MailOutcome } from "./inbound.ts";
import type { InboundMail } from "./listener.ts";

/** The keyword on every mail the bot has handled. */
export const DONE_KEYWORD = "$AskUserBridgeDone";
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 5 * 60_000;

export interface ImapReaderOptions {
  mailbox: ImapMailbox;
  /** Where answers are moved to; undefined: they stay, marked. */
  doneMailbox?: string;
  pollMs: number;
  cursor: ImapCursorStore;
  take(mail: InboundMail): Promise<MailOutcome>;
  log: Log;
  /** LOG_LEVEL debug: a failure's line holds its stack. */
  debug?: boolean;
  maxBytes?: number;
}

type Seen = Pick<FetchMessageObject, "uid" | "flags" | "size">;

/** The envelope sender the delivering server wrote (Return-Path; `<>` for a bounce), or undefined. */
export function returnPathOf(raw: Buffer): string | undefined {
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.subarray(0, end === -1 ? Math.min(raw.length, 64 * 1024) : end).toString("latin1");
  return /^Return-Path:[ \t]*<([^>]*)>/imu.exec(head)?.[1]?.trim();
}

/** One line that says why the mailbox cannot be read (never the password, never a stack). */
function whyNot(error: unknown, { host, port, user, mailbox }: ImapMailbox): string {
  const e = error as { authenticationFailed?: boolean; code?: string; serverResponseCode?: string; responseText?: string; message?: string };
  if (e?.authenticationFailed) return `the server at ${host}:${port} refused the login of ${JSON.stringify(user)}${e.responseText ? ` (${e.responseText})` : ""}: check EMAIL_IMAP_URL`;
  if (e?.serverResponseCode === "NONEXISTENT" || e?.serverResponseCode === "TRYCREATE") return `the server at ${host}:${port} has no mailbox ${JSON.stringify(mailbox)}: check EMAIL_IMAP_URL`;
  if (e?.code && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET|CONNECT_TIMEOUT|GREETING_TIMEOUT)$/u.test(e.code)) return `cannot reach the IMAP server at ${host}:${port} (${e.code})`;
  const detail = (e?.responseText ?? e?.message ?? String(error)).replace(/(imaps?:\/\/[^:/@\s]*:)[^@\s]*@/giu, "$1***@");
  return `the IMAP server at ${host}:${port} failed: ${detail}`;
}

export function startImapReader({ mailbox, doneMailbox, pollMs, cursor, take, log, debug = false, maxBytes = EMAIL_INBOUND_MAX_BYTES }: ImapReaderOptions) {
  const where = `${mailbox.mailbox} at ${mailbox.host}:${mailbox.port}`;
  let stopped = false;
  let stop!: () => void;
  const stopping = new Promise<void>((resolve) => (stop = resolve));
  let current: ImapFlow | undefined;
  // A wake-up that a mail arriving while the bot reads is not lost to: `pending` stays set until the next read.
  let pending = false;
  let woken = () => {};
  const wake = () => {
    pending = true;
    woken();
  };
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

  async function handleOne(client: ImapFlow, { uid, size }: Seen): Promise<void> {
    let outcome: MailOutcome;
    if ((size ?? 0) > maxBytes) {
      log(`dropped a mail over ${maxBytes} bytes (UID ${uid} in ${mailbox.mailbox})`);
      outcome = "dropped";
    } else {
      const full = await client.fetchOne(String(uid), { source: true }, { uid: true });
      if (!full || !full.source) return; // gone meanwhile (a person moved it): nothing to mark
      outcome = await take({ raw: full.source, mailFrom: returnPathOf(full.source) ?? "imap", remoteAddress: `UID ${uid} in ${mailbox.mailbox}` });
    }
    if (outcome === "answer") {
      await client.messageFlagsAdd(String(uid), ["\\Seen", DONE_KEYWORD], { uid: true });
      if (doneMailbox) await client.messageMove(String(uid), doneMailbox, { uid: true });
    } else {
      await client.messageFlagsAdd(String(uid), [DONE_KEYWORD], { uid: true });
    }
  }

  async function collect(client: ImapFlow, range: string | number[]): Promise<Seen[]> {
    const found: Seen[] = [];
    for await (const m of client.fetch(range, { uid: true, flags: true, size: true }, { uid: true })) found.push({ uid: m.uid, flags: m.flags, size: m.size });
    return found.sort((a, b) => a.uid - b.uid);
  }

  /** Reads every mail after the cursor (or, without a cursor that holds, the unseen ones), in UID order. */
  async function readNew(client: ImapFlow): Promise<void> {
    const box = client.mailbox;
    if (!box) throw new Error(`the mailbox ${mailbox.mailbox} is not open`);
    const validity = String(box.uidValidity);
    const saved = cursor.read();
    if (saved?.uidValidity === validity) {
      for (const m of (await collect(client, `${saved.uid + 1}:*`)).filter((found) => found.uid > saved.uid)) {
        if (stopped) return; // the rest next time
        if (!m.flags?.has(DONE_KEYWORD)) await handleOne(client, m);
        cursor.write(validity, m.uid);
      }
      return;
    }
    const newest = box.uidNext - 1;
    if (saved) log(`the UIDVALIDITY of ${where} changed (the mailbox was rebuilt): reading its unseen mail since ${saved.savedAt.slice(0, 10)}`);
    const uids = (await client.search({ seen: false, unKeyword: DONE_KEYWORD, ...(saved ? { since: new Date(saved.savedAt) } : {}) }, { uid: true })) || [];
    let last = newest;
    for (const m of uids.length ? await collect(client, uids) : []) {
      if (stopped) return; // the keyword marks what was handled; the cursor starts once all was
      await handleOne(client, m);
      last = Math.max(last, m.uid);
    }
    cursor.write(validity, last);
  }

  /** One connection: open the mailbox, then read, wait, read… until it closes (throws) or the bot stops. */
  async function session(onOpen: (idle: boolean) => void): Promise<void> {
    const client = new ImapFlow({
      host: mailbox.host,
      port: mailbox.port,
      secure: mailbox.secure,
      auth: { user: mailbox.user, pass: mailbox.pass },
      logger: false,
      disableAutoIdle: true,
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
    });
    current = client;
    let failure: unknown;
    client.on("error", (error) => (failure ??= error));
    client.on("exists", wake);
    const closed = new Promise<void>((resolve) => client.once("close", resolve));
    try {
      await client.connect();
      if (doneMailbox) await client.mailboxCreate(doneMailbox).catch(() => {}); // there already (or the move says why)
      await client.mailboxOpen(mailbox.mailbox);
      const idle = client.capabilities.has("IDLE");
      onOpen(idle);
      while (!stopped && client.usable) {
        pending = false;
        await readNew(client);
        if (stopped || pending) continue;
        const wakeUp = new Promise<void>((resolve) => (woken = resolve));
        // A command breaks the IDLE (imapflow sends DONE first); without IDLE, the read's own commands see new mail.
        if (idle) void client.idle().catch(() => {});
        await Promise.race([wakeUp, sleep(pollMs), closed, stopping]);
      }
    } catch (error) {
      failure ??= error;
    }
    if (stopped) {
      await Promise.race([client.logout().catch(() => {}), sleep(2_000)]);
      client.close();
      return;
    }
    client.close();
    throw failure ?? new Error("the server closed the connection");
  }

  async function run(): Promise<void> {
    let attempt = 0;
    let problem: string | undefined;
    let opened = false;
    while (!stopped) {
      try {
        await session((idle) => {
          const how = idle ? "IDLE" : `polling every ${Math.round(pollMs / 1000)} s (the server has no IDLE)`;
          log(`${opened ? "reading the mailbox again" : "reading the mailbox"} ${where} (${how})`);
          opened = true;
          attempt = 0;
          problem = undefined;
        });
      } catch (error) {
        if (stopped) break;
        const why = whyNot(error, mailbox);
        // One line per reason: a server down for an hour says so once, not at every retry.
        if (why !== problem) log(`IMAP warning: ${why}; trying again with backoff${debug && error instanceof Error && error.stack ? `\n${error.stack}` : ""}`);
        problem = why;
      }
      if (stopped) break;
      await Promise.race([sleep(backoffDelay(attempt++, RETRY_BASE_MS, RETRY_MAX_MS)), stopping]);
    }
  }

  const running = run();
  return {
    /** Stops after the mail being handled (its mark and cursor written), and logs out. */
    async stop(): Promise<void> {
      stopped = true;
      stop();
      woken();
      await Promise.race([running, sleep(5_000)]);
      current?.close();
    },
  };
}
