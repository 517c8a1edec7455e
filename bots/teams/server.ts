/**
 * The messaging endpoint: POST /api/messages on TEAMS_HOST:TEAMS_PORT. Every request is authorized by the SDK
 * (`CloudAdapter.authorizeRequest`: the Bot Framework JWT's signature against the issuer's published keys, its
 * audience, issuer, expiry), then `CloudAdapter.process` runs the turn. A request without a valid token gets 401 and
 * reaches nothing. Plain node:http: the SDK needs only an express-shaped request and response.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CloudAdapter, TurnContext, WebResponse } from "@microsoft/agents-hosting";
import type { Log } from "../shared.ts";
import { readBodyOr413, startListener, type Listener } from "../kit/listener.ts";

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

function parseActivity(body: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export type TeamsEndpoint = Listener;

export function listenForActivities(cloud: CloudAdapter, turn: (context: TurnContext) => Promise<void>, host: string, port: number, log: Log): Promise<TeamsEndpoint> {
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
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
      const body = await readBodyOr413(req, res, BODY_MAX_BYTES);
      if (!body) return;
      request.body = parseActivity(body);
      if (!request.body) return void res.writeHead(400).end();
      await cloud.process(request, response, turn);
    })().catch((error: unknown) => {
      log("an activity failed", error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
  return startListener({ host, port, portVariable: "TEAMS_PORT", handle });
}
