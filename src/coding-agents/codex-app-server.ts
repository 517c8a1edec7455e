/**
 * A `codex app-server` process's stdio as a JSON-RPC connection (newline-delimited JSON, Codex's framing without the
 * `"jsonrpc"` member): your requests and notifications go out, the server's requests go to the handler and its
 * replies go back, and the server's notifications reach the handler (`observe`) and your listeners. When Codex
 * settles a request itself (`serverRequest/resolved`: the turn was interrupted), its pending question is cancelled.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { SERVER_REQUEST_RESOLVED, type CodexReply } from "./codex-protocol.ts";
import type { CodexServerRequestHandler } from "./codex.ts";

/** JSON-RPC's "Method not found" and "Internal error". */
const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;

/** An error reply to one of your requests, or the connection closing under it. */
export class CodexAppServerError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "CodexAppServerError";
  }
}

export interface CodexAppServer {
  request<T = unknown>(method: string, params?: unknown): Promise<T>;
  notify(method: string, params?: unknown): void;
  /** Called with every notification the server sends; returns the unsubscribe. */
  onNotification(listener: (method: string, params: unknown) => void): () => void;
  /** Settles when the server's stdout ends. */
  readonly closed: Promise<void>;
  /** Stops reading: pending questions are cancelled and your pending requests rejected. The process is yours to end. */
  close(): void;
}

export interface AttachOptions {
  /** Answers the server requests the handler does not (undefined: the error "method not found"). */
  fallback?: (method: string, params: unknown, options: { signal: AbortSignal }) => Promise<CodexReply | undefined>;
}

type Message = { id?: string | number; method?: string; params?: unknown; result?: unknown; error?: { code?: number; message?: string } };

export function attachToCodexAppServer(
  child: { stdin: Writable | null; stdout: Readable | null },
  handler: CodexServerRequestHandler,
  options: AttachOptions = {},
): CodexAppServer {
  const { stdin, stdout } = child;
  if (!stdin || !stdout) throw new TypeError("attachToCodexAppServer needs the process's stdin and stdout as pipes");
  const lines = createInterface({ input: stdout, crlfDelay: Infinity });
  const pending = new Map<string | number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const serving = new Map<string, AbortController>();
  const listeners = new Set<(method: string, params: unknown) => void>();
  let nextId = 1;
  let open = true;
  stdin.on("error", () => close());

  const send = (message: Message) => {
    if (open && stdin.writable) stdin.write(`${JSON.stringify(message)}\n`);
  };

  const serve = async (id: string | number, method: string, params: unknown) => {
    const key = JSON.stringify(id);
    const controller = new AbortController();
    serving.set(key, controller);
    let reply: CodexReply | undefined;
    try {
      reply = (await handler(method, params, { signal: controller.signal })) ?? (await options.fallback?.(method, params, { signal: controller.signal }));
    } catch (error) {
      reply = { error: { code: INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) } };
    }
    // Settled by Codex meanwhile: nobody waits for this reply.
    if (serving.get(key) !== controller) return;
    serving.delete(key);
    send({ id, ...(reply ?? { error: { code: METHOD_NOT_FOUND, message: `${method} is not answered by this client` } }) });
  };

  const receive = (message: Message) => {
    if (typeof message.method === "string") {
      if (message.id !== undefined) return void serve(message.id, message.method, message.params);
      if (message.method === SERVER_REQUEST_RESOLVED) settledByCodex(message.params);
      handler.observe(message.method, message.params);
      for (const listener of listeners) listener(message.method, message.params);
      return;
    }
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error) waiting.reject(new CodexAppServerError(message.error.code ?? INTERNAL_ERROR, message.error.message ?? "error"));
    else waiting.resolve(message.result);
  };

  const settledByCodex = (params: unknown) => {
    const requestId = (params as { requestId?: unknown } | null)?.requestId;
    const key = JSON.stringify(requestId);
    serving.get(key)?.abort();
    serving.delete(key);
  };

  lines.on("line", (line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not a protocol line
    }
    if (typeof message === "object" && message !== null) receive(message as Message);
  });
  const closed = new Promise<void>((resolve) => lines.once("close", resolve)).then(() => close());

  function close() {
    if (!open) return;
    open = false;
    lines.close();
    for (const controller of serving.values()) controller.abort();
    serving.clear();
    for (const waiting of pending.values()) waiting.reject(new CodexAppServerError(INTERNAL_ERROR, "the codex app-server connection closed"));
    pending.clear();
  }

  return {
    request: (method, params) =>
      new Promise((resolve, reject) => {
        if (!open) return reject(new CodexAppServerError(INTERNAL_ERROR, "the codex app-server connection is closed"));
        const id = nextId++;
        pending.set(id, { resolve, reject });
        send({ id, method, ...(params === undefined ? {} : { params }) });
      }),
    notify: (method, params) => send({ method, ...(params === undefined ? {} : { params }) }),
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    closed,
    close,
  };
}
