/**
 * A small typed client for the WhatsApp Cloud API (the Graph API's POST /{version}/{phone-number-id}/messages), on
 * plain `fetch`: Meta's own Node SDK is archived, and the bot needs three calls (send, react, mark as read). Rate
 * limits (130429: the number's throughput; 131056: too many messages to one recipient) are retried here with
 * backoff; every other error goes to the caller as a `GraphApiError` with Meta's code.
 */
import type { WhatsAppMessage } from "../../src/platforms/whatsapp/payload.ts";

/** Meta's error object (`{ error: { message, type, code, error_subcode, error_data, fbtrace_id } }`). */
export class GraphApiError extends Error {
  override name = "GraphApiError";
  constructor(
    message: string,
    /** The HTTP status. */
    readonly status: number,
    /** Meta's error code (131047, 130429 …); undefined when the body had none. */
    readonly code: number | undefined,
    readonly details?: string,
  ) {
    super(message);
  }
}

/** The person has not written in 24 hours: only a template may open the conversation. */
export const RE_ENGAGEMENT = 131047;
/** The phone number's throughput (messages a second) is used up. */
export const THROUGHPUT_LIMIT = 130429;
/** Too many messages from this number to one recipient in a short time (the pair rate limit). */
export const PAIR_RATE_LIMIT = 131056;
/** Rate limits: retried here with backoff. */
export const RATE_LIMITS: ReadonlySet<number> = new Set([THROUGHPUT_LIMIT, PAIR_RATE_LIMIT, 80007, 4]);

export interface GraphApiRetry {
  /** Tries in all for a rate-limited call (default 6). */
  tries: number;
  /** The first wait (default 1 s; a tenth of it for the number's throughput, 130429); each later one doubles. */
  firstMs: number;
  /** The longest wait (default 16 s). */
  maxMs: number;
}

export const GRAPH_API_RETRY: GraphApiRetry = { tries: 6, firstMs: 1_000, maxMs: 16_000 };

export interface GraphApiOptions {
  /** https://graph.facebook.com, or a fake's root. */
  apiRoot: string;
  version: string;
  phoneNumberId: string;
  accessToken: string;
  retry?: GraphApiRetry;
  log?: (message: string, error?: unknown) => void;
  fetch?: typeof fetch;
}

export interface SendOptions {
  /** The message this one quotes (context.message_id): a reply to it. */
  replyTo?: string;
}

export interface TemplateMessage {
  name: string;
  language: string;
  /** The body's text parameters, in order. */
  bodyParameters: readonly string[];
}

interface MessagesResponse {
  messages?: Array<{ id?: string }>;
  success?: boolean;
}

export type GraphApi = ReturnType<typeof createGraphApi>;

export function createGraphApi(options: GraphApiOptions) {
  const retry = options.retry ?? GRAPH_API_RETRY;
  const doFetch = options.fetch ?? fetch;
  const url = `${options.apiRoot.replace(/\/+$/, "")}/${options.version}/${encodeURIComponent(options.phoneNumberId)}/messages`;

  async function once(body: Record<string, unknown>): Promise<MessagesResponse> {
    const response = await doFetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${options.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp", ...body }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = undefined;
    }
    if (response.ok && parsed && typeof parsed === "object") return parsed as MessagesResponse;
    const error = (parsed as { error?: { message?: unknown; code?: unknown; error_data?: { details?: unknown } } } | undefined)?.error;
    const code = typeof error?.code === "number" ? error.code : undefined;
    const message = typeof error?.message === "string" ? error.message : `HTTP ${response.status}`;
    const details = typeof error?.error_data?.details === "string" ? error.error_data.details : undefined;
    throw new GraphApiError(`${message}${code !== undefined ? ` (error ${code})` : ""}`, response.status, code, details);
  }

  /** One call, its rate limits waited out: 1 s, 2 s, 4 s … (0.1 s, 0.2 s … for the throughput; Meta sends no Retry-After). */
  async function call(body: Record<string, unknown>): Promise<MessagesResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(body);
      } catch (error) {
        const limited = error instanceof GraphApiError && error.code !== undefined && RATE_LIMITS.has(error.code);
        if (!limited || attempt >= retry.tries) throw error;
        // The number's throughput frees a slot within milliseconds; one recipient's pair rate takes seconds.
        const firstMs = error.code === THROUGHPUT_LIMIT ? retry.firstMs / 10 : retry.firstMs;
        const waitMs = Math.min(retry.maxMs, firstMs * 2 ** (attempt - 1));
        options.log?.(`rate limited (${error.message}); trying again in ${waitMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  const context = (send: SendOptions) => (send.replyTo ? { context: { message_id: send.replyTo } } : {});
  const idOf = (response: MessagesResponse): string => {
    const id = response.messages?.[0]?.id;
    if (typeof id !== "string" || !id) throw new GraphApiError("the Cloud API answered a send without a message id", 200, undefined);
    return id;
  };

  return {
    /** Sends a message to `to` (the digits of the person's number); resolves to its id (`wamid.…`). */
    async send(to: string, message: WhatsAppMessage, send: SendOptions = {}): Promise<string> {
      return idOf(await call({ recipient_type: "individual", to, ...context(send), ...message }));
    },
    /** Sends an approved template (the only message WhatsApp takes outside the 24-hour window). */
    async sendTemplate(to: string, template: TemplateMessage): Promise<string> {
      const components = template.bodyParameters.length
        ? [{ type: "body", parameters: template.bodyParameters.map((text) => ({ type: "text", text })) }]
        : [];
      return idOf(await call({ recipient_type: "individual", to, type: "template", template: { name: template.name, language: { code: template.language }, components } }));
    },
    /** Puts a reaction on a message in the chat with `to`. */
    async react(to: string, messageId: string, emoji: string): Promise<void> {
      await call({ recipient_type: "individual", to, type: "reaction", reaction: { message_id: messageId, emoji } });
    },
    /** Marks a received message as read (the blue ticks). */
    async markRead(messageId: string): Promise<void> {
      await call({ status: "read", message_id: messageId });
    },
  };
}
