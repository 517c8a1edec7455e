/**
 * The inbound path: an SMTP listener (smtp-server) that the mail relay forwards replies to. It takes any recipient
 * (which addresses reach it is the relay's routing), refuses a mail over EMAIL_INBOUND_MAX_BYTES (SIZE, and 552 when
 * one is sent anyway), asks for SMTP AUTH when EMAIL_INBOUND_AUTH is set, and hands each whole mail on. It never
 * relays and never sends a bounce itself: a mail it cannot use is taken (250) and dropped with a log line, so nothing
 * goes back to a forged sender. SPF, DKIM and DMARC are the relay's job, before it forwards.
 *
 * AUTH is guarded (issue 37 §6, ./listener-security.ts decides how): STARTTLS with the configured certificate, AUTH
 * in cleartext only where `plainAuth` allows it (else 538 until STARTTLS), the password compared in constant time,
 * and wrong logins backed off per client address (./auth-backoff.ts): past a few, the next waits its turn, and the
 * connection that made the last one is closed with 421 saying how long.
 */
import { SMTPServer } from "smtp-server";
import { EMAIL_INBOUND_MAX_BYTES } from "../../src/platforms/email/platform.ts";
import type { Log } from "../shared.ts";
import { sameSecret } from "../kit/signature.ts";
import { createSmtpAuthBackoff, type SmtpAuthBackoff } from "./auth-backoff.ts";

export interface InboundMail {
  raw: Buffer;
  /** The envelope sender (MAIL FROM); empty for a bounce. */
  mailFrom: string;
  remoteAddress: string;
}

export interface ListenerOptions {
  host: string;
  port: number;
  /** `user:password` the relay must give; undefined: no AUTH. */
  auth?: string;
  /** The PEM certificate and key STARTTLS offers; undefined: no STARTTLS. */
  tls?: { cert: Buffer; key: Buffer };
  /** AUTH without STARTTLS (a loopback listener, or EMAIL_INBOUND_ALLOW_PLAIN_AUTH); default true. */
  plainAuth?: boolean;
  backoff?: SmtpAuthBackoff;
  maxBytes?: number;
  log: Log;
  onMail(mail: InboundMail): void;
}


const coded = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

export async function listenSmtp({ host, port, auth, tls, plainAuth = true, backoff = createSmtpAuthBackoff(), log, onMail, maxBytes = EMAIL_INBOUND_MAX_BYTES }: ListenerOptions): Promise<{ port: number; stop(): Promise<void> }> {
  const colon = auth?.indexOf(":") ?? -1;
  const credentials = auth && colon > 0 ? { user: auth.slice(0, colon), pass: auth.slice(colon + 1) } : undefined;
  // Without STARTTLS, smtp-server would take AUTH in cleartext whatever allowInsecureAuth says.
  if (credentials && !tls && !plainAuth) throw new Error("listenSmtp: AUTH without plainAuth needs tls (STARTTLS)");
  /** The sessions with a login waiting its turn, and whether their connection is still open (else it is dropped). */
  const waiting = new Map<string, boolean>();
  const server = new SMTPServer({
    name: "ask-user-bridge",
    banner: "ask-user-bridge reply listener",
    size: maxBytes,
    // A relay keeps a few connections open; more than this at once is not one.
    maxClients: 100,
    // STARTTLS only with a certificate of its own (smtp-server's built-in one has a public key); AUTH only when asked.
    disabledCommands: [...(tls ? [] : ["STARTTLS"]), ...(credentials ? [] : ["AUTH"])],
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    authOptional: !credentials,
    allowInsecureAuth: plainAuth,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(login, session, callback) {
      const right = () => {
        // Both compared every time, so the time says nothing of which was wrong.
        const user = sameSecret(login.username ?? "", credentials?.user ?? "");
        const pass = sameSecret(login.password ?? "", credentials?.pass ?? "");
        return credentials !== undefined && user && pass;
      };
      waiting.set(session.id, true);
      void backoff.login(session.remoteAddress, right, () => waiting.get(session.id) === true).then((verdict) => {
        waiting.delete(session.id);
        if (verdict.ok) return callback(null, { user: login.username });
        if (verdict.gone) return callback(coded(421, "Connection closed"));
        const wait = Math.ceil(verdict.lockedForMs / 1000);
        log(`refused SMTP AUTH as ${JSON.stringify(login.username ?? "")} from ${session.remoteAddress}${wait > 0 ? ` (too many wrong logins: its next waits ${wait} s)` : ""}`);
        // 421 closes the connection: a guesser must come back, and its next login waits its turn.
        callback(wait > 0 ? coded(421, `Too many failed logins from this address; try again in ${wait} s`) : coded(535, "Invalid username or password"));
      });
    },
    onClose(session) {
      if (waiting.has(session.id)) waiting.set(session.id, false);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.on("end", () => {
        if (stream.sizeExceeded) {
          log(`refused a mail over ${maxBytes} bytes from ${session.remoteAddress}`);
          const error = new Error(`Message exceeds the size limit of ${maxBytes} bytes`) as Error & { responseCode: number };
          error.responseCode = 552;
          return callback(error);
        }
        // Read before answering: the answer resets the session, envelope and all.
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        callback(null);
        try {
          onMail({ raw: Buffer.concat(chunks), mailFrom, remoteAddress: session.remoteAddress });
        } catch (error) {
          log("could not handle a mail", error);
        }
      });
    },
  });
  server.on("error", (error) => log("SMTP listener error", error));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(port, host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const address = server.server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
