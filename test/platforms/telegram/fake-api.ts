import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createResponseHolds, heldResponse } from "../../fakes/held-responses.ts";

/** A chat message as the fake Bot API keeps it. */
export interface FakeTelegramMessage {
  message_id: number;
  chat: { id: number; type: "private" | "group" | "supergroup" };
  from: { id: number; is_bot: boolean; first_name: string; username?: string };
  date: number;
  text: string;
  reply_markup?: any;
  /** The keyboard as first sent: a person whose app has not refreshed can still press these. */
  sent_markup?: any;
  entities?: any[];
  reply_to_message?: FakeTelegramMessage;
  deleted?: boolean;
  edits: number;
  /** The bot's reactions on it (setMessageReaction), as emoji. */
  reactions?: string[];
}

export interface FakeUser {
  id: number;
  first_name: string;
  username?: string;
}

type Failure = { error_code: number; description: string; parameters?: Record<string, unknown> };

/**
 * Telegram's published flood limits, enforced when given: about `perSecond` messages a second overall, and
 * `perChatPerSecond` in any one chat. A call over a limit gets 429 "Too Many Requests: retry after N" with
 * `parameters.retry_after`, as Telegram answers. Each limit is a token bucket (its capacity is one second's worth),
 * so a sender pacing itself at the limit passes; `graceMs` forgives that much network jitter.
 */
export interface TelegramLimits {
  perSecond?: number;
  perChatPerSecond?: number;
  /** Jitter forgiven, in ms of refill (default 50). */
  graceMs?: number;
  /** The methods that count as messages (default: sendMessage, editMessageText, editMessageReplyMarkup, deleteMessage). */
  methods?: string[];
}

export interface FakeTelegramOptions {
  limits?: TelegramLimits;
}

/** A token bucket: `capacity` tokens, refilled at `perSecond`. */
function tokenBucket(perSecond: number, capacity: number, graceMs: number) {
  let tokens = capacity;
  let at = Date.now();
  const refill = (now: number) => {
    tokens = Math.min(capacity, tokens + ((now - at) * perSecond) / 1000);
    at = now;
  };
  return {
    /** 0 when a token is free now (within the grace), else the ms until one is. */
    waitMs(now: number): number {
      refill(now);
      const short = 1 - tokens - (graceMs * perSecond) / 1000;
      return short <= 0 ? 0 : Math.ceil((short * 1000) / perSecond);
    },
    take(): void {
      tokens -= 1;
    },
  };
}

const BOT = { id: 999_000, is_bot: true, first_name: "AskBot", username: "ask_bot" };

/**
 * A local stand-in for the Telegram Bot API, enough for grammY's long polling, sends, edits,
 * callback answers and deletes. Tests drive people through `press` and `type`.
 */
