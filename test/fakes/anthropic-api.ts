/**
 * A scriptable fake of the Anthropic Messages API, for the real Claude Code binary (its CLI and its Agent SDK) with
 * `ANTHROPIC_BASE_URL` pointing here. Every `POST /v1/messages` is recorded. A request of the main agent loop (one
 * that offers tools) gets the next turn of the script: a tool call, or text that ends the turn; any other request
 * (Claude Code's side requests: titles, summaries) gets a short text. Answers stream as server-sent events, the way
 * Claude Code asks for them (`stream: true`), or as one JSON message otherwise.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One turn of the model: call a tool (with this whole input), or say something and end the turn. */
export type ModelTurn = { tool: string; input: Record<string, unknown>; id?: string } | { text: string };

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: Array<{ name: string }>;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
  [key: string]: unknown;
}

export interface FakeAnthropic {
  /** The base URL for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every request of the main loop, in order. */
  readonly loopRequests: MessagesRequest[];
  /** Every tool_result the loop requests carried, once each, in order (what Claude Code told the model of each tool). */
  toolResults(): Array<{ tool_use_id: string; content: string; is_error?: boolean }>;
  /** Resolves once `count` loop requests have arrived. */
  waitForLoopRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

let nextToolUseId = 1;

/** The message a turn is, as content blocks with a stop reason. */
function messageFor(turn: ModelTurn, model: string) {
  const content =
    "tool" in turn
      ? [{ type: "tool_use", id: turn.id ?? `toolu_fake_${nextToolUseId++}`, name: turn.tool, input: turn.input }]
      : [{ type: "text", text: turn.text }];
  return {
    id: `msg_fake_${Date.now()}_${nextToolUseId++}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: "tool" in turn ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** The same message as Claude Code reads it from a stream. */
function sseFor(message: ReturnType<typeof messageFor>): string {
  const events: Array<[string, unknown]> = [
    ["message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } }],
  ];
  message.content.forEach((block, index) => {
    if (block.type === "tool_use") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } }]);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify((block as { input: unknown }).input) } }]);
    } else {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: (block as { text: string }).text } }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(["message_delta", { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } }]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

/**
 * Starts the fake. `script` gives the main loop's turns in order; once it runs out, the model says "Done." and ends
 * its turn, so a run always finishes.
 */
export async function startFakeAnthropic(script: ModelTurn[]): Promise<FakeAnthropic> {
  const turns = [...script];
  const loopRequests: MessagesRequest[] = [];
  const waiters = new Set<() => void>();

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      if (req.method !== "POST" || url.pathname !== "/v1/messages") {
        // count_tokens and anything else: a harmless answer.
        res.writeHead(url.pathname.endsWith("/count_tokens") ? 200 : 404, { "content-type": "application/json" });
        res.end(JSON.stringify(url.pathname.endsWith("/count_tokens") ? { input_tokens: 10 } : { type: "error", error: { type: "not_found_error", message: "not here" } }));
        return;
      }
      const body = JSON.parse(await readBody(req)) as MessagesRequest;
      const isLoop = Array.isArray(body.tools) && body.tools.length > 0;
      let turn: ModelTurn = { text: "OK" };
      if (isLoop) {
        loopRequests.push(body);
        for (const wake of [...waiters]) wake();
        turn = turns.shift() ?? { text: "Done." };
      }
      const message = messageFor(turn, body.model ?? "claude-fake");
      if (body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(sseFor(message));
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(message));
      }
    })().catch((error) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    loopRequests,
    toolResults() {
      // Each request repeats the conversation so far: take every tool_result once, in the order they first appear.
      const seen = new Map<string, { tool_use_id: string; content: string; is_error?: boolean }>();
      for (const request of loopRequests) {
        for (const message of request.messages) {
          if (message.role !== "user" || typeof message.content === "string") continue;
          for (const block of message.content) {
            if (block.type !== "tool_result" || seen.has(String(block.tool_use_id))) continue;
            const content = block.content;
            const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? "").join("") : "";
            seen.set(String(block.tool_use_id), { tool_use_id: String(block.tool_use_id), content: text, ...(block.is_error ? { is_error: true } : {}) });
          }
        }
      }
      return [...seen.values()];
    },
    waitForLoopRequests(count, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (loopRequests.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`only ${loopRequests.length} of ${count} model requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
