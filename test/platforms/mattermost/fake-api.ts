/**
 * A fake Mattermost server: the REST endpoints the bot uses (/api/v4/users, channels/direct, posts, posts/ephemeral,
 * reactions, actions/dialogs/open), the events WebSocket (/api/v4/websocket: the authentication challenge, `hello`,
 * `posted` events with their sequence numbers, pings), and what the server itself does when a person presses an
 * action or submits a dialog: it POSTs to the integration URL with the context it kept. Its REST API enforces
 * Mattermost's rate limit (RateLimitSettings: 10 requests/s, bursts of 100, per token) with its headers. Its bot
 * has a bot account's default role unless `systemAdmin`: it may neither post ephemeral messages nor delete others'
 * posts (403, as a real server answers such a bot).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { WebSocketServer, type WebSocket } from "ws";

export interface FakeMattermostUser {
  id: string;
  username: string;
  first_name?: string;
}

export interface FakeMattermostPost {
  id: string;
  channel_id: string;
  user_id: string;
  root_id: string;
  message: string;
  type: string;
  props: Record<string, any>;
  create_at: number;
  edits: number;
  deleted?: boolean;
  reactions: string[];
  /** The actions as people last saw them before an edit removed them (a screen that has not caught up). */
  seenActions?: any[];
}

export interface FakeCall {
  method: string;
  path: string;
  body: any;
  status: number;
  atMs: number;
  failed: boolean;
}

export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** Mattermost's default RateLimitSettings (when enabled): PerSec 10, MaxBurst 100. */
export const MATTERMOST_RATE_LIMIT: RateLimit = { perSecond: 10, burst: 100 };

export interface FakeMattermostOptions {
  token: string;
  bot?: FakeMattermostUser;
  people: FakeMattermostUser[];
  /** Channels the bot is a member of. */
  channels: string[];
  /** Channels that exist but the bot is not in (a post there is refused with 403). */
  closedChannels?: string[];
  /** The REST rate limit; null turns it off. Default MATTERMOST_RATE_LIMIT. */
  rateLimit?: RateLimit | null;
  /**
   * The bot holds the System Admin role: it may post ephemeral messages (create_post_ephemeral) and delete others'
   * posts (delete_others_posts). Default false: a bot account's default role, refused both with 403.
   */
  systemAdmin?: boolean;
}

export const newId = (): string => {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(26), (b) => alphabet[b % 36]).join("");
};

const error = (status: number, id: string, message: string) => ({ status, body: { id, message, status_code: status, request_id: newId() } });
/** What Mattermost answers a call the session's roles do not permit. */
const notPermitted = () => error(403, "api.context.permissions.app_error", "You do not have the appropriate permissions.");

type Answer = { status: number; body?: unknown; headers?: Record<string, string>; text?: string };

