/**
 * The load generator's two sides of a question's life, for the gateway and for the floor. Both use raw `ws`
 * connections (one agent, one surface) and the same request frame, so the only difference is the server.
 *
 * A life: the agent asks; the surface receives the question; the surface resolves it; the agent gets its result.
 */
import { WebSocket } from "ws";
import { BENCH_TOKEN } from "./procs.ts";
import { nowUs } from "./stats.ts";

/** The question every benchmark asks: the README's example, one single-select question. */
export const QUESTION = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [
    { label: "Staging (Recommended)", description: "the usual first step" },
    { label: "Production", description: "ships to every user" },
  ],
};
export const ANSWERS = { deploy_target: ["Production"] };

export interface Driver {
  /** One question's whole life; resolves when the agent holds the result. */
  ask(): Promise<void>;
  close(): void;
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, perMessageDeflate: false });
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });
}

type Waiter = (frame: any) => void;
let nextRoom = 1;

/** The floor: `/agent` and `/surface` on floor-server.ts, with or without the raw SQLite work. */
export async function floorDriver(baseUrl: string, withDb: boolean): Promise<Driver> {
  const ws = baseUrl.replace(/^http/, "ws");
  const q = `?db=${withDb ? 1 : 0}&room=${nextRoom++}`;
  const surface = await open(`${ws}/surface${q}`);
  const agent = await open(`${ws}/agent${q}`);
  const waiting = new Map<number, Waiter>();
  let nextReq = 1;
  surface.on("message", (raw: Buffer) => {
    const { id, frame } = JSON.parse(raw.toString()) as { id: string; frame: { id: number } };
    surface.send(JSON.stringify({ id, req: frame.id, answers: ANSWERS }));
  });
  agent.on("message", (raw: Buffer) => {
    const frame = JSON.parse(raw.toString()) as { req: number };
    const wake = waiting.get(frame.req);
    waiting.delete(frame.req);
    wake?.(frame);
  });
  return {
    ask() {
      const id = nextReq++;
      return new Promise<void>((resolve) => {
        waiting.set(id, () => resolve());
        agent.send(JSON.stringify({ type: "req", id, method: "question.request", params: { questions: [QUESTION] } }));
      });
    },
    close() {
      agent.terminate();
      surface.terminate();
    },
  };
}

export interface GatewayDriverOptions {
  /** The agent sends `events.subscribe {events: []}` (it only waits) and the surface subscribes to what a bot uses. */
  subscribe?: boolean;
  /** The agent asks with `question.request {waitMs}` instead of question.request + question.waitAnswer. */
  wait?: boolean;
}

/**
 * The gateway over its real protocol, as a bot and an agent use it: the agent sends question.request then
 * question.waitAnswer; the surface (a bot) gets question.requested and sends question.resolve.
 */
export async function gatewayDriver(baseUrl: string, options: GatewayDriverOptions = {}): Promise<Driver> {
  const url = `${baseUrl.replace(/^http/, "ws")}/ws`;
  const headers = { authorization: `Bearer ${BENCH_TOKEN}` };
  const surface = await open(url, headers);
  const agent = await open(url, headers);
  const waiting = new Map<number, Waiter>();
  let nextReq = 1;
  let surfaceReq = 1;
  const failed = (frame: any) => new Error(`gateway error: ${JSON.stringify(frame.error)}`);

  surface.on("message", (raw: Buffer) => {
    const frame = JSON.parse(raw.toString());
    if (frame.type === "event" && frame.event === "question.requested") {
      surface.send(JSON.stringify({ type: "req", id: surfaceReq++, method: "question.resolve", params: { id: frame.payload.id, answers: ANSWERS } }));
    } else if (frame.type === "res" && !frame.ok) {
      throw failed(frame);
    }
  });
  agent.on("message", (raw: Buffer) => {
    const frame = JSON.parse(raw.toString());
    if (frame.type !== "res") return;
    const wake = waiting.get(frame.id);
    waiting.delete(frame.id);
    wake?.(frame);
  });
  const call = (method: string, params: unknown): Promise<any> => {
    const id = nextReq++;
    return new Promise((resolve, reject) => {
      waiting.set(id, (frame) => (frame.ok ? resolve(frame.payload) : reject(failed(frame))));
      agent.send(JSON.stringify({ type: "req", id, method, params }));
    });
  };
  if (options.subscribe) {
    await call("events.subscribe", { events: [] });
    surface.send(JSON.stringify({ type: "req", id: surfaceReq++, method: "events.subscribe", params: { events: ["question.requested", "question.resolved"] } }));
  }
  return {
    async ask() {
      let result;
      if (options.wait) {
        result = await call("question.request", { questions: [QUESTION], waitMs: 60_000 });
      } else {
        const { id } = await call("question.request", { questions: [QUESTION] });
        result = await call("question.waitAnswer", { id, timeoutMs: 60_000 });
      }
      if (result.status !== "answered") throw new Error(`unexpected result ${JSON.stringify(result)}`);
    },
    close() {
      agent.terminate();
      surface.terminate();
    },
  };
}

/** Runs `total` lives with `concurrency` in flight; returns each life's latency (µs) and the wall time (µs). */
export async function closedLoop(driver: Driver, total: number, concurrency: number): Promise<{ latenciesUs: number[]; elapsedUs: number }> {
  const latenciesUs: number[] = [];
  let issued = 0;
  const start = nowUs();
  const worker = async () => {
    while (issued < total) {
      issued++;
      const t0 = nowUs();
      await driver.ask();
      latenciesUs.push(nowUs() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { latenciesUs, elapsedUs: nowUs() - start };
}

/** A bare request/response client on the gateway's WebSocket (no events wanted). */
export async function rpcClient(baseUrl: string): Promise<{ call(method: string, params: unknown): Promise<any>; close(): void }> {
  const socket = await open(`${baseUrl.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${BENCH_TOKEN}` });
  const waiting = new Map<number, Waiter>();
  let next = 1;
  socket.on("message", (raw: Buffer) => {
    const frame = JSON.parse(raw.toString());
    if (frame.type !== "res") return;
    const wake = waiting.get(frame.id);
    waiting.delete(frame.id);
    wake?.(frame);
  });
  const call = (method: string, params: unknown): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, (frame) => (frame.ok ? resolve(frame.payload) : reject(new Error(`${method}: ${JSON.stringify(frame.error)}`))));
      socket.send(JSON.stringify({ type: "req", id, method, params }));
    });
  await call("events.subscribe", { events: [] });
  return { call, close: () => socket.terminate() };
}
