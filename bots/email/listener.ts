/**
 * The inbound path: an SMTP listener (smtp-server) that the mail relay forwards replies to. It takes any recipient
 * (which addresses reach it is the relay's routing), refuses a mail over EMAIL_INBOUND_MAX_BYTES (SIZE, and 552 when
 * one is sent anyway), asks for SMTP AUTH when EMAIL_INBOUND_AUTH is set, and hands each whole mail on. It never
 * relays and never sends a bounce itself: a mail it cannot use is taken (250) and dropped with a log line, so nothing
 * goes back to a forged sender. SPF, DKIM and DMARC are the relay's job, before it forwards.
 */
import { timingSafeEqual } from "node:crypto";
import { SMTPServer } from "smtp-server";
import { EMAIL_INBOUND_MAX_BYTES } from "../../src/render/index.ts";
import type { Log } from "../shared.ts";

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
  maxBytes?: number;
  log: Log;
  onMail(mail: InboundMail): void;
}

const same = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

export async function listenSmtp({ host, port, auth, log, onMail, maxBytes = EMAIL_INBOUND_MAX_BYTES }: ListenerOptions): Promise<{ port: number; stop(): Promise<void> }> {
  const colon = auth?.indexOf(":") ?? -1;
  const credentials = auth && colon > 0 ? { user: auth.slice(0, colon), pass: auth.slice(colon + 1) } : undefined;
  const server = new SMTPServer({
    name: "ask-user-bridge",
    banner: "ask-user-bridge reply listener",
    size: maxBytes,
    // A relay keeps a few connections open; more than this at once is not one.
    maxClients: 100,
    // No certificate of its own: it sits behind the relay, on a private network or the loopback.
    disabledCommands: credentials ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !credentials,
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(login, _session, callback) {
      if (credentials && same(login.username ?? "", credentials.user) && same(login.password ?? "", credentials.pass)) return callback(null, { user: login.username });
      log(`refused SMTP AUTH as ${JSON.stringify(login.username ?? "")}`);
      callback(new Error("Invalid username or password"));
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
