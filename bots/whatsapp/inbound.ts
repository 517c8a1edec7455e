/**
 * Webhook events in: each message of each change of each entry becomes a bridge event, one chat's in order. A list
 * selection (`interactive.list_reply`) is a press (its row id decoded by the shared codec); a text is a typed reply,
 * quoting a prompt where it has `context.id`. Delivery statuses are logged when they report a failure. A malformed
 * entry or message is logged and skipped; the others are still handled.
 *
 * A signed body stays valid for ever, so a captured one can be replayed: a message is judged by its `timestamp`
 * (Unix seconds). One older than WHATSAPP_MESSAGE_MAX_AGE_MS on arrival, or without a timestamp, is ignored (logged at
 * debug): no answer, no window opened, not marked read. A newer one carries its time (`sentAtMs`), and the bridge
 * takes it for no question whose copy in that chat was delivered after it.
 */
import { applyEffects, callbackToEvent, TEXTS, type Bridge, type BridgeResponse, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeWhatsAppRowId } from "../../src/platforms/whatsapp/callback-data.ts";
import { whatsappText } from "../../src/platforms/whatsapp/payload.ts";
import type { Log } from "../shared.ts";
import type { GraphApi } from "./graph-api.ts";
import { whatsappOps, WHATSAPP_REFUSED_REACTION } from "./ops.ts";
import type { WhatsAppAdapter } from "./adapter.ts";

interface WaMessage {
  from?: unknown;
  id?: unknown;
  timestamp?: unknown;
  type?: unknown;
  text?: { body?: unknown };
  interactive?: { type?: unknown; list_reply?: { id?: unknown }; button_reply?: { id?: unknown } };
  context?: { id?: unknown };
}

interface WaValue {
  metadata?: { phone_number_id?: unknown };
  contacts?: Array<{ wa_id?: unknown; profile?: { name?: unknown } }>;
  messages?: WaMessage[];
  statuses?: Array<{ id?: unknown; status?: unknown; recipient_id?: unknown; errors?: Array<{ code?: unknown; title?: unknown }> }>;
}

export interface WhatsAppInboundOptions {
  api: GraphApi;
  paced: <T>(chat: string, send: () => Promise<T>) => Promise<T>;
  bridge: Pick<Bridge, "handle" | "sent">;
  /** The adapter's side of the 24-hour window and of failed statuses. */
  adapter: Pick<WhatsAppAdapter, "windowOpened" | "statusFailed">;
  phoneNumberId: string;
  allowedUsers: readonly string[];
  log: Log;
  /** Marks each handled message as read (default true). */
  markRead?: boolean;
  /** LOG_LEVEL debug: messages ignored as too old are logged here. */
  debug?: Log;
  now?: () => number;
}

/**
 * How old a message may be on arrival and still count. Meta retries a webhook it could not deliver for longer, but
 * such a late message is not taken as an answer (nor would a replayed capture be).
 */
export const WHATSAPP_MESSAGE_MAX_AGE_MS = 10 * 60_000;

const PHONE = /^[0-9]{5,20}$/;
const TIMESTAMP = /^[0-9]{1,12}$/;
/** Selections remembered (by message id) at most; each is kept while it is young enough to count anyway. */
const SEEN_MAX = 100_000;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

