/**
 * A local stand-in for a Matrix homeserver's client-server API, enough for matrix-js-sdk's calls and the bot's own
 * sync loop: /sync (long-poll, `since`, `next_batch`, a per-room timeline limit with `limited` and `prev_batch`),
 * /messages (to read a gap back), /send with transaction ids (a repeat gives the same event), /redact (checked against
 * the room's power levels), room state (power levels, encryption, members), joined members, createRoom, join,
 * account data (m.direct), relations, and the M_LIMIT_EXCEEDED answer with `retry_after_ms`. Tests drive people
 * through `type` and `vote`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createResponseHolds, heldResponse } from "../../fakes/held-responses.ts";

export interface FakeMatrixEvent {
  type: string;
  event_id: string;
  sender: string;
  room_id: string;
  origin_server_ts: number;
  content: Record<string, any>;
  state_key?: string;
  redacts?: string;
  unsigned?: Record<string, unknown>;
  /** Set once redacted: the content as it was (the fake keeps it for the test's eyes only). */
  redactedContent?: Record<string, any>;
}

interface FakeRoom {
  id: string;
  members: Map<string, { display_name: string }>;
  invited: Set<string>;
  powerLevels: { users: Record<string, number>; users_default: number; redact: number; events_default: number };
  encryption?: { algorithm: string };
  direct?: boolean;
  inviter?: string;
  inviteSeen?: boolean;
}

type Failure = { status: number; body: Record<string, unknown> };

export interface FakeMatrixOptions {
  botUserId?: string;
  token?: string;
  serverName?: string;
}

/** A call the bot made, as the fake answered it. */
export interface FakeMatrixCall {
  method: string;
  path: string;
  status: number;
  body: any;
  /** The query string's parameters (a sync's `since`). */
  query: Record<string, string>;
  /** Date.now() when it arrived. */
  atMs: number;
  /** For sends: the event the call created (undefined when it repeated a transaction or failed). */
  created?: FakeMatrixEvent;
}

export const POLL_START = "org.matrix.msc3381.poll.start";
export const POLL_RESPONSE = "org.matrix.msc3381.poll.response";
export const POLL_END = "org.matrix.msc3381.poll.end";

