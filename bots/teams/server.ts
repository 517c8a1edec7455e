/**
 * The messaging endpoint: POST /api/messages on TEAMS_HOST:TEAMS_PORT. Every request is authorized by the SDK
 * (`CloudAdapter.authorizeRequest`: the Bot Framework JWT's signature against the issuer's published keys, its
 * audience, issuer, expiry), then `CloudAdapter.process` runs the turn. A request without a valid token gets 401 and
 * reaches nothing. Plain node:http: the SDK needs only an express-shaped request and response.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { CloudAdapter, TurnContext, WebResponse } from "@microsoft/agents-hosting";
import type { Log } from "../shared.ts";

export const TEAMS_MESSAGES_PATH = "/api/messages";
/** An activity is a few KB; a card submit with own words at most tens. */
const BODY_MAX_BYTES = 512 * 1024;

function webResponse(res: ServerResponse): WebResponse {
  const response: WebResponse = {
    status(code) {
      res.statusCode = code;
      return response;
    },
    setHeader(name, value) {
      res.setHeader(name, value);
      return response;
    },
    send(body) {
      if (body === undefined) return response;
      if (typeof body === "string" || Buffer.isBuffer(body)) res.write(body);
      else {
        if (!res.headersSent && !res.getHeader("content-type")) res.setHeader("content-type", "application/json");
        res.write(JSON.stringify(body));
      }
      return response;
    },
    end() {
      if (!res.writableEnded) res.end();
      return response;
    },
    get headersSent() {
      return res.headersSent;
    },
    get writableEnded() {
      return res.writableEnded;
    },
  };
  return response;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_MAX_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export interface TeamsEndpoint {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function listenForActivities(cloud: CloudAdapter, turn: (context: TurnContext) => Promise<void>, host: string, port: number, log: Log): Promise<TeamsEndpoint> {
  const server = createServer((req, res) => {
    void (async () => {
      if (req.url?.split("?")[0] !== TEAMS_MESSAGES_PATH) return void res.writeHead(404).end();
      if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
      const response = webResponse(res);
      const request = { method: req.method, headers: req.headers as Record<string, string | string[] | undefined>, body: undefined as Record<string, unknown> | undefined };
      let authorized = false;
      await cloud.authorizeRequest(request, response, () => void (authorized = true));
      if (!authorized) {
        log(`refused an activity with no valid token (HTTP ${res.statusCode}) from ${req.socket.remoteAddress}`);
        return void response.end();
      }
      request.body = await readJson(req);
      if (!request.body) return void res.writeHead(400).end();
      await cloud.process(request, response, turn);
    })().catch((error: unknown) => {
      log("an activity failed", error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
