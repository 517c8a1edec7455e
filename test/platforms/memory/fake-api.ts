/**
 * A chat platform that lives in memory: chats of messages, people who press buttons and type, and a record of every
 * call the bot made (sends, edits, reminders, and each effect it applied). The bot side is ./bot.ts: the real bridge
 * with an in-memory SurfaceAdapter (./adapter.ts) and PlatformOps (./ops.ts). Nothing here knows a question's rules;
 * it only keeps what a platform would show, and can refuse, fail, hold or rate-limit what the bot asks of it.
 */
import { PermanentSendError } from "../../../src/bridge/index.ts";
import type { ScenarioClock } from "../../scenarios/harness.ts";
import { elapse } from "../../scenarios/tools.ts";

export interface MemoryButton {
  label: string;
  data: string;
}

export interface MemoryMessage {
  id: string;
  chat: string;
  /** "bot", or the id of the person who wrote it. */
  from: string;
  text: string;
  /** The buttons it shows now (none once a copy became its summary). */
  buttons: MemoryButton[];
  /** The buttons as first sent: a person whose app has not refreshed can still press these. */
  sentButtons: MemoryButton[];
  /** A prompt: the question it asks. */
  prompt?: string;
  /** The message it replies to. */
  replyTo?: string;
  /** A request for one person's own words (their reply to it is the answer). */
  ownWordsOf?: string;
  /** People it notifies by name. */
  mentions: string[];
  deleted: boolean;
  reactions: string[];
}

/** One thing the bot asked of the platform, and whether the platform did it. */
export interface MemoryCall {
  op: "sendPrompt" | "editPrompt" | "sendReminder" | "deleteReminder" | "editReminder" | "toast" | "react" | "delete" | "reply" | "askOwnWords";
  chat: string;
  ok: boolean;
  questionId?: string;
  /** The message it was about (the person's message, the copy, the reminder). */
  about?: string;
  text?: string;
  private?: boolean;
}

/** Something a person did that the bot receives: a press, or a typed message. */
export type MemoryUpdate =
  | { kind: "press"; chat: string; from: { id: string; name: string }; data: string; message: string }
  | { kind: "message"; message: MemoryMessage; name: string };

/** How the bot takes updates: a press resolves to what the presser was told (the toast), or undefined. */
export type MemoryHandler = (update: MemoryUpdate) => Promise<string | undefined>;

/** The handler of the next bot to start (`resolve` when it does). */
function nextBot() {
  let resolve!: (handler: MemoryHandler) => void;
  const promise = new Promise<MemoryHandler>((r) => (resolve = r));
  return { promise, resolve };
}

