/**
 * `ask` on a terminal shows its progress on stderr (where it went, deliveries, targets still tried, time left,
 * reconnecting, the Control UI link); off a terminal it prints only the "Asked" line. `start`'s banner prints a
 * generated token's sign-in link only to a terminal, after the `#`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QuestionRecord } from "../../src/record/record.ts";
import { main, type CliIO } from "../../src/cli/main.ts";
import { controlUiUrl, createAskProgress, formatDuration } from "../../src/cli/ask-progress.ts";
import { banner } from "../../src/cli/serve.ts";
import { loadConfig } from "../../src/runtime/config.ts";
import { cleanup, rpcOk, sleep, spawnCli, startTestGateway, tempDir, TOKEN, waitForOutput, type TestGateway } from "../helpers/gateway.ts";

let gateway: TestGateway;
let env: Record<string, string>;
beforeAll(async () => {
  gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 60 });
  env = { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-progress-") };
});
afterAll(async () => {
  await gateway.close();
  await cleanup();
});

const DEPLOY = ["--question", "Where should I deploy?", "--option", "Staging (Recommended)", "--option", "Production"];

async function until(check: () => boolean, what: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out; so far: ${what()}`);
    await sleep(20);
  }
}

describe("ask progress", { timeout: 90_000 }, () => {
  it("on a terminal: the targets and Control UI link, each delivery, and only the result on stdout", async () => {
    let stdout = "";
    let stderr = "";
    const io: CliIO = { out: (s) => void (stdout += `${s}\n`), err: (s) => void (stderr += `${s}\n`), tty: { out: true, err: true } };
    const done = main(["ask", ...DEPLOY, "--to", "web", "--to", "telegram:123"], env, io);
    await until(() => /Asked (q[0-9a-f]+)/.test(stderr), () => stderr);
    const id = stderr.match(/Asked (q[0-9a-f]+)/)![1]!;
    await until(() => stderr.includes("Sent to"), () => stderr);
    expect(stderr).toContain(`Sent to web, telegram:123. Answer it in the Control UI at ${gateway.url}/`);
    expect(stderr).not.toContain(TOKEN);
    await rpcOk(gateway.url, "question.delivered", { id, surface: "telegram", chat: "123", messageRef: "m1" });
    await until(() => stderr.includes("delivered to telegram:123"), () => stderr);
    await rpcOk(gateway.url, "question.resolve", { id, answers: { answer: ["Production"] } });
    expect(await done).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: "answered" });
  });

  it("on a terminal: an expired question says until when a late answer is taken, and where to find it", async () => {
    let stdout = "";
    let stderr = "";
    const io: CliIO = { out: (s) => void (stdout += `${s}\n`), err: (s) => void (stderr += `${s}\n`), tty: { out: true, err: true } };
    expect(await main(["ask", ...DEPLOY, "--to", "web", "--timeout", "1", "--late-answer-seconds", "600"], env, io)).toBe(3);
    expect(JSON.parse(stdout)).toEqual({ status: "no_answer", reason: "expired" });
    expect(stderr).toMatch(/No answer in time\. A late answer is still taken until \S+Z: see "ask-user-bridge list --late"\./);
    stderr = "";
    stdout = "";
    expect(await main(["ask", ...DEPLOY, "--to", "web", "--timeout", "1", "--late-answer-seconds", "0"], env, io)).toBe(3);
    expect(stderr).not.toContain("late answer");
  });

  it("off a terminal (a child process): only the Asked line on stderr", async () => {
    const run = spawnCli(["ask", ...DEPLOY, "--to", "web"], env);
    const [, id] = await waitForOutput(run, /Asked (q[0-9a-f]+)/);
    await sleep(300);
    await rpcOk(gateway.url, "question.resolve", { id, answers: { answer: ["Production"] } });
    const { code, stderr, stdout } = await run.exited;
    expect(code).toBe(0);
    expect(stderr.trim().split("\n")).toEqual([expect.stringMatching(/^Asked q[0-9a-f]+; waiting for an answer until /)]);
    expect(JSON.parse(stdout)).toMatchObject({ status: "answered" });
  });

  it("counts down, names targets still being tried, and says when it reconnects", async () => {
    const listeners = new Map<string, (arg: any) => void>();
    const record = { id: "q1", targets: [{ surface: "slack", chat: "C1" }, { surface: "telegram", chat: "9" }], deliveries: [] } as unknown as QuestionRecord;
    const client = {
      on: (event: string, listener: (arg: any) => void) => (listeners.set(event, listener), () => listeners.delete(event)),
      get: async () => record,
    };
    const lines: string[] = [];
    let now = 0;
    const progress = createAskProgress({ client: client as never, gatewayUrl: "ws://gw.example:8787/ws", err: (l) => lines.push(l), intervalMs: 20, now: () => now });
    progress.onRequested({ id: "q1", expiresAtMs: 270_000 });
    await until(() => lines.some((l) => l.startsWith("waiting")), () => lines.join("\n"));
    expect(lines).toContain("Sent to slack:C1, telegram:9.");
    expect(lines).toContain("waiting, 4m 30s left (still trying slack:C1, telegram:9)");
    listeners.get("question.updated")!({ ...record, deliveries: [{ surface: "telegram", chat: "9", messageRef: "1", deliveredAtMs: 1 }] });
    listeners.get("question.updated")!({ ...record, id: "q_other", deliveries: [{ surface: "slack", chat: "C1", messageRef: "1", deliveredAtMs: 1 }] });
    expect(lines).toContain("delivered to telegram:9");
    expect(lines).not.toContain("delivered to slack:C1");
    now = 230_000;
    lines.length = 0;
    await until(() => lines.some((l) => l.startsWith("waiting")), () => lines.join("\n"));
    expect(lines).toContain("waiting, 40s left (still trying slack:C1)");
    listeners.get("disconnected")!("closed");
    listeners.get("connected")!(undefined);
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^reconnecting…/), "reconnected"]));
    progress.stop();
    expect(listeners.size).toBe(0);
  });

  it("says when a reminder went out and when the question was escalated", async () => {
    const listeners = new Map<string, (arg: any) => void>();
    const record = { id: "q1", expiresAtMs: 900_000, targets: [{ surface: "telegram", chat: "9" }], deliveries: [] } as unknown as QuestionRecord;
    const client = {
      on: (event: string, listener: (arg: any) => void) => (listeners.set(event, listener), () => listeners.delete(event)),
      get: async () => record,
    };
    const lines: string[] = [];
    const progress = createAskProgress({ client: client as never, gatewayUrl: "ws://gw.example:8787/ws", err: (l) => lines.push(l), intervalMs: 60_000, now: () => 0 });
    progress.onRequested({ id: "q1", expiresAtMs: 900_000 });
    listeners.get("question.escalated")!({ ...record, targets: [...record.targets, { surface: "slack", chat: "C1" }], escalated: [{ step: 0, afterSeconds: 600, targets: [{ surface: "slack", chat: "C1" }], atMs: 600_000 }] });
    listeners.get("question.reminded")!({ ...record, remindersSent: [{ offsetSeconds: 120, atMs: 780_000 }] });
    listeners.get("question.reminded")!({ ...record, id: "q_other", remindersSent: [{ offsetSeconds: 60, atMs: 840_000 }] });
    expect(lines).toContain("no answer after 10m 0s: also sent to slack:C1");
    expect(lines).toContain("reminder sent, 2m 0s left");
    expect(lines.filter((l) => l.startsWith("reminder"))).toHaveLength(1);
    progress.stop();
  });

  it.each([
    [270_000, "4m 30s"],
    [40_000, "40s"],
    [3_720_000, "1h 2m"],
    [-5, "0s"],
  ])("formatDuration(%i) is %s", (ms, text) => expect(formatDuration(ms)).toBe(text));

  it.each([
    ["ws://127.0.0.1:8787/ws", "http://127.0.0.1:8787/"],
    ["https://aub.example.com", "https://aub.example.com/"],
    ["wss://aub.example.com/ws", "https://aub.example.com/"],
  ])("the Control UI link for %s is %s", (url, link) => expect(controlUiUrl(url)).toBe(link));
});

describe("start's sign-in link", () => {
  const config = loadConfig({ DATA_DIR: "/srv/aub" });
  const gen = { url: "http://127.0.0.1:8787", token: "t".repeat(43), tokenGenerated: true };
  const lines = (tty: boolean, g = gen) => {
    const out: string[] = [];
    banner(g, config, { out: (s) => out.push(s), err: () => {}, tty: { out: tty, err: tty } });
    return out.join("\n");
  };

  it("prints the full link once, with the token after the #, when it generated the token and stdout is a terminal", () => {
    const text = lines(true);
    expect(text.split(`http://127.0.0.1:8787/#token=${gen.token}`)).toHaveLength(2);
    expect(text).not.toContain("?token=");
  });

  it("never prints the token off a terminal, or when the token was given", () => {
    expect(lines(false)).not.toContain(gen.token);
    expect(lines(false)).toContain("/srv/aub/gateway-token");
    expect(lines(true, { ...gen, tokenGenerated: false })).not.toContain(gen.token);
  });
});