export function createWhatsAppInbound(options: WhatsAppInboundOptions) {
  const { api, paced, bridge, adapter, allowedUsers, log } = options;
  const now = options.now ?? Date.now;
  const debug = options.debug ?? (() => {});
  /** Each chat's messages in order (an Other… selection, then the words that answer it). */
  const chains = new Map<string, Promise<void>>();
  /**
   * Selections already handled, by message id → its time: Meta may deliver a webhook again, and a press has no
   * message id at the gateway. Each is kept until it is too old to count anyway (WHATSAPP_MESSAGE_MAX_AGE_MS).
   */
  const seen = new Map<string, number>();

  /** Remembers a selection; false when it was seen already. Forgets those too old to count. */
  function firstSighting(messageId: string, sentAtMs: number): boolean {
    if (seen.has(messageId)) return false;
    const oldest = now() - WHATSAPP_MESSAGE_MAX_AGE_MS;
    for (const [id, atMs] of seen) {
      if (atMs >= oldest && seen.size < SEEN_MAX) break;
      seen.delete(id);
    }
    seen.set(messageId, sentAtMs);
    return true;
  }

  function inOrder(chat: string, work: () => Promise<void>): Promise<void> {
    const next = (chains.get(chat) ?? Promise.resolve()).then(work).catch((error) => log(`could not handle a message from ${chat}`, error));
    chains.set(chat, next);
    void next.then(() => {
      if (chains.get(chat) === next) chains.delete(chat);
    });
    return next;
  }

  async function onMessage(message: WaMessage, names: Map<string, string>): Promise<void> {
    const chat = str(message.from);
    const messageId = str(message.id);
    if (!chat || !PHONE.test(chat) || !messageId) return void log("skipped a message without a sender or an id");
    const stamp = str(message.timestamp);
    const sentAtMs = stamp && TIMESTAMP.test(stamp) ? Number(stamp) * 1000 : undefined;
    if (sentAtMs === undefined || sentAtMs < now() - WHATSAPP_MESSAGE_MAX_AGE_MS) {
      return void debug(`ignored message ${messageId} from ${chat}: ${sentAtMs === undefined ? "no timestamp" : `written ${new Date(sentAtMs).toISOString()}, over 10 minutes ago`} (a replay, or a webhook retried too late)`);
    }
    // Whatever they sent, the person wrote: the 24-hour window is open, and prompts held for it go out. The message
    // that opened it answers nothing: the person has not seen those questions yet.
    if (await adapter.windowOpened(chat)) return;
    const name = names.get(chat);
    const user: BridgeUser = { id: chat, ...(name ? { name } : {}) };
    const context = { api, paced, bridge, log, chat, messageId };
    // Someone the bot does not serve gets a mark, and nothing of theirs reaches the gateway.
    if (allowedUsers.length > 0 && !allowedUsers.includes(chat)) {
      await paced(chat, () => api.react(chat, messageId, WHATSAPP_REFUSED_REACTION)).catch((error) => log("could not mark a message", error));
      return;
    }
    let response: BridgeResponse | undefined;
    if (message.type === "interactive") {
      const rowId = message.interactive?.list_reply?.id ?? message.interactive?.button_reply?.id;
      if (!firstSighting(messageId, sentAtMs)) return;
      const decoded = decodeWhatsAppRowId(rowId);
      if (!decoded) {
        await paced(chat, () => api.send(chat, whatsappText(TEXTS.notValid), { replyTo: messageId }));
        return;
      }
      response = await bridge.handle(callbackToEvent(decoded, { user, chat, sentAtMs }));
    } else if (message.type === "text") {
      const text = typeof message.text?.body === "string" ? message.text.body : undefined;
      if (text === undefined) return void log(`skipped a text message without a body from ${chat}`);
      const replyTo = str(message.context?.id);
      response = await bridge.handle({ kind: "text", text, user, chat, sentAtMs, direct: true, messageRef: messageId, ...(replyTo ? { replyToMessageRef: replyTo } : {}) });
    } else {
      return; // images, stickers, reactions …: not an answer
    }
    if (options.markRead !== false) void api.markRead(messageId).catch((error) => log("could not mark a message as read", error));
    if (response) await applyEffects(response, whatsappOps(context, chat));
  }

  function onChange(value: WaValue): void {
    if (str(value.metadata?.phone_number_id) !== options.phoneNumberId) return; // another number on the same app
    const names = new Map<string, string>();
    for (const contact of list<{ wa_id?: unknown; profile?: { name?: unknown } }>(value.contacts)) {
      const id = str(contact?.wa_id);
      const name = str(contact?.profile?.name);
      if (id && name) names.set(id, name);
    }
    for (const message of list<WaMessage>(value.messages)) {
      if (!message || typeof message !== "object") continue;
      const chat = str(message.from) ?? "";
      void inOrder(chat, () => onMessage(message, names));
    }
    for (const status of list<NonNullable<WaValue["statuses"]>[number]>(value.statuses)) {
      const id = str(status?.id);
      if (status?.status !== "failed" || !id) continue;
      const error = list<{ code?: unknown; title?: unknown }>(status.errors)[0];
      const chat = str(status.recipient_id) ?? "";
      void inOrder(chat, () => adapter.statusFailed(id, typeof error?.code === "number" ? error.code : undefined, str(error?.title) ?? "failed"));
    }
  }

  return {
    /** One signed webhook body: every entry, every change of the `messages` field. Never throws. */
    onEvent(body: unknown): void {
      if (!body || typeof body !== "object" || (body as { object?: unknown }).object !== "whatsapp_business_account") {
        log("skipped a webhook body that is not a WhatsApp Business Account event");
        return;
      }
      for (const entry of list<{ changes?: unknown }>((body as { entry?: unknown }).entry)) {
        for (const change of list<{ field?: unknown; value?: unknown }>(entry?.changes)) {
          try {
            if (change?.field === "messages" && change.value && typeof change.value === "object") onChange(change.value as WaValue);
          } catch (error) {
            log("skipped a malformed webhook change", error);
          }
        }
      }
    },
    /** Resolves once every message received so far was handled (for a clean stop). */
    async idle(): Promise<void> {
      await Promise.all([...chains.values()]);
    },
  };
}
