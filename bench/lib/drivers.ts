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

/** A gateway connection that makes calls and hands every event to `onEvent` (after `events.subscribe {events}`). */
export async function gatewayClient(
  baseUrl: string,
  events: string[],
  onEvent: (event: string, payload: any) => void = () => {},
): Promise<{ call(method: string, params: unknown): Promise<any>; send(method: string, params: unknown): void; close(): void }> {
  const socket = await open(`${baseUrl.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${BENCH_TOKEN}` });
  const waiting = new Map<number, Waiter>();
  let next = 1;
  socket.on("message", (raw: Buffer) => {
    const frame = JSON.parse(raw.toString());
    if (frame.type === "event") return onEvent(frame.event, frame.payload);
    if (frame.type !== "res") return;
    const wake = waiting.get(frame.id);
    waiting.delete(frame.id);
    if (wake) wake(frame);
    else if (!frame.ok) throw new Error(`gateway error: ${JSON.stringify(frame.error)}`);
  });
  const call = (method: string, params: unknown): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, (frame) =>
        frame.ok ? resolve(frame.payload) : reject(Object.assign(new Error(`${method}: ${JSON.stringify(frame.error)}`), { code: frame.error?.code })),
      );
      socket.send(JSON.stringify({ type: "req", id, method, params }));
    });
  await call("events.subscribe", { events });
  return {
    call,
    /** A request whose response nobody waits for (an error response still throws). */
    send: (method, params) => socket.send(JSON.stringify({ type: "req", id: next++, method, params })),
    close: () => socket.terminate(),
  };
}

/**
 * Agents and bots spread over gateways that share one store (benchmark 8). Lane k is an agent on `agentUrl` that asks
 * (lean protocol: question.request {waitMs}) a question whose id is `lane_k`, and a bot on `botUrl`, subscribed to
 * question.requested and question.resolved like a bot, that answers lane k's questions and ignores the rest: every
 * bot receives every question, from its own gateway or, through the change feed, from the others. `ask()` takes
 * the lanes in turn, so the questions in flight are spread evenly over them.
 *
 * A call refused with STORE_UNAVAILABLE (the gateway's pool stayed busy past its wait) is sent again after 10 ms, as
 * a client would; `failures()` counts them. A resolve whose first attempt did commit is then QUESTION_ALREADY_TERMINAL,
 * which counts as done.
 */
export async function laneDriver(lanes: Array<{ agentUrl: string; botUrl: string }>): Promise<Driver & { failures(): Record<string, number> }> {
  const clients: Array<{ close(): void }> = [];
  const agents: Array<{ agent: { call(method: string, params: unknown): Promise<any> }; question: typeof QUESTION }> = [];
  const failures: Record<string, number> = {};
  let closed = false;
  async function retrying(what: string, attempt: () => Promise<any>, done: (code: string) => boolean = () => false): Promise<any> {
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        const code = (error as { code?: string }).code ?? "";
        if (done(code)) return undefined;
        if (code !== "STORE_UNAVAILABLE" || closed) throw error;
        failures[`${what} ${code}`] = (failures[`${what} ${code}`] ?? 0) + 1;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  }
  for (const [k, lane] of lanes.entries()) {
    const key = `lane_${k}`;
    const question = { ...QUESTION, id: key };
    const answers = { [key]: ANSWERS.deploy_target };
    const bot = await gatewayClient(lane.botUrl, ["question.requested", "question.resolved"], (event, payload) => {
      if (event !== "question.requested" || payload.questions[0]?.id !== key) return;
      retrying("question.resolve", () => bot.call("question.resolve", { id: payload.id, answers }), (code) => code === "QUESTION_ALREADY_TERMINAL").catch((error) => {
        if (!closed) throw error;
      });
    });
    const agent = await gatewayClient(lane.agentUrl, []);
    clients.push(bot, agent);
    agents.push({ agent, question });
  }
  let turn = 0;
  return {
    async ask() {
      const { agent, question } = agents[turn++ % agents.length]!;
      const result = await retrying("question.request", () => agent.call("question.request", { questions: [question], waitMs: 60_000 }));
      if (result.status !== "answered") throw new Error(`unexpected result ${JSON.stringify(result)}`);
    },
    failures: () => ({ ...failures }),
    close() {
      closed = true;
      for (const client of clients) client.close();
    },
  };
}
