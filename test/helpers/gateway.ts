/**
 * Shared helpers for the gateway, client and CLI tests: an in-process gateway on an ephemeral port with a temp
 * DATA_DIR, a raw WebSocket client, an HTTP rpc helper, and (from ./cli.ts) child processes of the real CLI.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { WebSocket, type RawData } from "ws";
import type { Clock } from "../../src/kernel/clock.ts";
import { startGateway, type RunningGateway } from "../../src/gateway/run.ts";
import { createControlUi } from "../../src/web/index.ts";
import { createAnswerPage } from "../../src/web/answer-page.ts";
import { killChildren, spawnGatewayProcess, type ChildGateway } from "./cli.ts";
import { tempDir as makeTempDir } from "./temp-dirs.ts";

export { BIN, ROOT, spawnCli, waitForOutput, type ChildGateway, type CliRun } from "./cli.ts";

export const TOKEN = "x".repeat(32);
export const WRONG_TOKEN = "y".repeat(32);

// ---------------------------------------------------------------- temp dirs and inputs

const tempDirs: string[] = [];
/** A temp folder removed by cleanup(), and in any case when the test file ends (test/helpers/temp-dirs.ts). */
export function tempDir(prefix = "aub-gw-"): string {
  const dir = makeTempDir(prefix);
  tempDirs.push(dir);
  return dir;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One single-select question; `extra` adds request fields (timeoutSeconds, runId, targets, …). */
export function oneQuestion(extra: Record<string, unknown> = {}) {
  return {
    questions: [
      {
        id: "deploy_target",
        header: "Deployment target",
        question: "Where should I deploy?",
        options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
      },
    ],
    ...extra,
  };
}

/** A single-select and a multi-select question. */
export function twoQuestions(extra: Record<string, unknown> = {}) {
  return {
    questions: [
      { id: "env", header: "Env", question: "Which environment?", options: [{ label: "Staging" }, { label: "Production" }] },
      { id: "checks", header: "Checks", question: "Which checks should run?", multiSelect: true, options: [{ label: "Lint" }, { label: "Unit" }, { label: "E2E" }] },
    ],
    ...extra,
  };
}

// ---------------------------------------------------------------- in-process gateway

export type GatewayConfig = Parameters<typeof startGateway>[0];

export function gatewayConfig(dataDir: string, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    GATEWAY_HOST: "127.0.0.1",
    GATEWAY_PORT: 0,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: dataDir,
    STORE: "sqlite",
    // Long enough that no test races the delivery timer by accident; delivery tests pass 1.
    DELIVERY_TIMEOUT_SECONDS: 30,
    ASK_DEFAULT_TARGETS: [],
    ASK_TEST_MIN_TIMEOUT_SECONDS: 1,
    ...overrides,
  };
}

export interface TestGateway extends RunningGateway {
  dataDir: string;
  port: number;
  wsUrl: string;
}

/** Starts the real gateway in this process on an ephemeral port (or `overrides.GATEWAY_PORT`). */
export async function startTestGateway(overrides: Partial<GatewayConfig> & { dataDir?: string } = {}, clock?: Clock): Promise<TestGateway> {
  const { dataDir = tempDir(), ...rest } = overrides;
  const gateway = await startGateway(gatewayConfig(dataDir, rest), { log: () => {}, webApp: createControlUi, answerPage: createAnswerPage, ...(clock ? { clock } : {}) });
  const port = Number(new URL(gateway.url).port);
  return { ...gateway, close: gateway.close, dataDir, port, wsUrl: `ws://127.0.0.1:${port}/ws` };
}

/** One in-process gateway for a test file: started before its tests, closed (with temp dirs cleaned) after. */
export function useTestGateway(overrides: Partial<GatewayConfig> & { dataDir?: string } = {}): TestGateway {
  let current: TestGateway | undefined;
  beforeAll(async () => {
    current = await startTestGateway(overrides);
  });
  afterAll(async () => {
    await current?.close();
    await cleanup();
  });
  return new Proxy({} as TestGateway, {
    get(_target, key) {
      if (!current) throw new Error("the test gateway is not started yet (use it inside a test or hook)");
      return Reflect.get(current, key);
    },
  });
}

export { freePort } from "./free-port.ts";

// ---------------------------------------------------------------- protocol frames

export type ErrorBody = { code: string; message: string; issues?: Array<{ path: string; message: string }> };
export type ResFrame = { type: "res"; id: unknown; ok: true; payload: any } | { type: "res"; id: unknown; ok: false; error: ErrorBody };
export type EventFrame = { type: "event"; event: string; payload: any; seq: number };

