/**
 * One HTTP listener for the bots that take webhooks (Telegram, WhatsApp, Mattermost, Teams): host and port, request
 * bodies capped (413 past the cap), a taken port reported by the variable that sets it, and a clean close (open
 * connections dropped, then the server closed).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readCappedBody } from "../../src/kernel/capped-body.ts";

export interface ListenerOptions {
  host: string;
  port: number;
  /** The variable that sets the port (`TELEGRAM_WEBHOOK_PORT`): a taken port is reported by it. */
  portVariable: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export interface Listener {
  server: Server;
  /** The port bound (the one asked for, or the one the system chose for 0). */
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port; a taken port or an address this machine does not have fails the start (the CLI names it). */
export async function startListener({ host, port, portVariable, handle }: ListenerOptions): Promise<Listener> {
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") Object.assign(error, { message: `${portVariable} ${port} is in use`, portVariable });
      reject(error);
    };
    server.once("error", refuse);
    server.listen(port, host, () => {
      server.off("error", refuse);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The request's body, or undefined after answering 413 (with `tooLarge`, the platform's own form of it) past `maxBytes`. */
export async function readBodyOr413(req: IncomingMessage, res: ServerResponse, maxBytes: number, tooLarge: (res: ServerResponse) => void = (r) => void r.writeHead(413).end()): Promise<Buffer | undefined> {
  const body = await readCappedBody(req, maxBytes);
  if (body === undefined && !res.headersSent) tooLarge(res);
  return body;
}
