/**
 * attachToCodexAppServer's JSON-RPC over a process's stdio, with two PassThrough streams standing in for the pipes
 * (the real `codex app-server` drives it in codex-app-server.test.ts): replies, errors, notifications, Codex
 * settling a request itself, and the connection closing.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { attachToCodexAppServer, CodexAppServerError, type CodexReply, type CodexServerRequestHandler } from "../../src/frameworks/codex.ts";

/** A fake server end: what the client wrote (one JSON message a line), and a way to write to the client. */
function pipes(handle: (method: string, params: unknown, options: { signal?: AbortSignal }) => Promise<CodexReply | undefined>) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: any[] = [];
  let buffer = "";
  stdin.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
      written.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  const observed: Array<[string, unknown]> = [];
  const handler: CodexServerRequestHandler = Object.assign((method: string, params: unknown, options: { signal?: AbortSignal } = {}) => handle(method, params, options), {
    observe: (method: string, params: unknown) => void observed.push([method, params]),
  });
  const send = (message: unknown) => stdout.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  const nextWritten = async (n: number) => {
    while (written.length < n) await new Promise((r) => setTimeout(r, 5));
    return written[n - 1];
  };
  return { child: { stdin, stdout }, handler, written, observed, send, nextWritten };
}

describe("attachToCodexAppServer", () => {
  it("sends requests and notifications, and settles each request with its reply or error", async () => {
    const wire = pipes(async () => undefined);
    const appServer = attachToCodexAppServer(wire.child, wire.handler);
    const started = appServer.request<{ thread: { id: string } }>("thread/start", { cwd: "/repo" });
    const refused = appServer.request("turn/start", {});
    appServer.notify("initialized");
    expect(await wire.nextWritten(3)).toEqual({ method: "initialized" });
    expect(wire.written.slice(0, 2)).toEqual([
      { id: 1, method: "thread/start", params: { cwd: "/repo" } },
      { id: 2, method: "turn/start", params: {} },
    ]);
    wire.send("not json: a stray log line");
    wire.send({ id: 2, error: { code: -32600, message: "turn/start needs threadId" } });
    wire.send({ id: 1, result: { thread: { id: "t1" } } });
    expect(await started).toEqual({ thread: { id: "t1" } });
    await expect(refused).rejects.toEqual(new CodexAppServerError(-32600, "turn/start needs threadId"));
  });

  it("answers a server request with the handler's reply, the fallback's, or an error", async () => {
    const wire = pipes(async (method) => (method === "mine" ? { result: { decision: "decline" } } : method === "broken" ? Promise.reject(new Error("bug")) : undefined));
    attachToCodexAppServer(wire.child, wire.handler, { fallback: async (method) => (method === "theirs" ? { result: { permissions: {} } } : undefined) });
    wire.send({ id: 7, method: "mine", params: {} });
    expect(await wire.nextWritten(1)).toEqual({ id: 7, result: { decision: "decline" } });
    wire.send({ id: "s-8", method: "theirs", params: {} });
    expect(await wire.nextWritten(2)).toEqual({ id: "s-8", result: { permissions: {} } });
    wire.send({ id: 9, method: "nobody's" });
    expect(await wire.nextWritten(3)).toEqual({ id: 9, error: { code: -32601, message: "nobody's is not answered by this client" } });
    wire.send({ id: 10, method: "broken" });
    expect(await wire.nextWritten(4)).toEqual({ id: 10, error: { code: -32603, message: "bug" } });
  });

  it("hands notifications to the handler and the listeners; serverRequest/resolved aborts that request, unanswered", async () => {
    const signals: AbortSignal[] = [];
    const wire = pipes((_method, _params, { signal }) => new Promise((resolve) => {
      signals.push(signal!);
      signal!.addEventListener("abort", () => resolve({ result: { decision: "decline" } }));
    }));
    const appServer = attachToCodexAppServer(wire.child, wire.handler);
    const heard: string[] = [];
    const off = appServer.onNotification((method) => heard.push(method));
    wire.send({ id: 0, method: "item/commandExecution/requestApproval", params: {} });
    wire.send({ id: 1, method: "item/commandExecution/requestApproval", params: {} });
    wire.send({ method: "item/started", params: { item: { id: "call_1" } } });
    wire.send({ method: "serverRequest/resolved", params: { threadId: "t", requestId: 0 } });
    while (heard.length < 2) await new Promise((r) => setTimeout(r, 5));
    off();
    expect(heard).toEqual(["item/started", "serverRequest/resolved"]);
    expect(wire.observed.map(([method]) => method)).toEqual(["item/started", "serverRequest/resolved"]);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
    await new Promise((r) => setTimeout(r, 20));
    expect(wire.written).toEqual([]); // Codex settled request 0 itself: no reply goes to it

    appServer.close();
    expect(signals[1]!.aborted).toBe(true);
    await expect(appServer.request("thread/start")).rejects.toThrow("closed");
  });

  it("rejects the pending requests and aborts the pending questions when the server's stdout ends", async () => {
    const signals: AbortSignal[] = [];
    const wire = pipes((_method, _params, { signal }) => new Promise(() => signals.push(signal!)));
    const appServer = attachToCodexAppServer(wire.child, wire.handler);
    const pending = appServer.request("thread/start");
    wire.send({ id: 3, method: "item/tool/requestUserInput", params: {} });
    while (signals.length === 0) await new Promise((r) => setTimeout(r, 5));
    wire.child.stdout.end();
    await appServer.closed;
    await expect(pending).rejects.toThrow("the codex app-server connection closed");
    expect(signals[0]!.aborted).toBe(true);
  });

  it("needs the process's stdio as pipes", () => {
    const wire = pipes(async () => undefined);
    expect(() => attachToCodexAppServer({ stdin: null, stdout: null }, wire.handler)).toThrow(TypeError);
  });
});