/** A raw WebSocket client: sends frames as given and collects responses and events. */
export class RawWs {
  readonly responses: ResFrame[] = [];
  readonly events: EventFrame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #nextId = 1;
  #watchers = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data: RawData) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === "res") this.responses.push(frame);
      else if (frame.type === "event") this.events.push(frame);
      for (const watch of this.#watchers) watch();
    });
    this.closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** Opens `/ws`; `bearer` sends an Authorization header. Rejects with the HTTP status if the upgrade is refused. */
  static open(wsUrl: string, { bearer }: { bearer?: string } = {}): Promise<RawWs> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl, bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {});
      socket.once("unexpected-response", (_req, res) => {
        reject(Object.assign(new Error(`upgrade refused: HTTP ${res.statusCode}`), { status: res.statusCode }));
        socket.terminate();
      });
      socket.once("error", reject);
      socket.once("open", () => resolve(new RawWs(socket)));
    });
  }

  /** Opens a connection authenticated with a first-frame connect request. */
  static async connect(wsUrl: string, token = TOKEN): Promise<RawWs> {
    const ws = await RawWs.open(wsUrl);
    const res = await ws.request("connect", { token });
    if (!res.ok) throw new Error(`connect failed: ${res.error.code}`);
    return ws;
  }

  /** Resolves once `pick` finds something in the collected frames. */
  waitFor<T>(pick: () => T | undefined, timeoutMs = 5_000, what = "a frame"): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = pick();
        if (found === undefined) return false;
        this.#watchers.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.#watchers.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      if (!check()) this.#watchers.add(check);
    });
  }

  /** Sends raw data and resolves with the next response carrying `id` that arrives after the send. */
  sendRaw(data: string | Buffer, { binary = false, id = null as unknown } = {}): Promise<ResFrame> {
    const from = this.responses.length;
    this.socket.send(data, { binary });
    return this.waitFor(() => this.responses.slice(from).find((r) => r.id === id), 5_000, `a response with id ${String(id)}`);
  }

  request(method: string, params?: unknown, id: string | number = this.#nextId++): Promise<ResFrame> {
    return this.sendRaw(JSON.stringify({ type: "req", id, method, ...(params === undefined ? {} : { params }) }), { id });
  }

  /** Like request, but throws on an error response and returns the payload. */
  async ok(method: string, params?: unknown): Promise<any> {
    const res = await this.request(method, params);
    if (!res.ok) throw new Error(`${method} failed: ${res.error.code}: ${res.error.message}`);
    return res.payload;
  }

  close(): void {
    this.socket.terminate();
  }
}

/** POST /rpc/<method> with fetch. `token: null` sends no Authorization header; `body` overrides the JSON body. */
export async function rpc(baseUrl: string, method: string, params?: unknown, { token = TOKEN as string | null, body }: { token?: string | null; body?: string } = {}) {
  const res = await fetch(`${baseUrl}/rpc/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: body ?? (params === undefined ? "" : JSON.stringify(params)),
  });
  return { status: res.status, body: (await res.json()) as ResFrame };
}

export async function rpcOk(baseUrl: string, method: string, params?: unknown): Promise<any> {
  const { body } = await rpc(baseUrl, method, params);
  if (!body.ok) throw new Error(`${method} failed: ${body.error.code}: ${body.error.message}`);
  return body.payload;
}

/** One way to call a method: a WebSocket connection or the HTTP mirror. Both give the response frame. */
export interface Transport {
  name: "ws" | "http";
  call(method: string, params?: unknown): Promise<ResFrame>;
  close(): void;
}

export async function openTransport(name: "ws" | "http", gateway: { url: string; wsUrl: string }): Promise<Transport> {
  if (name === "http") return { name, call: async (m, p) => (await rpc(gateway.url, m, p)).body, close: () => {} };
  const ws = await RawWs.connect(gateway.wsUrl);
  return { name, call: (m, p) => ws.request(m, p), close: () => ws.close() };
}

/** Starts `ask-user-bridge gateway` as a child process with the test token, waiting for its "listening on" line. */
export function spawnGateway(env: Record<string, string>): Promise<ChildGateway> {
  return spawnGatewayProcess({ GATEWAY_TOKEN: TOKEN, ...env });
}

/** Kills every child still running and removes the temp dirs; call from afterAll. */
export async function cleanup(): Promise<void> {
  await killChildren();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