export async function startFakeMatrix(options: FakeMatrixOptions = {}) {
  const server_name = options.serverName ?? "fake.test";
  const botUserId = options.botUserId ?? `@askbot:${server_name}`;
  const token = options.token ?? "syt_YXNrYm90_notarealtokenatall12_0abcde";
  const rooms = new Map<string, FakeRoom>();
  /** Every event, in stream order: a sync token `s<N>` means "the first N seen". */
  const stream: FakeMatrixEvent[] = [];
  const byId = new Map<string, FakeMatrixEvent>();
  const accountData = new Map<string, Record<string, unknown>>();
  const txns = new Map<string, string>();
  const failures = new Map<string, Failure[]>();
  const holds = createResponseHolds();
  const calls: FakeMatrixCall[] = [];
  const wakers = new Set<() => void>();
  let seq = 0;
  let refuseRedactOwn = false;
  /** Timeline events one room's sync batch holds (the filter's limit when smaller). */
  let timelineLimit = 100;

  const newEventId = () => `$ev${++seq}_${Math.random().toString(36).slice(2, 8)}`;
  const wake = () => {
    for (const w of [...wakers]) w();
  };

  function append(event: Omit<FakeMatrixEvent, "event_id" | "origin_server_ts"> & { event_id?: string }): FakeMatrixEvent {
    const full: FakeMatrixEvent = { ...event, event_id: event.event_id ?? newEventId(), origin_server_ts: Date.now() };
    stream.push(full);
    if (!byId.has(full.event_id)) byId.set(full.event_id, full);
    wake();
    return full;
  }

  function addRoom(id: string, people: Array<{ id: string; name: string }>, extra: Partial<FakeRoom> = {}): FakeRoom {
    const room: FakeRoom = {
      id,
      members: new Map(),
      invited: new Set(),
      powerLevels: { users: { [botUserId]: 50 }, users_default: 0, redact: 50, events_default: 0 },
      ...extra,
    };
    rooms.set(id, room);
    for (const who of [{ id: botUserId, name: "AskBot" }, ...people]) join(room, who.id, who.name);
    return room;
  }

  function join(room: FakeRoom, userId: string, name: string): void {
    room.members.set(userId, { display_name: name });
    room.invited.delete(userId);
    append({ type: "m.room.member", sender: userId, room_id: room.id, state_key: userId, content: { membership: "join", displayname: name } });
  }

  const stateOf = (room: FakeRoom): FakeMatrixEvent[] => {
    const events: FakeMatrixEvent[] = [];
    const base = { sender: botUserId, room_id: room.id, origin_server_ts: 0 };
    events.push({ ...base, type: "m.room.power_levels", state_key: "", event_id: `$pl_${room.id}`, content: room.powerLevels });
    if (room.encryption) events.push({ ...base, type: "m.room.encryption", state_key: "", event_id: `$enc_${room.id}`, content: room.encryption });
    for (const [userId, m] of room.members) events.push({ ...base, sender: userId, type: "m.room.member", state_key: userId, event_id: `$m_${room.id}_${userId}`, content: { membership: "join", displayname: m.display_name } });
    return events;
  };

  const publicEvent = (e: FakeMatrixEvent) => {
    const { redactedContent: _c, room_id: _r, ...rest } = e;
    return rest;
  };

  function syncResponse(since: number | undefined, limit: number) {
    const next = stream.length;
    const join: Record<string, unknown> = {};
    const invite: Record<string, unknown> = {};
    for (const room of rooms.values()) {
      if (room.invited.has(botUserId)) {
        const content = { membership: "invite", ...(room.direct ? { is_direct: true } : {}) };
        invite[room.id] = { invite_state: { events: [{ type: "m.room.member", state_key: botUserId, sender: room.inviter ?? "", content }] } };
        continue;
      }
      if (!room.members.has(botUserId)) continue;
      if (since === undefined) {
        const recent = stream.filter((e) => e.room_id === room.id).slice(-10);
        join[room.id] = { state: { events: stateOf(room).map(publicEvent) }, timeline: { events: recent.map(publicEvent), limited: true, prev_batch: `s${Math.max(0, next - 10)}` } };
        continue;
      }
      const positions: number[] = [];
      for (let i = since; i < next; i++) if (stream[i]!.room_id === room.id) positions.push(i);
      if (positions.length === 0) continue;
      const shown = positions.slice(-limit);
      const limited = shown.length < positions.length;
      join[room.id] = {
        timeline: { events: shown.map((i) => publicEvent(stream[i]!)), limited, prev_batch: `s${shown[0]!}` },
        state: { events: [] },
      };
    }
    const account_data = { events: [...accountData].map(([type, content]) => ({ type, content })) };
    return { next_batch: `s${next}`, rooms: { join, invite, leave: {} }, account_data };
  }

  /** Events between two stream positions, newest first (`/messages` with dir=b). */
  function messagesBack(roomId: string, from: number, to: number, limit: number) {
    const chunk: FakeMatrixEvent[] = [];
    let i = from - 1;
    for (; i >= to && chunk.length < limit; i--) if (stream[i]!.room_id === roomId) chunk.push(stream[i]!);
    return { chunk: chunk.map(publicEvent), start: `s${from}`, ...(i >= to ? { end: `s${i + 1}` } : {}) };
  }

  const powerOf = (room: FakeRoom, user: string) => room.powerLevels.users[user] ?? room.powerLevels.users_default;

  async function readBody(req: IncomingMessage): Promise<any> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? JSON.parse(text) : {};
  }

  const error = (status: number, errcode: string, message: string, extra: Record<string, unknown> = {}): Failure => ({ status, body: { errcode, error: message, ...extra } });

  async function route(method: string, path: string, query: URLSearchParams, body: any): Promise<{ status: number; body: unknown; created?: FakeMatrixEvent; hold?: string }> {
    const ok = (b: unknown) => ({ status: 200, body: b });
    const fail = (f: Failure) => ({ status: f.status, body: f.body });
    let m: RegExpExecArray | null;
    if (path === "/_matrix/client/versions") return ok({ versions: ["v1.11"], unstable_features: {} });
    const p = path.replace(/^\/_matrix\/client\/(v3|r0|v1)/, "");
    if (method === "GET" && p === "/account/whoami") return ok({ user_id: botUserId, device_id: "FAKEDEVICE" });
    if (method === "GET" && p === "/sync") {
      const since = query.get("since");
      const filter = query.get("filter");
      let limit = timelineLimit;
      try {
        const wanted = filter ? JSON.parse(filter)?.room?.timeline?.limit : undefined;
        if (typeof wanted === "number") limit = Math.min(limit, wanted);
      } catch {}
      const from = since ? Number(since.slice(1)) : undefined;
      const timeout = Number(query.get("timeout") ?? 0);
      const hasNews = () => from === undefined || stream.length > from || [...rooms.values()].some((r) => r.invited.has(botUserId) && !r.inviteSeen);
      if (!hasNews() && timeout > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(timeout, 30_000));
          function done() {
            clearTimeout(timer);
            wakers.delete(done);
            resolve();
          }
          wakers.add(done);
        });
      }
      const response = syncResponse(from, limit);
      for (const r of rooms.values()) if (r.invited.has(botUserId)) r.inviteSeen = true;
      return ok(response);
    }
    if (method === "GET" && (m = /^\/rooms\/([^/]+)\/messages$/.exec(p))) {
      const roomId = decodeURIComponent(m[1]!);
      const from = Number((query.get("from") ?? `s${stream.length}`).slice(1));
      const to = Number((query.get("to") ?? "s0").slice(1));
      return ok(messagesBack(roomId, from, to, Number(query.get("limit") ?? 10)));
    }
    if (method === "PUT" && (m = /^\/rooms\/([^/]+)\/send\/([^/]+)\/([^/]+)$/.exec(p))) {
      const [roomId, type, txn] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), decodeURIComponent(m[3]!)];
      const room = rooms.get(roomId);
      if (!room) return fail(error(404, "M_NOT_FOUND", "Unknown room"));
      if (!room.members.has(botUserId)) return fail(error(403, "M_FORBIDDEN", `User ${botUserId} not in room ${roomId}`));
      const repeat = txns.get(`${roomId}\n${txn}`);
      if (repeat) return ok({ event_id: repeat });
      const created = append({ type, sender: botUserId, room_id: roomId, content: body });
      txns.set(`${roomId}\n${txn}`, created.event_id);
      // A prompt (a poll, or numbered text: m.text with no relation) may be held apart from the bot's other sends.
      const prompt = type === POLL_START ? !body["m.relates_to"] : type === "m.room.message" && body.msgtype === "m.text" && !body["m.relates_to"];
      return { status: 200, body: { event_id: created.event_id }, created, hold: prompt ? "prompt" : "send" };
    }
    if (method === "PUT" && (m = /^\/rooms\/([^/]+)\/redact\/([^/]+)\/([^/]+)$/.exec(p))) {
      const [roomId, eventId, txn] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), decodeURIComponent(m[3]!)];
      const room = rooms.get(roomId);
      const target = byId.get(eventId);
      if (!room || !target || target.room_id !== roomId) return fail(error(404, "M_NOT_FOUND", "Event not found"));
      const repeat = txns.get(`${roomId}\n${txn}`);
      if (repeat) return ok({ event_id: repeat });
      const ownEvent = target.sender === botUserId;
      if (ownEvent ? refuseRedactOwn : powerOf(room, botUserId) < room.powerLevels.redact) {
        return fail(error(403, "M_FORBIDDEN", "You don't have permission to redact events"));
      }
      if (!target.redactedContent) {
        target.redactedContent = target.content;
        target.content = {};
        const redaction = append({ type: "m.room.redaction", sender: botUserId, room_id: roomId, redacts: eventId, content: { reason: body.reason } });
        target.unsigned = { redacted_because: publicEvent(redaction) };
        txns.set(`${roomId}\n${txn}`, redaction.event_id);
        return ok({ event_id: redaction.event_id });
      }
      return ok({ event_id: newEventId() });
    }
    if (method === "GET" && (m = /^\/rooms\/([^/]+)\/state\/([^/]+)(?:\/([^/]*))?$/.exec(p))) {
      const room = rooms.get(decodeURIComponent(m[1]!));
      if (!room || !room.members.has(botUserId)) return fail(error(403, "M_FORBIDDEN", "You aren't a member of the room"));
      const type = decodeURIComponent(m[2]!);
      const key = decodeURIComponent(m[3] ?? "");
      const state = stateOf(room).find((e) => e.type === type && (e.state_key ?? "") === key);
      return state ? ok(state.content) : fail(error(404, "M_NOT_FOUND", "Event not found."));
    }
    if (method === "GET" && (m = /^\/rooms\/([^/]+)\/joined_members$/.exec(p))) {
      const room = rooms.get(decodeURIComponent(m[1]!));
      if (!room || !room.members.has(botUserId)) return fail(error(403, "M_FORBIDDEN", "You aren't a member of the room"));
      return ok({ joined: Object.fromEntries([...room.members].map(([id, v]) => [id, { display_name: v.display_name }])) });
    }
    if (method === "GET" && (m = /^\/rooms\/([^/]+)\/relations\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(p))) {
      const [roomId, eventId] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)];
      const relType = m[3] ? decodeURIComponent(m[3]) : undefined;
      const eventType = m[4] ? decodeURIComponent(m[4]) : undefined;
      const chunk = [...byId.values()].filter((e) => {
        const rel = e.content?.["m.relates_to"];
        return e.room_id === roomId && rel?.event_id === eventId && (!relType || rel.rel_type === relType) && (!eventType || e.type === eventType);
      });
      return ok({ chunk: chunk.reverse().map(publicEvent) });
    }
    if (method === "POST" && p === "/createRoom") {
      const id = `!dm${++seq}:${server_name}`;
      const invitees: string[] = Array.isArray(body.invite) ? body.invite : [];
      const room = addRoom(id, [], { direct: body.is_direct === true });
      // The person accepts the invite at once (in the tests, people are always there).
      for (const userId of invitees) join(room, userId, names.get(userId) ?? userId);
      return ok({ room_id: id });
    }
    if (method === "POST" && (m = /^\/(?:join|rooms\/([^/]+)\/join)\/?([^/]*)$/.exec(p))) {
      const room = rooms.get(decodeURIComponent(m[1] ?? m[2]!));
      if (!room) return fail(error(404, "M_NOT_FOUND", "No known servers"));
      if (!room.members.has(botUserId)) join(room, botUserId, "AskBot");
      return ok({ room_id: room.id });
    }
    if ((m = /^\/user\/([^/]+)\/account_data\/([^/]+)$/.exec(p))) {
      const type = decodeURIComponent(m[2]!);
      if (method === "PUT") {
        accountData.set(type, body);
        return ok({});
      }
      const found = accountData.get(type);
      return found ? ok(found) : fail(error(404, "M_NOT_FOUND", "Account data not found"));
    }
    if (method === "GET" && p === "/capabilities") return ok({ capabilities: {} });
    if (method === "GET" && p.startsWith("/pushrules")) return ok({ global: {} });
    return fail(error(404, "M_UNRECOGNIZED", `Unrecognized request: ${method} ${path}`));
  }

  const routeKind = (method: string, path: string): string => {
    if (/\/send\//.test(path)) return "send";
    if (/\/redact\//.test(path)) return "redact";
    if (/\/sync$/.test(path.split("?")[0]!)) return "sync";
    return `${method} ${path}`;
  };

  const names = new Map<string, string>();

  const server = createServer(async (req, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    let body: any = {};
    try {
      body = await readBody(req);
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ errcode: "M_NOT_JSON", error: "Content not JSON." }));
      return;
    }
    const auth = req.headers.authorization ?? "";
    if (url.pathname !== "/_matrix/client/versions" && auth !== `Bearer ${token}` && url.searchParams.get("access_token") !== token) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ errcode: "M_UNKNOWN_TOKEN", error: "Invalid access token passed." }));
      return;
    }
    const kind = routeKind(method, url.pathname);
    const seen = { method, path: url.pathname, body, query: Object.fromEntries(url.searchParams), atMs: Date.now() };
    const failure = failures.get(kind)?.shift();
    if (failure) {
      calls.push({ ...seen, status: failure.status });
      res.writeHead(failure.status, { "content-type": "application/json" }).end(JSON.stringify(failure.body));
      return;
    }
    const answer = await route(method, url.pathname, url.searchParams, body);
    calls.push({ ...seen, status: answer.status, ...(answer.created ? { created: answer.created } : {}) });
    const gate = answer.hold ? holds.take(answer.hold) : undefined;
    const out = gate ? heldResponse(res, gate) : res;
    out.writeHead(answer.status, { "content-type": "application/json" });
    out.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  /** The content an event shows now: its latest edit by its sender (`m.replace`'s `m.new_content`), else its own. */
  function shownContent(event: FakeMatrixEvent): Record<string, any> {
    const edits = stream.filter((e) => e.sender === event.sender && e.content?.["m.relates_to"]?.rel_type === "m.replace" && e.content["m.relates_to"].event_id === event.event_id);
    return edits.at(-1)?.content["m.new_content"] ?? event.content;
  }

  /** What an event said, redacted or not (the test sees what the room no longer shows). */
  const relatesTo = (e: FakeMatrixEvent) => (e.redactedContent ?? e.content)?.["m.relates_to"] as { rel_type?: string; event_id?: string; "m.in_reply_to"?: { event_id?: string } } | undefined;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    token,
    botUserId,
    serverName: server_name,
    calls,
    stream,
    /** A room with the bot and these people joined (the bot at power level 50, which may redact). */
    addRoom(id: string, people: Array<{ id: string; name: string }>, extra: { encrypted?: boolean } = {}) {
      for (const p of people) names.set(p.id, p.name);
      addRoom(id, people, extra.encrypted ? { encryption: { algorithm: "m.megolm.v1.aes-sha2" } } : {});
    },
    /** Someone invites the bot to a new room (with them in it). */
    invite(id: string, inviter: { id: string; name: string }, options: { direct?: boolean } = {}) {
      const room = addRoom(id, [], options.direct ? { direct: true } : {});
      room.members.delete(botUserId);
      join(room, inviter.id, inviter.name);
      room.invited.add(botUserId);
      room.inviter = inviter.id;
      wake();
    },
    isJoined: (roomId: string) => rooms.get(roomId)?.members.has(botUserId) === true,
    /** The DM room the bot opened with this person (createRoom is_direct). */
    dmRoomOf: (userId: string) => [...rooms.values()].find((r) => r.direct && r.members.has(userId))?.id,
    setPowerLevel(roomId: string, user: string, level: number) {
      const room = rooms.get(roomId)!;
      room.powerLevels = { ...room.powerLevels, users: { ...room.powerLevels.users, [user]: level } };
      append({ type: "m.room.power_levels", sender: botUserId, room_id: roomId, state_key: "", content: room.powerLevels });
    },
    /** Each room: the bot's power level there (50 may redact others' events; 0 may not). */
    roomIds: () => [...rooms.keys()],
    refuseRedactingOwn(refuse: boolean) {
      refuseRedactOwn = refuse;
    },
    setTimelineLimit(limit: number) {
      timelineLimit = limit;
    },
    /** A person sends a text message, optionally as a reply to an event, or in a thread. */
    type(roomId: string, user: { id: string; name: string }, text: string, options: { replyTo?: string; thread?: string; fallback?: string } = {}): FakeMatrixEvent {
      const relation = options.thread
        ? { rel_type: "m.thread", event_id: options.thread, is_falling_back: !options.replyTo, "m.in_reply_to": { event_id: options.replyTo ?? options.thread } }
        : options.replyTo
          ? { "m.in_reply_to": { event_id: options.replyTo } }
          : undefined;
      const body = options.fallback ? `${options.fallback}\n\n${text}` : text;
      return append({ type: "m.room.message", sender: user.id, room_id: roomId, content: { msgtype: "m.text", body, ...(relation ? { "m.relates_to": relation } : {}) } });
    },
    /** A person votes in a poll (a poll response with one answer id, or none to take the vote back). */
    vote(roomId: string, user: { id: string; name: string }, pollEventId: string, answerIds: string[]): FakeMatrixEvent {
      return append({
        type: POLL_RESPONSE,
        sender: user.id,
        room_id: roomId,
        content: { "m.relates_to": { rel_type: "m.reference", event_id: pollEventId }, [POLL_RESPONSE]: { answers: answerIds } },
      });
    },
    /** The same event comes down /sync again (a replay). */
    redeliver(event: FakeMatrixEvent) {
      stream.push(event);
      wake();
    },
    event: (eventId: string) => byId.get(eventId),
    shownContent,
    /** Whether the bot ended this poll. */
    pollEnded: (pollEventId: string) => stream.some((e) => e.type === POLL_END && e.sender === botUserId && relatesTo(e)?.event_id === pollEventId),
    /** The bot's own events in a room, in order (edits and reactions included; the test filters). */
    botEvents: (roomId: string) => [...byId.values()].filter((e) => e.room_id === roomId && e.sender === botUserId && e.type !== "m.room.member" && e.type !== "m.room.power_levels"),
    /** The bot's reactions on an event. */
    reactionsOn: (eventId: string) =>
      [...byId.values()].filter((e) => e.type === "m.reaction" && e.sender === botUserId && relatesTo(e)?.event_id === eventId).map((e) => (relatesTo(e) as any).key as string),
    relatesTo,
    holdNext: holds.holdNext,
    /** The next call of a kind ("send", "redact", "sync") fails with this status and Matrix error body. */
    failNext(kind: string, failure: Failure) {
      failures.set(kind, [...(failures.get(kind) ?? []), failure]);
    },
    async close(): Promise<void> {
      wake();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type FakeMatrix = Awaited<ReturnType<typeof startFakeMatrix>>;
