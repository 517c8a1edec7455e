import type { Server } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";

/** Gateway opcodes the fake speaks (https://discord.com/developers/docs/topics/opcodes-and-status-codes). */
export const OP = { DISPATCH: 0, HEARTBEAT: 1, IDENTIFY: 2, RESUME: 6, RECONNECT: 7, INVALID_SESSION: 9, HELLO: 10, HEARTBEAT_ACK: 11 } as const;

/** One payload the fake received or sent, in order, for assertions. */
export interface GatewayFrame {
  direction: "in" | "out";
  op: number;
  t?: string;
  s?: number;
  d?: any;
  session?: string;
}

/** A gateway session: it outlives a dropped socket and can be resumed; a clean close (1000/1001) ends it. */
interface Session {
  id: string;
  seq: number;
  /** Every dispatch with its sequence number, for replay on RESUME. */
  log: Array<{ s: number; t: string; d: unknown }>;
  socket: WebSocket | null;
  ended: boolean;
  /** The intents sent with IDENTIFY. */
  intents: number;
}

/** A dispatch's data, or a function of the session's intents that returns it (null: not sent to that session). */
export type DispatchData = unknown | ((intents: number) => unknown);

export interface FakeGatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  /** The READY payload's `d`, without session_id and resume_gateway_url. */
  ready: () => Record<string, unknown>;
  /** The GUILD_CREATE payloads sent after READY. */
  guilds: () => Array<Record<string, unknown>>;
  /** Privileged intents the application has not enabled: an IDENTIFY asking for them is closed with 4014. */
  disallowedIntents?: number;
}

/**
 * A Discord gateway on a WebSocket, enough for discord.js: HELLO, IDENTIFY, READY, GUILD_CREATE, heartbeats and
 * their ACKs, and RESUME with replay of the dispatches a dropped socket missed. JSON encoding, no compression.
 */
export function startFakeDiscordGateway(server: Server, baseUrl: string, options: FakeGatewayOptions) {
  const wss = new WebSocketServer({ server, path: "/gateway" });
  const url = `${baseUrl.replace(/^http/, "ws")}/gateway`;
  const sessions = new Map<string, Session>();
  const frames: GatewayFrame[] = [];
  let nextSession = 1;

  function send(socket: WebSocket, payload: { op: number; d: unknown; s?: number | null; t?: string | null }, session?: Session): void {
    if (socket.readyState !== socket.OPEN) return;
    frames.push({ direction: "out", op: payload.op, d: payload.d, ...(payload.t ? { t: payload.t } : {}), ...(payload.s ? { s: payload.s } : {}), ...(session ? { session: session.id } : {}) });
    socket.send(JSON.stringify({ s: null, t: null, ...payload }));
  }

  function dispatchTo(session: Session, t: string, d: unknown): void {
    const s = ++session.seq;
    session.log.push({ s, t, d });
    if (session.socket) send(session.socket, { op: OP.DISPATCH, t, s, d }, session);
  }

  wss.on("connection", (socket, req) => {
    const query = new URL(req.url ?? "/", baseUrl).searchParams;
    if (query.get("compress")) socket.close(4000, "the fake speaks no compression");
    let session: Session | undefined;
    send(socket, { op: OP.HELLO, d: { heartbeat_interval: options.heartbeatIntervalMs } });
    socket.on("message", (raw) => {
      const payload = JSON.parse(raw.toString()) as { op: number; d: any };
      frames.push({ direction: "in", op: payload.op, d: payload.d, ...(session ? { session: session.id } : {}) });
      switch (payload.op) {
        case OP.HEARTBEAT:
          return send(socket, { op: OP.HEARTBEAT_ACK, d: null }, session);
        case OP.IDENTIFY: {
          if (payload.d?.token !== options.token) return socket.close(4004, "Authentication failed.");
          if (session) return socket.close(4005, "Already authenticated.");
          if (Number(payload.d.intents) & (options.disallowedIntents ?? 0)) return socket.close(4014, "Disallowed intent(s).");
          session = { id: `session-${nextSession++}`, seq: 0, log: [], socket, ended: false, intents: Number(payload.d.intents ?? 0) };
          sessions.set(session.id, session);
          dispatchTo(session, "READY", { v: 10, ...options.ready(), session_id: session.id, resume_gateway_url: url });
          for (const guild of options.guilds()) dispatchTo(session, "GUILD_CREATE", guild);
          return;
        }
        case OP.RESUME: {
          const found = sessions.get(payload.d?.session_id);
          if (payload.d?.token !== options.token) return socket.close(4004, "Authentication failed.");
          if (!found || found.ended) return send(socket, { op: OP.INVALID_SESSION, d: false });
          found.socket?.terminate();
          session = found;
          found.socket = socket;
          for (const missed of found.log.filter((e) => e.s > Number(payload.d.seq ?? 0))) send(socket, { op: OP.DISPATCH, ...missed }, found);
          return dispatchTo(found, "RESUMED", {});
        }
        default:
          return socket.close(4001, "Unknown opcode.");
      }
    });
    socket.on("close", (code) => {
      if (!session || session.socket !== socket) return;
      session.socket = null;
      // Discord invalidates the session when the client closes with 1000 or 1001; other closes may resume.
      if (code === 1000 || code === 1001) session.ended = true;
    });
  });

  return {
    url,
    frames,
    /** Sends a dispatch to every live session; a session whose socket is down keeps it for its RESUME. */
    dispatch(t: string, data: DispatchData): void {
      for (const session of sessions.values()) {
        if (session.ended) continue;
        const d = typeof data === "function" ? (data as (intents: number) => unknown)(session.intents) : data;
        if (d !== null) dispatchTo(session, t, d);
      }
    },
    /** Drops every socket without a close frame, as a network failure would (the client sees 1006). */
    dropSockets(): void {
      for (const session of sessions.values()) session.socket?.terminate();
    },
    /** Sessions that may still receive dispatches. */
    liveSessions: () => [...sessions.values()].filter((s) => !s.ended).map((s) => ({ id: s.id, connected: s.socket?.readyState === s.socket?.OPEN && s.socket !== null, seq: s.seq })),
    received: (op: number) => frames.filter((f) => f.direction === "in" && f.op === op),
    sent: (op: number, t?: string) => frames.filter((f) => f.direction === "out" && f.op === op && (t === undefined || f.t === t)),
    close(): Promise<void> {
      for (const client of wss.clients) client.terminate();
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}

export type FakeDiscordGateway = ReturnType<typeof startFakeDiscordGateway>;
