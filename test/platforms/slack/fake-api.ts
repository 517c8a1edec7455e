import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { createResponseHolds, heldResponse } from "../../fakes/held-responses.ts";
import { postSigned, slackRequestBody } from "./slack-signing.ts";

/** A message as the fake Web API keeps it. */
export interface FakeSlackMessage {
  channel: string;
  ts: string;
  user: string;
  bot: boolean;
  text: string;
  blocks?: any[];
  /** The blocks as first sent: a person whose client has not refreshed can still press these. */
  sentBlocks?: any[];
  /** The bot posted it with blocks (a prompt), not as plain text (a reply). */
  prompt: boolean;
  thread_ts?: string;
  deleted?: boolean;
  edits: number;
  /** The bot's reactions on it (reactions.add), as emoji names. */
  reactions?: string[];
}

export interface FakeSlackPerson {
  id: string;
  name: string;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
}

type Failure = { status: 429; retryAfter: number } | { error: string };
type Inbound = (kind: "events_api" | "interactive", payload: unknown) => Promise<number>;

export const FAKE_TEAM = { id: "T0TEAM", domain: "fake" };
export const FAKE_BOT = { user_id: "U0BOT", bot_id: "B0BOT", app_id: "A0APP" };
const TRIGGER_TTL_MS = 3_000;

