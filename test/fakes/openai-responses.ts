/**
 * A fake OpenAI Responses API (`POST /v1/responses`, streamed as server-sent events) for driving the real Codex
 * offline through a custom model provider. A script plays the model: given each request Codex sends, it answers
 * with one function call or one message. Every request is kept, so a test can read what Codex sent back to the
 * model, such as the output of a function call.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One item of a request's `input` (messages, function calls, function call outputs). */
export type ResponsesInputItem = { type?: string; role?: string; call_id?: string; output?: unknown; content?: unknown; [key: string]: unknown };

export interface ResponsesRequest {
  model: string;
  input: ResponsesInputItem[];
  tools?: Array<{ type: string; name?: string }>;
  [key: string]: unknown;
}

/** What the scripted model does next: call a function (its arguments as an object), or answer in text. */
export type ModelTurn = { call: string; arguments: unknown } | { text: string };

export interface FakeResponsesApi {
  /** The provider's `base_url` (ends in /v1). */
  baseUrl: string;
  readonly requests: ResponsesRequest[];
  /** The function calls the model made, with the call ids Codex reports them by. */
  readonly calls: Array<{ callId: string; name: string; arguments: unknown }>;
  /** What Codex sent back for the call `callId`, once a later request carries it (waits up to `timeoutMs`). */
  outputOf(callId: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** The user's own words in a request: the text of its last user message. */
export function userPrompt(request: ResponsesRequest): string {
  const message = request.input.filter((item) => item.type === "message" && item.role === "user").at(-1);
  const content = Array.isArray(message?.content) ? (message.content as Array<{ text?: string }>) : [];
  return content.map((part) => part.text ?? "").join("");
}

/** Whether Codex already sent the model a function call's output in this request. */
export function hasToolOutput(request: ResponsesRequest): boolean {
  return request.input.some((item) => item.type === "function_call_output");
}

export async function startFakeResponsesApi(script: (request: ResponsesRequest) => ModelTurn): Promise<FakeResponsesApi> {
  const requests: ResponsesRequest[] = [];
  const calls: FakeResponsesApi["calls"] = [];
  let responses = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/responses")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const request = JSON.parse(body) as ResponsesRequest;
      requests.push(request);
      const id = `resp_${++responses}`;
      const turn = script(request);
      const item =
        "call" in turn
          ? { type: "function_call", id: `fc_${responses}`, call_id: `call_${responses}`, name: turn.call, arguments: JSON.stringify(turn.arguments) }
          : { type: "message", role: "assistant", id: `msg_${responses}`, content: [{ type: "output_text", text: turn.text, annotations: [] }] };
      if ("call" in turn) calls.push({ callId: item.call_id!, name: turn.call, arguments: turn.arguments });
      stream(res, [
        ["response.created", { response: { id } }],
        ["response.output_item.added", { output_index: 0, item }],
        ["response.output_item.done", { output_index: 0, item }],
        ["response.completed", { response: { id, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } } }],
      ]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const findOutput = (callId: string) => {
    for (const request of requests) {
      const item = request.input.find((i) => i.type === "function_call_output" && i.call_id === callId);
      if (item) return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
    }
    return undefined;
  };

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    calls,
    async outputOf(callId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const output = findOutput(callId);
        if (output !== undefined) return output;
        if (Date.now() > deadline) throw new Error(`Codex never sent the model the output of ${callId}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function stream(res: ServerResponse, events: Array<[string, Record<string, unknown>]>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [type, data] of events) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.end();
}