export async function startFakeMattermost(options: FakeMattermostOptions) {
  const bot: FakeMattermostUser = options.bot ?? { id: newId(), username: "askbot", first_name: "Ask bot" };
  const users = new Map<string, FakeMattermostUser>([bot, ...options.people].map((u) => [u.id, u]));
  const channels = new Map<string, { id: string; type: "O" | "D"; members: Set<string> }>();
  for (const id of options.channels) channels.set(id, { id, type: "O", members: new Set([bot.id, ...options.people.map((p) => p.id)]) });
  for (const id of options.closedChannels ?? []) channels.set(id, { id, type: "O", members: new Set(options.people.map((p) => p.id)) });
  const posts = new Map<string, FakeMattermostPost>();
  const ephemerals: Array<{ user: string; channel: string; message: string; root_id?: string }> = [];
  const dialogs: Array<{ trigger_id: string; url: string; dialog: any; user: string; channel: string }> = [];
  const triggers = new Map<string, { user: string; channel: string; atMs: number; used: boolean }>();
  const calls: FakeCall[] = [];
  const failures: Array<{ match: (method: string, path: string, body: any) => boolean; answer: Answer; times: number }> = [];
  const holds: Array<{ match: string; release: () => void; gate: Promise<void>; arrived: boolean }> = [];
  const systemAdmin = options.systemAdmin === true;
  let allowDeletingOthers = systemAdmin;
  let allowDeletingOwn = true;
  let rateLimit = options.rateLimit === undefined ? MATTERMOST_RATE_LIMIT : options.rateLimit;
  let bucket = { tokens: rateLimit?.burst ?? 0, atMs: performance.now() };
  let refused = 0;
  const sockets = new Set<{ ws: WebSocket; seq: number }>();

  /**
   * Each connection's events, by connection id, as the server keeps them: a client that reconnects with its
   * connection_id and sequence_number gets what it missed (the last 128 events), a new one starts with `hello`.
   */
  const connections = new Map<string, { seq: number; history: string[]; socket?: { ws: WebSocket; seq: number } }>();

  function emit(event: string, data: Record<string, unknown>, broadcast: Record<string, unknown>) {
    for (const connection of connections.values()) {
      const frame = JSON.stringify({ event, data, broadcast, seq: connection.seq++ });
      connection.history.push(frame);
      if (connection.history.length > 128) connection.history.shift();
      connection.socket?.ws.send(frame);
    }
  }

  function emitPosted(post: FakeMattermostPost) {
    const channel = channels.get(post.channel_id);
    const sender = users.get(post.user_id);
    const { edits: _e, deleted: _d, reactions: _r, seenActions: _s, ...wire } = post;
    emit("posted", { channel_type: channel?.type ?? "O", post: JSON.stringify(wire), sender_name: `@${sender?.username ?? "someone"}`, team_id: "team1" }, { channel_id: post.channel_id, user_id: "", team_id: "" });
  }

  let lastCreateAt = 0;
  function makePost(fields: Partial<FakeMattermostPost> & { channel_id: string; user_id: string; message: string }): FakeMattermostPost {
    lastCreateAt = Math.max(Date.now(), lastCreateAt + 1);
    const post: FakeMattermostPost = { id: newId(), root_id: "", type: "", props: {}, create_at: lastCreateAt, edits: 0, reactions: [], ...fields };
    posts.set(post.id, post);
    emitPosted(post);
    return post;
  }

  const dmId = (a: string, b: string) => {
    for (const c of channels.values()) if (c.type === "D" && c.members.has(a) && c.members.has(b) && c.members.size === (a === b ? 1 : 2)) return c.id;
    const id = newId();
    channels.set(id, { id, type: "D", members: new Set([a, b]) });
    return id;
  };

  /** The token bucket; an answer when the call is over the limit. */
  function limited(): { answer?: Answer; headers: Record<string, string> } {
    if (!rateLimit) return { headers: {} };
    const now = performance.now();
    bucket.tokens = Math.min(rateLimit.burst, bucket.tokens + ((now - bucket.atMs) * rateLimit.perSecond) / 1000);
    bucket.atMs = now;
    const resetSeconds = (n: number) => String(Math.max(1, Math.ceil(n / rateLimit!.perSecond)));
    if (bucket.tokens < 1) {
      refused++;
      const headers = {
        "X-RateLimit-Limit": String(rateLimit.perSecond),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": resetSeconds(rateLimit.burst - bucket.tokens),
        "Retry-After": resetSeconds(1 - bucket.tokens),
      };
      return { answer: { status: 429, text: "limit exceeded\n", headers }, headers };
    }
    bucket.tokens -= 1;
    const remaining = Math.floor(bucket.tokens);
    return { headers: { "X-RateLimit-Limit": String(rateLimit.perSecond), "X-RateLimit-Remaining": String(remaining), "X-RateLimit-Reset": resetSeconds(rateLimit.burst - bucket.tokens) } };
  }

  const wire = (post: FakeMattermostPost) => {
    const { edits: _e, deleted: _d, reactions: _r, seenActions: _s, ...rest } = post;
    return rest;
  };
  const actionsOf = (post: FakeMattermostPost): any[] => (post.props.attachments ?? []).flatMap((a: any) => a.actions ?? []);
  /** What clients get: the server strips every action's integration (its URL and context). */
  const stripped = (post: FakeMattermostPost) => {
    const out = structuredClone(wire(post));
    for (const attachment of out.props.attachments ?? []) for (const action of attachment.actions ?? []) delete action.integration;
    return out;
  };

  async function route(method: string, path: string, body: any, auth: string | undefined): Promise<Answer> {
    // Client4 sends `BEARER <token>`; the server reads the scheme case-insensitively.
    if (!auth || !/^bearer /iu.test(auth) || auth.slice(7) !== options.token) return error(401, "api.context.session_expired.app_error", "Invalid or expired session, please login again.");
    let m: RegExpExecArray | null;
    if (method === "GET" && path === "/api/v4/users/me") return { status: 200, body: bot };
    if (method === "GET" && (m = /^\/api\/v4\/users\/username\/([^/]+)$/.exec(path))) {
      const user = [...users.values()].find((u) => u.username === decodeURIComponent(m![1]!));
      return user ? { status: 200, body: user } : error(404, "app.user.missing_account.const", "Unable to find the user.");
    }
    if (method === "GET" && (m = /^\/api\/v4\/users\/([a-z0-9]+)$/.exec(path))) {
      const user = users.get(m[1]!);
      return user ? { status: 200, body: user } : error(404, "app.user.missing_account.const", "Unable to find the user.");
    }
    if (method === "POST" && path === "/api/v4/channels/direct") {
      const [a, b] = body as string[];
      if (!a || !b || !users.has(a) || !users.has(b)) return error(400, "api.context.invalid_body_param.app_error", "Invalid or missing user_ids in request body.");
      return { status: 201, body: { id: dmId(a, b), type: "D" } };
    }
    if (method === "GET" && (m = /^\/api\/v4\/channels\/([a-z0-9]+)\/posts$/.exec(path))) {
      const channel = channels.get(m[1]!);
      if (!channel || !channel.members.has(bot.id)) return notPermitted();
      const list = [...posts.values()].filter((p) => p.channel_id === channel.id && !p.deleted).sort((a, b) => b.create_at - a.create_at).slice(0, 60);
      return { status: 200, body: { order: list.map((p) => p.id), posts: Object.fromEntries(list.map((p) => [p.id, stripped(p)])) } };
    }
    if (method === "POST" && path === "/api/v4/posts") {
      const channel = channels.get(body.channel_id);
      if (!channel || !channel.members.has(bot.id)) return notPermitted();
      if (typeof body.message !== "string" || body.message.length > 16383) return error(400, "model.post.is_valid.message_length.app_error", "Invalid Message property length.");
      if (body.root_id && !posts.has(body.root_id)) return error(400, "api.post.create_post.root_id.app_error", "Invalid RootId parameter.");
      const post = makePost({ channel_id: body.channel_id, user_id: bot.id, message: body.message, root_id: body.root_id ?? "", props: body.props ?? {} });
      return { status: 201, body: wire(post) };
    }
    if (method === "POST" && path === "/api/v4/posts/ephemeral") {
      if (!systemAdmin) return notPermitted();
      ephemerals.push({ user: body.user_id, channel: body.post.channel_id, message: body.post.message, ...(body.post.root_id ? { root_id: body.post.root_id } : {}) });
      return { status: 201, body: { id: newId(), ...body.post, user_id: bot.id } };
    }
    if ((m = /^\/api\/v4\/posts\/([a-z0-9]+)(\/patch)?$/.exec(path))) {
      const post = posts.get(m[1]!);
      if (!post || post.deleted) return error(404, "app.post.get.app_error", "Unable to get the post.");
      if (method === "GET" && !m[2]) return { status: 200, body: stripped(post) };
      if (method === "PUT" && m[2]) {
        if (post.user_id !== bot.id) return notPermitted();
        const hadActions = actionsOf(post);
        if (typeof body.message === "string") post.message = body.message;
        if (body.props) post.props = body.props;
        if (hadActions.length && !actionsOf(post).length) post.seenActions = hadActions;
        post.edits++;
        return { status: 200, body: wire(post) };
      }
      if (method === "DELETE" && !m[2]) {
        const mine = post.user_id === bot.id;
        if ((mine && !allowDeletingOwn) || (!mine && !allowDeletingOthers)) return notPermitted();
        post.deleted = true;
        return { status: 200, body: { status: "OK" } };
      }
    }
    if (method === "POST" && path === "/api/v4/reactions") {
      const post = posts.get(body.post_id);
      if (!post) return error(404, "app.post.get.app_error", "Unable to get the post.");
      post.reactions.push(body.emoji_name);
      return { status: 201, body };
    }
    if (method === "POST" && path === "/api/v4/actions/dialogs/open") {
      const trigger = triggers.get(body.trigger_id);
      if (!trigger || trigger.used || performance.now() - trigger.atMs > 3_000) return error(400, "interactive_message.decode_trigger_id.expired", "Trigger ID for interactive dialog is expired.");
      if (!body.url || !body.dialog?.elements?.length) return error(400, "api.context.invalid_body_param.app_error", "Invalid dialog.");
      trigger.used = true;
      dialogs.push({ trigger_id: body.trigger_id, url: body.url, dialog: body.dialog, user: trigger.user, channel: trigger.channel });
      return { status: 200, body: { status: "OK" } };
    }
    return error(404, "api.context.404.app_error", `Sorry, we could not find the page: ${method} ${path}`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: any = undefined;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0]!;
    const atMs = performance.now();
    const limit = limited();
    const failure = failures.find((f) => f.times > 0 && f.match(method, path, body));
    let answer: Answer;
    if (limit.answer) answer = limit.answer;
    else if (failure) {
      failure.times--;
      answer = { ...failure.answer, headers: { ...limit.headers, ...failure.answer.headers } };
    } else answer = await route(method, path, body, req.headers.authorization);
    const hold = answer.status < 300 ? holds.find((h) => !h.arrived && h.match === `${method} ${path}`) : undefined;
    calls.push({ method, path, body, status: answer.status, atMs, failed: answer.status >= 300 });
    if (hold) {
      hold.arrived = true;
      await hold.gate;
    }
    const headers = { ...limit.headers, ...answer.headers };
    if (answer.text !== undefined) res.writeHead(answer.status, { ...headers, "content-type": "text/plain; charset=utf-8" }).end(answer.text);
    else res.writeHead(answer.status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(answer.body ?? {}));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    if ((req.url ?? "").split("?")[0] !== "/api/v4/websocket") return socket.destroy();
    const query = new URL(req.url ?? "/", "http://fake").searchParams;
    const resumeId = query.get("connection_id") ?? "";
    const resumeFrom = Number(query.get("sequence_number") ?? "0");
    wss.handleUpgrade(req, socket, head, (ws) => {
      const entry = { ws, seq: 0 };
      let authed = false;
      ws.on("message", (raw) => {
        let msg: any;
        try {
          msg = JSON.parse(String(raw));
        } catch {
          return;
        }
        if (msg.action === "authentication_challenge") {
          if (msg.data?.token !== options.token) {
            ws.send(JSON.stringify({ status: "FAIL", seq_reply: msg.seq, error: { id: "api.web_socket_router.not_authenticated.app_error" } }));
            return ws.close(1008);
          }
          authed = true;
          ws.send(JSON.stringify({ status: "OK", seq_reply: msg.seq }));
          const known = connections.get(resumeId);
          if (known && known.history.length && resumeFrom >= known.seq - known.history.length) {
            // A resumed connection: what it missed, in order, with the sequence numbers it expects.
            for (const frame of known.history.slice(known.history.length - (known.seq - resumeFrom))) ws.send(frame);
            known.socket = entry;
          } else {
            const connectionId = newId();
            const connection = { seq: 1, history: [] as string[], socket: entry };
            connections.set(connectionId, connection);
            ws.send(JSON.stringify({ event: "hello", data: { connection_id: connectionId, server_version: "11.9.0" }, broadcast: { user_id: bot.id }, seq: 0 }));
          }
          sockets.add(entry);
          return;
        }
        if (!authed) return;
        if (msg.action === "ping") ws.send(JSON.stringify({ status: "OK", seq_reply: msg.seq, data: { text: "pong", version: "11.9.0" } }));
      });
      ws.on("close", () => {
        sockets.delete(entry);
        for (const connection of connections.values()) if (connection.socket === entry) delete connection.socket;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  async function callIntegration(url: string, payload: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) });
    const text = await res.text();
    let body: any = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = {};
    }
    return { status: res.status, body };
  }

  const fake = {
    url: `http://127.0.0.1:${port}`,
    port,
    bot,
    calls,
    posts,
    ephemerals,
    dialogs,
    refused: () => refused,
    setRateLimit(limit: RateLimit | null) {
      rateLimit = limit;
      bucket = { tokens: limit?.burst ?? 0, atMs: performance.now() };
    },
    user: (id: string) => users.get(id),
    post(id: string): FakeMattermostPost {
      const post = posts.get(id);
      if (!post) throw new Error(`no post ${id}`);
      return post;
    },
    actionsOf,
    dmOf: (userId: string) => dmId(bot.id, userId),
    isDirect: (channel: string) => channels.get(channel)?.type === "D",
    botPosts: (channel: string) => [...posts.values()].filter((p) => p.channel_id === channel && p.user_id === bot.id),
    ephemeralsTo: (user: string) => ephemerals.filter((e) => e.user === user),
    /** A person posts in a channel (in a thread with `rootId`); the bot hears it on its WebSocket. */
    type(channel: string, who: FakeMattermostUser, message: string, rootId?: string) {
      const post = makePost({ channel_id: channel, user_id: who.id, message, root_id: rootId ?? "" });
      return { post, redeliver: () => emitPosted(post) };
    },
    /** Emits a raw `posted` event. */
    emitPosted,
    /**
     * The person presses action `index` of a post: the server POSTs the action's integration URL with the context it
     * kept. A post whose actions an edit removed is pressed as the person's screen still shows it (the press raced
     * the edit); `strict` presses only what the post holds now, as the server checks it.
     */
    async press(postId: string, index: number, who: FakeMattermostUser, opts: { strict?: boolean; context?: unknown; postId?: string } = {}) {
      const post = fake.post(postId);
      const actions = actionsOf(post).length || opts.strict ? actionsOf(post) : (post.seenActions ?? []);
      const action = actions[index];
      if (!action) return { status: 404, ephemeral: undefined as string | undefined, triggerId: "", called: false };
      const triggerId = newId();
      triggers.set(triggerId, { user: who.id, channel: post.channel_id, atMs: performance.now(), used: false });
      const result = await callIntegration(action.integration.url, {
        user_id: who.id,
        user_name: who.username,
        post_id: opts.postId ?? post.id,
        channel_id: post.channel_id,
        team_id: "team1",
        trigger_id: triggerId,
        type: "button",
        data_source: "",
        context: opts.context ?? action.integration.context,
      });
      const ephemeral = typeof result.body.ephemeral_text === "string" && result.body.ephemeral_text ? result.body.ephemeral_text : undefined;
      if (ephemeral) ephemerals.push({ user: who.id, channel: post.channel_id, message: ephemeral });
      if (result.body.update) {
        if (typeof result.body.update.message === "string") post.message = result.body.update.message;
        if (result.body.update.props) post.props = result.body.update.props;
        post.edits++;
      }
      return { status: result.status, ephemeral, triggerId, called: true };
    },
    /** The person submits an opened dialog with `text` in its field (or a raw submission). */
    async submitDialog(opened: { url: string; dialog: any; channel: string }, who: FakeMattermostUser, text: string, extra: Record<string, unknown> = {}) {
      const field = opened.dialog.elements[0].name;
      const result = await callIntegration(opened.url, {
        type: "dialog_submission",
        callback_id: opened.dialog.callback_id,
        state: opened.dialog.state,
        user_id: who.id,
        channel_id: opened.channel,
        team_id: "team1",
        submission: { [field]: text },
        cancelled: false,
        ...extra,
      });
      return result.status;
    },
    failNext(method: string, path: string | RegExp, answer: { status: number; retryAfter?: number; body?: unknown }, times = 1) {
      const headers: Record<string, string> = answer.retryAfter !== undefined ? { "Retry-After": String(answer.retryAfter), "X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "10" } : {};
      failures.push({
        match: (m, p) => m === method && (typeof path === "string" ? p === path : path.test(p)),
        answer: answer.status === 429 ? { status: 429, text: "limit exceeded\n", headers } : { status: answer.status, body: answer.body ?? error(answer.status, "fake", `HTTP ${answer.status}`).body, headers },
        times,
      });
    },
    /** Every call `match` picks is answered with HTTP `status` (a Mattermost error body) until the returned lift. */
    failWhile(match: (method: string, path: string, body: any) => boolean, status: number, message = `HTTP ${status}`) {
      const failure = { match, answer: error(status, "fake.refused", message), times: Number.POSITIVE_INFINITY };
      failures.push(failure);
      return () => void (failure.times = 0);
    },
    /** The next successful call `"POST /api/v4/posts"` is done, but its response waits for `release()`. */
    holdNext(match: string) {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const hold = { match, release, gate, arrived: false };
      holds.push(hold);
      return { release, arrived: () => hold.arrived };
    },
    allowDeletingOthers: (allow: boolean) => void (allowDeletingOthers = allow),
    allowDeletingOwn: (allow: boolean) => void (allowDeletingOwn = allow),
    /** Drops every WebSocket (a server restart): the bot reconnects. */
    dropSockets() {
      for (const s of sockets) s.ws.terminate();
    },
    /** Forgets every connection (a server restart): a reconnecting client gets a new `hello`, not what it missed. */
    forgetConnections: () => connections.clear(),
    socketCount: () => sockets.size,
    async close() {
      for (const h of holds) h.release();
      for (const s of sockets) s.ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

export type FakeMattermost = Awaited<ReturnType<typeof startFakeMattermost>>;