export interface FakeSlackOptions {
  botToken: string;
  appToken: string;
  people: FakeSlackPerson[];
  /** Channels the bot is in; posting anywhere else gets channel_not_found. */
  channels: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`fake Slack: timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * A local stand-in for Slack: the Web API (form-encoded POST /api/<method>) and a Socket Mode server.
 * Tests act as people through `press`, `submitView` and `type`; what reaches the bot goes through Socket Mode,
 * or through signed HTTP requests once `useHttp` is called.
 */
export async function startFakeSlack(options: FakeSlackOptions) {
  const messages = new Map<string, FakeSlackMessage>(); // `${channel}:${ts}`
  const ephemerals: FakeEphemeral[] = [];
  const views: Array<{ trigger_id: string; view: any }> = [];
  const calls: Array<{ method: string; body: any; atMs: number; failed?: boolean }> = [];
  const failures = new Map<string, Failure[]>();
  const triggers = new Map<string, number>();
  const dms = new Map<string, string>(); // user → D channel
  const acks = new Map<string, unknown>();
  const sockets = new Set<WebSocket>();
  /** Each Socket Mode connection's number (1, 2, …), for tests that track which bot process took an envelope. */
  const connectionIds = new Map<WebSocket, number>();
  let socket: WebSocket | undefined;
  let connectionsOpened = 0;
  let clock = 0;
  let nextId = 1;
  let deleteOthers = true;
  /** A workspace whose retention settings forbid deleting messages: the bot's own too. */
  let deleteOwn = true;
  let inbound: Inbound;
  const holds = createResponseHolds();

  const key = (channel: string, ts: string) => `${channel}:${ts}`;
  const newTs = () => `${1_700_000_000 + clock++}.${String(nextId++).padStart(6, "0")}`;
  const person = (id: string) => options.people.find((p) => p.id === id);
  const knownChannel = (channel: string) => options.channels.includes(channel) || [...dms.values()].includes(channel);
  const channelType = (channel: string) => (channel.startsWith("D") ? "im" : channel.startsWith("G") ? "group" : "channel");
  const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  function dmOf(user: string): string {
    let channel = dms.get(user);
    if (!channel) dms.set(user, (channel = `D0${user.slice(1)}`));
    return channel;
  }

  async function readBody(req: IncomingMessage): Promise<Record<string, any>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (!text) return {};
    if ((req.headers["content-type"] ?? "").includes("application/json")) return JSON.parse(text);
    const body: Record<string, any> = {};
    for (const [name, value] of new URLSearchParams(text)) {
      body[name] = ["blocks", "view", "attachments", "metadata"].includes(name) ? JSON.parse(value) : value;
    }
    return body;
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const ok = (res: ServerResponse, result: Record<string, unknown> = {}) => send(res, 200, { ok: true, ...result });
  const fail = (res: ServerResponse, error: string) => send(res, 200, { ok: false, error });

  const publicMessage = (m: FakeSlackMessage) => ({
    type: "message",
    ts: m.ts,
    text: m.text,
    ...(m.bot ? { bot_id: FAKE_BOT.bot_id, user: FAKE_BOT.user_id, app_id: FAKE_BOT.app_id } : { user: m.user }),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
  });

  const botMethods: Record<string, (body: any, res: ServerResponse) => void> = {
    "auth.test": (_b, res) => ok(res, { url: "https://fake.slack.com/", team: "Fake", user: "askbot", team_id: FAKE_TEAM.id, user_id: FAKE_BOT.user_id, bot_id: FAKE_BOT.bot_id, is_enterprise_install: false }),
    "conversations.open": (body, res) => {
      const user = String(body.users ?? "");
      if (user.includes(",") || !person(user)) return fail(res, "user_not_found");
      ok(res, { channel: { id: dmOf(user) } });
    },
    "chat.postMessage": (body, res) => {
      const channel = String(body.channel);
      if (!knownChannel(channel)) return fail(res, "channel_not_found");
      if (body.link_names || body.parse === "full") throw new Error("the bot asked Slack to turn names into mentions");
      const message: FakeSlackMessage = {
        channel,
        ts: newTs(),
        user: FAKE_BOT.user_id,
        bot: true,
        text: String(body.text ?? ""),
        prompt: Array.isArray(body.blocks),
        edits: 0,
        ...(Array.isArray(body.blocks) ? { blocks: body.blocks, sentBlocks: body.blocks } : {}),
        ...(body.thread_ts ? { thread_ts: String(body.thread_ts) } : {}),
      };
      messages.set(key(channel, message.ts), message);
      ok(res, { channel, ts: message.ts, message: publicMessage(message) });
    },
    "chat.update": (body, res) => {
      const message = messages.get(key(String(body.channel), String(body.ts)));
      if (!message || message.deleted) return fail(res, "message_not_found");
      if (!message.bot) return fail(res, "cant_update_message");
      message.text = String(body.text ?? "");
      if (Array.isArray(body.blocks)) message.blocks = body.blocks;
      else delete message.blocks;
      message.edits++;
      ok(res, { channel: message.channel, ts: message.ts, text: message.text });
    },
    "chat.delete": (body, res) => {
      const message = messages.get(key(String(body.channel), String(body.ts)));
      if (!message || message.deleted) return fail(res, "message_not_found");
      if (!message.bot && !deleteOthers) return fail(res, "cant_delete_message");
      if (message.bot && !deleteOwn) return fail(res, "cant_delete_message");
      message.deleted = true;
      ok(res, { channel: message.channel, ts: message.ts });
    },
    "reactions.add": (body, res) => {
      const message = messages.get(key(String(body.channel), String(body.timestamp)));
      if (!message || message.deleted) return fail(res, "message_not_found");
      const name = String(body.name ?? "");
      if (message.reactions?.includes(name)) return fail(res, "already_reacted");
      message.reactions = [...(message.reactions ?? []), name];
      ok(res);
    },
    "chat.postEphemeral": (body, res) => {
      const channel = String(body.channel);
      if (!knownChannel(channel)) return fail(res, "channel_not_found");
      if (!person(String(body.user))) return fail(res, "user_not_in_channel");
      ephemerals.push({ channel, user: String(body.user), text: String(body.text ?? ""), ...(body.thread_ts ? { thread_ts: String(body.thread_ts) } : {}) });
      ok(res, { message_ts: newTs() });
    },
    "views.open": (body, res) => {
      const issued = triggers.get(String(body.trigger_id));
      if (issued === undefined) return fail(res, "invalid_trigger_id");
      if (Date.now() - issued > TRIGGER_TTL_MS) return fail(res, "expired_trigger_id");
      triggers.delete(String(body.trigger_id));
      views.push({ trigger_id: String(body.trigger_id), view: body.view });
      ok(res, { view: { id: `V${nextId++}`, ...body.view } });
    },
    "users.info": (body, res) => {
      const found = person(String(body.user));
      if (!found) return fail(res, "user_not_found");
      ok(res, { user: { id: found.id, name: found.name.toLowerCase(), real_name: found.name, profile: { display_name: found.name, real_name: found.name } } });
    },
  };

  const server = createServer((req, res) => {
    void (async () => {
      const method = /^\/api\/([\w.]+)$/.exec(req.url ?? "")?.[1];
      if (!method || req.method !== "POST") return send(res, 404, { ok: false, error: "unknown_method" });
      const body = await readBody(req);
      const token = (req.headers.authorization ?? "").replace(/^Bearer /, "") || body.token;
      const queued = failures.get(method)?.shift();
      calls.push({ method, body, atMs: Date.now(), ...(queued ? { failed: true } : {}) });
      if (queued) {
        if ("status" in queued) return send(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": String(queued.retryAfter) });
        return fail(res, queued.error);
      }
      if (method === "apps.connections.open") {
        if (token !== options.appToken) return fail(res, "invalid_auth");
        return ok(res, { url: `ws://127.0.0.1:${port}/socket-mode?ticket=${nextId++}` });
      }
      if (token !== options.botToken) return fail(res, "invalid_auth");
      const handler = botMethods[method];
      if (!handler) return fail(res, "unknown_method");
      const gate = holds.take(method);
      handler(body, gate ? heldResponse(res, gate) : res);
    })().catch((error) => send(res, 500, { ok: false, error: String(error) }));
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, netSocket, head) => {
    if (!(req.url ?? "").startsWith("/socket-mode")) return netSocket.destroy();
    wss.handleUpgrade(req, netSocket, head, (ws) => {
      sockets.add(ws);
      connectionsOpened++;
      connectionIds.set(ws, connectionsOpened);
      ws.on("message", (data) => {
        const frame = JSON.parse(data.toString());
        if (typeof frame.envelope_id === "string") acks.set(frame.envelope_id, frame.payload ?? {});
      });
      ws.on("close", () => {
        sockets.delete(ws);
        if (socket === ws) socket = undefined;
      });
      socket = ws;
      ws.send(JSON.stringify({ type: "hello", num_connections: 1, debug_info: { host: "fake" }, connection_info: { app_id: FAKE_BOT.app_id } }));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  /** Socket Mode: one envelope, resolved once the bot acknowledges it. */
  const socketInbound: Inbound = async (type, payload) => {
    const ws = await until(() => (socket?.readyState === 1 ? socket : undefined), "a Socket Mode connection");
    const envelope_id = `env-${nextId++}`;
    ws.send(JSON.stringify({ envelope_id, type, payload, accepts_response_payload: type === "interactive" }));
    await until(() => (acks.has(envelope_id) ? true : undefined), `the ack of ${envelope_id}`);
    return 200;
  };
  inbound = socketInbound;

  /**
   * Socket Mode, tracked: sends one envelope on the current connection and resolves with that connection's number
   * once acknowledged. Rejects when no connection comes within `timeoutMs`, or when the connection closes before
   * the ack (the bot process died).
   */
  async function deliverTracked(type: "events_api" | "interactive", payload: unknown, timeoutMs = 10_000): Promise<{ connection: number }> {
    const ws = await until(() => (socket?.readyState === 1 ? socket : undefined), "a Socket Mode connection", timeoutMs);
    const connection = connectionIds.get(ws)!;
    const envelope_id = `env-${nextId++}`;
    ws.send(JSON.stringify({ envelope_id, type, payload, accepts_response_payload: type === "interactive" }));
    await until(() => {
      if (acks.has(envelope_id)) return true;
      if (ws.readyState !== 1) throw new Error(`fake Slack: connection ${connection} closed before the ack of ${envelope_id}`);
      return undefined;
    }, `the ack of ${envelope_id}`, timeoutMs);
    return { connection };
  }

  const userOf = (who: FakeSlackPerson) => ({ id: who.id, username: who.name.toLowerCase(), name: who.name.toLowerCase(), team_id: FAKE_TEAM.id });

  function blockActionsPayload(message: FakeSlackMessage, action: { action_id: string; block_id: string; value: string; text?: string }, who: FakeSlackPerson, triggerId: string) {
    return {
      type: "block_actions",
      team: FAKE_TEAM,
      user: userOf(who),
      api_app_id: FAKE_BOT.app_id,
      token: "verification-token",
      container: { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
      trigger_id: triggerId,
      channel: { id: message.channel, name: message.channel.startsWith("D") ? "directmessage" : message.channel.toLowerCase() },
      message: publicMessage(message),
      response_url: `http://127.0.0.1:${port}/response/${nextId++}`,
      actions: [{ type: "button", action_id: action.action_id, block_id: action.block_id, value: action.value, text: { type: "plain_text", text: action.text ?? "?", emoji: true }, action_ts: newTs() }],
    };
  }

  /** A block_actions payload for pressing `actionId` on a message, with a fresh trigger id. */
  function pressPayload(message: FakeSlackMessage, actionId: string, who: FakeSlackPerson, blockId = "forged") {
    const triggerId = `${nextId++}.${randomBytes(6).toString("hex")}`;
    triggers.set(triggerId, Date.now());
    return { triggerId, payload: blockActionsPayload(message, { action_id: actionId, block_id: blockId, value: actionId }, who, triggerId) };
  }

  /** Someone presses a button with this action_id on a message; resolves once the bot acknowledged. */
  async function pressAction(message: FakeSlackMessage, actionId: string, who: FakeSlackPerson, blockId = "forged") {
    const { triggerId, payload } = pressPayload(message, actionId, who, blockId);
    return { status: await inbound("interactive", payload), triggerId };
  }

  /** An event_callback body, as Slack wraps every event. */
  const eventCallback = (event: Record<string, unknown>) => ({
    token: "verification-token",
    team_id: FAKE_TEAM.id,
    api_app_id: FAKE_BOT.app_id,
    type: "event_callback",
    event_id: `Ev${nextId++}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: FAKE_TEAM.id, user_id: FAKE_BOT.user_id, is_bot: true, is_enterprise_install: false }],
    event,
  });

  /** Someone's message, stored in the channel, and the event_callback that tells the bot about it. */
  function typePayload(channel: string, who: FakeSlackPerson, text: string, threadTs?: string) {
    const message: FakeSlackMessage = { channel, ts: newTs(), user: who.id, bot: false, text: escape(text), prompt: false, edits: 0, ...(threadTs ? { thread_ts: threadTs } : {}) };
    messages.set(key(channel, message.ts), message);
    const event = { type: "message", channel, user: who.id, text: message.text, ts: message.ts, event_ts: message.ts, channel_type: channelType(channel), ...(threadTs ? { thread_ts: threadTs } : {}) };
    return { message, payload: eventCallback(event) };
  }

  return {
    port,
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    ephemerals,
    views,
    connectionsOpened: () => connectionsOpened,
    messages: () => [...messages.values()],
    message(channel: string, ts: string): FakeSlackMessage {
      const found = messages.get(key(channel, ts));
      if (!found) throw new Error(`fake Slack: no message ${ts} in ${channel}`);
      return found;
    },
    botMessages: (channel: string) => [...messages.values()].filter((m) => m.channel === channel && m.bot),
    /** The DM channel between the bot and a user (what conversations.open returns). */
    dmOf,
    channelType,
    /** Whether chat.delete may delete people's messages (an admin-installed app); false makes it fail. */
    allowDeletingOthers(allowed: boolean) {
      deleteOthers = allowed;
    },
    /** Whether chat.delete refuses the bot's own messages too (cant_delete_message). */
    allowDeletingOwn(allowed: boolean) {
      deleteOwn = allowed;
    },
    /** The next call of `method` is carried out at once but answered only on `release()` (a slow network). */
    holdNext: holds.holdNext,
    /** The next call of `method` fails: a 429 with Retry-After, or `ok: false` with this error. */
    failNext(method: string, failure: Failure): void {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    /** From now on, deliver to the bot as signed HTTP requests (HTTP mode) instead of over Socket Mode. */
    useHttp(url: () => string, signingSecret: string) {
      inbound = async (kind, payload) => {
        const { body, contentType } = slackRequestBody(kind, payload);
        return (await postSigned(url(), signingSecret, body, contentType)).status;
      };
    },
    /** Presses the n-th button of the actions block as first sent. */
    press(message: FakeSlackMessage, index: number, who: FakeSlackPerson) {
      const actions = message.sentBlocks?.find((b) => b.type === "actions");
      const button = actions?.elements?.[index];
      if (!button) throw new Error(`fake Slack: message ${message.ts} has no button ${index}`);
      return pressAction(message, button.action_id, who, actions.block_id);
    },
    pressAction,
    /** Submits an opened modal with this text in its one input. */
    async submitView(view: any, who: FakeSlackPerson, text: string): Promise<number> {
      const input = (view.blocks ?? []).find((b: any) => b.type === "input");
      if (!input) throw new Error("fake Slack: the modal has no input block");
      const values = { [input.block_id]: { [input.element.action_id]: { type: input.element.type, value: text } } };
      return inbound("interactive", {
        type: "view_submission",
        team: FAKE_TEAM,
        user: userOf(who),
        api_app_id: FAKE_BOT.app_id,
        token: "verification-token",
        trigger_id: `${nextId++}.${randomBytes(6).toString("hex")}`,
        view: { id: `V${nextId++}`, team_id: FAKE_TEAM.id, type: "modal", ...view, state: { values }, hash: "h", app_id: FAKE_BOT.app_id, bot_id: FAKE_BOT.bot_id },
        response_urls: [],
      });
    },
    /** Someone types a message (Slack escapes `&`, `<` and `>`); in a thread when `threadTs` is given. */
    async type(channel: string, who: FakeSlackPerson, text: string, threadTs?: string): Promise<{ message: FakeSlackMessage; status: number }> {
      const { message, payload } = typePayload(channel, who, text, threadTs);
      return { message, status: await inbound("events_api", payload) };
    },
    pressPayload,
    typePayload,
    eventCallback,
    /** Delivers any payload the way the bot is listening (Socket Mode or signed HTTP). */
    deliver: (kind: "events_api" | "interactive", payload: unknown) => inbound(kind, payload),
    deliverTracked,
    /** Whether Socket Mode connection number `n` (see deliverTracked) is still open. */
    connectionOpen: (n: number) => [...connectionIds].some(([ws, id]) => id === n && ws.readyState === 1),
    /** The first ephemeral to `user` after the first `after` of them. */
    waitForEphemeral(user: string, after: number, timeoutMs = 10_000): Promise<FakeEphemeral> {
      return until(() => ephemerals.filter((e) => e.user === user)[after], `an ephemeral message to ${user}`, timeoutMs);
    },
    ephemeralsTo: (user: string) => ephemerals.filter((e) => e.user === user),
    /** Drops the Socket Mode connection the way Slack does when it recycles a server. */
    disconnectSocket(): void {
      socket?.send(JSON.stringify({ type: "disconnect", reason: "refresh_requested" }));
    },
    async close(): Promise<void> {
      // A bot that just stopped is still finishing its close handshake: let it, then cut whatever is left.
      await until(() => (sockets.size === 0 ? true : undefined), "the Socket Mode connections to close", 1_000).catch(() => {});
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type FakeSlack = Awaited<ReturnType<typeof startFakeSlack>>;