export async function startFakeTelegram(options: FakeTelegramOptions = {}) {
  const limits = options.limits;
  const limitedMethods = new Set(limits?.methods ?? ["sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage"]);
  const graceMs = limits?.graceMs ?? 50;
  const globalBucket = limits?.perSecond ? tokenBucket(limits.perSecond, limits.perSecond, graceMs) : undefined;
  const chatBuckets = new Map<string, ReturnType<typeof tokenBucket>>();
  let rateLimited = 0;
  const messages = new Map<string, FakeTelegramMessage>(); // `${chat}:${id}`
  const updates: Array<{ update_id: number } & Record<string, unknown>> = [];
  const callbackAnswers = new Map<string, { text?: string }>();
  const calls: Array<{ method: string; body: any; failed?: boolean; /** Refused by `limits` with a 429. */ limited?: boolean; atMs?: number }> = [];
  const failures = new Map<string, Failure[]>();
  const wakers = new Set<() => void>();
  let nextUpdateId = 1;
  let nextMessageId = 1;
  let nextCallbackId = 1;
  const holds = createResponseHolds();
  /** The bot is no admin: deleting people's messages is refused. */
  let deleteOthers = true;
  /** The bot's own messages are past Telegram's 48 hours: deleting them is refused. */
  let deleteOwn = true;

  const key = (chat: number | string, id: number | string) => `${chat}:${id}`;

  /** Under `limits`: the 429 this call gets, or undefined when it may go (and then it uses up its tokens). */
  function overLimit(method: string, body: any): Failure | undefined {
    if (!limits || !limitedMethods.has(method)) return undefined;
    const now = Date.now();
    const chat = body.chat_id === undefined ? undefined : String(body.chat_id);
    let chatBucket: ReturnType<typeof tokenBucket> | undefined;
    if (chat !== undefined && limits.perChatPerSecond) {
      chatBucket = chatBuckets.get(chat);
      if (!chatBucket) chatBuckets.set(chat, (chatBucket = tokenBucket(limits.perChatPerSecond, 1, graceMs)));
    }
    const waitMs = Math.max(globalBucket?.waitMs(now) ?? 0, chatBucket?.waitMs(now) ?? 0);
    if (waitMs > 0) {
      rateLimited++;
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      return { error_code: 429, description: `Too Many Requests: retry after ${seconds}`, parameters: { retry_after: seconds } };
    }
    globalBucket?.take();
    chatBucket?.take();
    return undefined;
  }
  const chatOf = (id: number) => ({ id, type: id < 0 ? ("supergroup" as const) : ("private" as const) });

  function push(update: Record<string, unknown>): number {
    const update_id = nextUpdateId++;
    updates.push({ update_id, ...update });
    for (const wake of wakers) wake();
    return update_id;
  }

  async function readJson(req: IncomingMessage): Promise<any> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? JSON.parse(text) : {};
  }

  const ok = (res: ServerResponse, result: unknown) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, result }));
  };
  const fail = (res: ServerResponse, failure: Failure) => {
    res.writeHead(failure.error_code, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false, ...failure }));
  };
  const publicMessage = (m: FakeTelegramMessage) => {
    const { deleted: _d, edits: _e, sent_markup: _s, reactions: _r, ...rest } = m;
    return rest;
  };

  async function getUpdates(body: any, res: ServerResponse, req: IncomingMessage): Promise<void> {
    const offset = Number(body.offset ?? 0);
    while (updates.length && updates[0]!.update_id < offset) updates.shift();
    if (updates.length === 0 && Number(body.timeout ?? 0) > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(Number(body.timeout), 2) * 1000);
        timer.unref();
        function done() {
          clearTimeout(timer);
          wakers.delete(done);
          resolve();
        }
        wakers.add(done);
        req.on("close", done);
      });
    }
    if (res.destroyed) return;
    ok(res, updates.filter((u) => u.update_id >= offset).slice(0, Number(body.limit ?? 100)));
  }

  const handlers: Record<string, (body: any, res: ServerResponse, req: IncomingMessage) => void | Promise<void>> = {
    getMe: (_b, res) => ok(res, { ...BOT, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false }),
    deleteWebhook: (_b, res) => ok(res, true),
    setWebhook: (_b, res) => ok(res, true),
    getUpdates,
    sendMessage: (body, res) => {
      const chatId = Number(body.chat_id);
      const message: FakeTelegramMessage = {
        message_id: nextMessageId++,
        chat: chatOf(chatId),
        from: BOT,
        date: Math.floor(Date.now() / 1000),
        text: String(body.text),
        edits: 0,
        ...(body.reply_markup ? { reply_markup: body.reply_markup, sent_markup: body.reply_markup } : {}),
        ...(body.entities ? { entities: body.entities } : {}),
      };
      if (body.parse_mode) throw new Error(`the bot used parse_mode ${body.parse_mode}`);
      // A reply (reply_parameters, or the older reply_to_message_id): kept as Telegram shows it.
      const replyToId = body.reply_parameters?.message_id ?? body.reply_to_message_id;
      if (replyToId !== undefined) {
        const replied = messages.get(key(chatId, replyToId));
        if (replied && !replied.deleted) message.reply_to_message = publicMessage(replied) as FakeTelegramMessage;
        else if (!body.reply_parameters?.allow_sending_without_reply) return fail(res, { error_code: 400, description: "Bad Request: message to be replied not found" });
      }
      messages.set(key(chatId, message.message_id), message);
      ok(res, publicMessage(message));
    },
    editMessageText: (body, res) => {
      const message = messages.get(key(body.chat_id, body.message_id));
      if (!message) return fail(res, { error_code: 400, description: "Bad Request: message to edit not found" });
      if (message.text === body.text && JSON.stringify(message.reply_markup ?? null) === JSON.stringify(body.reply_markup ?? null)) {
        return fail(res, { error_code: 400, description: "Bad Request: message is not modified" });
      }
      message.text = String(body.text);
      message.edits++;
      if (body.reply_markup) message.reply_markup = body.reply_markup;
      else delete message.reply_markup;
      ok(res, publicMessage(message));
    },
    answerCallbackQuery: (body, res) => {
      callbackAnswers.set(String(body.callback_query_id), body.text === undefined ? {} : { text: body.text });
      for (const wake of wakers) wake();
      ok(res, true);
    },
    setMessageReaction: (body, res) => {
      const message = messages.get(key(body.chat_id, body.message_id));
      if (!message) return fail(res, { error_code: 400, description: "Bad Request: message to react not found" });
      message.reactions = (body.reaction ?? []).map((r: { emoji: string }) => r.emoji);
      ok(res, true);
    },
    deleteMessage: (body, res) => {
      const message = messages.get(key(body.chat_id, body.message_id));
      if (!message) return fail(res, { error_code: 400, description: "Bad Request: message to delete not found" });
      if (!message.from.is_bot && !deleteOthers) return fail(res, { error_code: 400, description: "Bad Request: message can't be deleted" });
      if (message.from.is_bot && !deleteOwn) return fail(res, { error_code: 400, description: "Bad Request: message can't be deleted" });
      message.deleted = true;
      ok(res, true);
    },
  };

  const server = createServer((req, res) => {
    void (async () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? "");
      if (!match || req.method !== "POST") return fail(res, { error_code: 404, description: "Not Found" });
      const method = match[2]!;
      const body = await readJson(req);
      const queued = failures.get(method)?.shift();
      const limited = queued ? undefined : overLimit(method, body);
      calls.push({ method, body, atMs: Date.now(), ...(queued || limited ? { failed: true } : {}), ...(limited ? { limited: true } : {}) });
      if (queued) return fail(res, queued);
      if (limited) return fail(res, limited);
      const handler = handlers[method];
      if (!handler) return fail(res, { error_code: 404, description: `Not Found: method ${method}` });
      const gate = holds.take(method);
      await handler(body, gate ? heldResponse(res, gate) : res, req);
    })().catch((error) => fail(res, { error_code: 500, description: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Someone types a message (optionally as a reply to one of the bot's messages). */
  function type(chat: number, from: FakeUser, text: string, replyTo?: FakeTelegramMessage): FakeTelegramMessage {
    const message: FakeTelegramMessage = {
      message_id: nextMessageId++,
      chat: chatOf(chat),
      from: { is_bot: false, ...from },
      date: Math.floor(Date.now() / 1000),
      text,
      edits: 0,
      ...(replyTo ? { reply_to_message: publicMessage(replyTo) as FakeTelegramMessage } : {}),
    };
    messages.set(key(chat, message.message_id), message);
    push({ message: publicMessage(message) });
    return message;
  }

  /** Someone presses a button with raw callback data, without waiting: returns the callback query id. */
  function pushCallback(message: FakeTelegramMessage, data: string, from: FakeUser): string {
    const id = String(nextCallbackId++);
    push({ callback_query: { id, from: { is_bot: false, ...from }, chat_instance: `ci${message.chat.id}`, message: publicMessage(message), data } });
    return id;
  }

  /** Someone presses a button with raw callback data; resolves to the toast once the bot answers. */
  async function pressData(message: FakeTelegramMessage, data: string, from: FakeUser, timeoutMs = 10_000): Promise<string | undefined> {
    const id = pushCallback(message, data, from);
    const deadline = Date.now() + timeoutMs;
    while (!callbackAnswers.has(id)) {
      if (Date.now() > deadline) throw new Error(`the bot never answered callback query ${id}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return callbackAnswers.get(id)!.text;
  }

  return {
    apiRoot,
    calls,
    bot: BOT,
    messages: () => [...messages.values()],
    botMessages: (chat: number) => [...messages.values()].filter((m) => m.chat.id === chat && m.from.is_bot),
    type,
    pressData,
    pushCallback,
    /** How the bot answered a callback query: undefined until it did, then `{ text }` (text absent for a silent answer). */
    callbackAnswer: (id: string): { text?: string } | undefined => callbackAnswers.get(id),
    /** Presses the n-th inline button of a message as it was sent (a stale app still shows it). */
    press(message: FakeTelegramMessage, buttonIndex: number, from: FakeUser): Promise<string | undefined> {
      const button = message.sent_markup?.inline_keyboard?.[buttonIndex]?.[0];
      if (!button) throw new Error(`message ${message.message_id} has no button ${buttonIndex}`);
      return pressData(message, button.callback_data, from);
    },
    /** The next call of `method` is carried out at once but answered only on `release()` (a slow network). */
    holdNext: holds.holdNext,
    /** Whether deleting people's messages is refused (a bot that is no admin of the group). */
    forbidDeleting(forbid: boolean): void {
      deleteOthers = !forbid;
    },
    /** Whether deleting the bot's own messages is refused (Telegram's 48 hours have passed). */
    forbidDeletingOwn(forbid: boolean): void {
      deleteOwn = !forbid;
    },
    /** The same message update again, with a new update_id (a webhook retry, or polling after a lost offset). */
    redeliver(message: FakeTelegramMessage): void {
      push({ message: publicMessage(message) });
    },
    /** The next call of `method` fails with this error (e.g. a 429 with retry_after). */
    failNext(method: string, failure: Failure): void {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    pendingUpdates: () => updates.length,
    /** How many calls `limits` refused with a 429. */
    rateLimited: () => rateLimited,
    async close(): Promise<void> {
      for (const wake of wakers) wake();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type FakeTelegram = Awaited<ReturnType<typeof startFakeTelegram>>;