/** `clock`: the virtual clock the bot runs on, which a retry-after is waited out on (default: real time). */
export function createMemoryPlatform(clock?: ScenarioClock) {
  const messages: MemoryMessage[] = [];
  const calls: MemoryCall[] = [];
  /** Private notices per person, oldest first. */
  const notices = new Map<string, string[]>();
  let lastId = 0;
  let handler: MemoryHandler | undefined;
  /** Resolves once a bot takes updates (`listen`): the platform keeps them while none runs. */
  let running = nextBot();
  /** One chat's updates in order (a reply after the Other… press it follows); different chats at once. */
  const chains = new Map<string, Promise<unknown>>();
  const refusing = new Set<string>();
  const failingSends = new Map<string, number>();
  const failingEdits = new Map<string, number>();
  const holds = new Map<string, { posted: (m: MemoryMessage) => void; released: Promise<void> }>();
  let rateLimitSeconds: number | undefined;
  let ownDeletesRefused = false;
  let deletesForbidden = false;

  const record = (call: MemoryCall) => void calls.push(call);
  const find = (chat: string, id: string): MemoryMessage => {
    const found = messages.find((m) => m.chat === chat && m.id === id);
    if (!found) throw new Error(`no message ${id} in chat ${chat}`);
    return found;
  };
  function post(message: Omit<MemoryMessage, "id" | "deleted" | "reactions" | "mentions" | "sentButtons"> & { mentions?: string[] }): MemoryMessage {
    const m: MemoryMessage = { mentions: [], ...message, id: String(++lastId), sentButtons: message.buttons, deleted: false, reactions: [] };
    messages.push(m);
    return m;
  }
  /** A bot's send or edit that the platform fails, as an HTTP status the bridge retries. */
  const failure = (status: number) => new Error(`${status}: Bad Gateway`);

  async function deliver<T extends MemoryUpdate>(update: T): Promise<string | undefined> {
    const chat = update.kind === "press" ? update.chat : update.message.chat;
    const turn = (chains.get(chat) ?? Promise.resolve()).catch(() => {}).then(async () => {
      return (handler ?? (await running.promise))(update);
    });
    chains.set(chat, turn);
    return turn;
  }

  return {
    messages,
    calls,
    record,
    find,
    /** The bot starts or stops taking updates. */
    listen(next: MemoryHandler | undefined) {
      handler = next;
      if (next) running.resolve(next);
      else running = nextBot();
    },

    // What the bot does (the adapter and the ops call these).
    async sendPrompt(chat: string, questionId: string, text: string, buttons: MemoryButton[]): Promise<string> {
      if (refusing.has(chat)) {
        record({ op: "sendPrompt", chat, questionId, ok: false });
        throw new PermanentSendError("Forbidden: bot was blocked by the user");
      }
      const status = failingSends.get(chat);
      if (status !== undefined) {
        record({ op: "sendPrompt", chat, questionId, ok: false });
        throw failure(status);
      }
      if (rateLimitSeconds !== undefined) {
        // Refused with a retry-after, which the platform's client waits out before it sends again.
        const seconds = rateLimitSeconds;
        rateLimitSeconds = undefined;
        record({ op: "sendPrompt", chat, questionId, ok: false });
        await elapse(clock, seconds * 1_000);
      }
      const message = post({ chat, from: "bot", text, buttons, prompt: questionId });
      record({ op: "sendPrompt", chat, questionId, about: message.id, ok: true });
      const hold = holds.get(chat);
      if (hold) {
        holds.delete(chat);
        hold.posted(message);
        await hold.released;
      }
      return message.id;
    },
    async editPrompt(chat: string, id: string, text: string, buttons: MemoryButton[]): Promise<void> {
      const status = failingEdits.get(chat);
      record({ op: "editPrompt", chat, about: id, ok: status === undefined });
      if (status !== undefined) throw failure(status);
      Object.assign(find(chat, id), { text, buttons });
    },
    /** A bot message in a chat that is not a prompt. */
    say(chat: string, text: string, options: { replyTo?: string; ownWordsOf?: string; mentions?: string[] } = {}): MemoryMessage {
      return post({ chat, from: "bot", text, buttons: [], ...options });
    },
    notify(person: string, text: string): void {
      notices.set(person, [...(notices.get(person) ?? []), text]);
    },
    /** Deletes a message: a person's one unless deleting is forbidden, the bot's own unless that is refused. */
    delete(chat: string, id: string): boolean {
      const message = find(chat, id);
      if (message.from === "bot" ? ownDeletesRefused : deletesForbidden) return false;
      message.deleted = true;
      return true;
    },

    // What people do.
    press(message: MemoryMessage, data: string, from: { id: string; name: string }): Promise<string | undefined> {
      return deliver({ kind: "press", chat: message.chat, from, data, message: message.id });
    },
    /** Someone types; the bot receives it in the background, as a platform delivers an update. */
    type(chat: string, from: { id: string; name: string }, text: string, replyTo?: MemoryMessage): MemoryMessage {
      const message = post({ chat, from: from.id, text, buttons: [], ...(replyTo ? { replyTo: replyTo.id } : {}) });
      void deliver({ kind: "message", message, name: from.name });
      return message;
    },
    /** The same message reaches the bot again (a webhook retry, a replayed update). */
    redeliver(message: MemoryMessage, name: string): Promise<unknown> {
      return deliver({ kind: "message", message, name });
    },

    // What a test looks at.
    botMessages: (chat: string) => messages.filter((m) => m.chat === chat && m.from === "bot"),
    noticesTo: (person: string) => notices.get(person) ?? [],

    // What a test makes the platform do.
    refuse(chat: string) {
      refusing.add(chat);
    },
    failSendsTo(chat: string, status: number): () => void {
      failingSends.set(chat, status);
      return () => void failingSends.delete(chat);
    },
    failEditsIn(chat: string, status: number): () => void {
      failingEdits.set(chat, status);
      return () => void failingEdits.delete(chat);
    },
    rateLimitNextSend(seconds: number) {
      rateLimitSeconds = seconds;
    },
    /** The next prompt send to `chat` is posted at once, but its answer to the bot waits for `release()`. */
    holdNextPrompt(chat: string): { posted: Promise<MemoryMessage>; release(): void } {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let posted!: (m: MemoryMessage) => void;
      const postedMessage = new Promise<MemoryMessage>((r) => (posted = r));
      holds.set(chat, { posted, released });
      return { posted: postedMessage, release };
    },
    refuseDeletingOwn(refuse: boolean) {
      ownDeletesRefused = refuse;
    },
    forbidDeleting(forbid: boolean) {
      deletesForbidden = forbid;
    },
  };
}

export type MemoryPlatform = ReturnType<typeof createMemoryPlatform>;
