/**
 * The JSON log lines' destination (src/runtime/log-destination.ts): one write per turn of the event loop, a refused
 * write queued and tried again without stalling the process, a bounded queue that reports what it dropped, and the
 * queue written at exit. The fake write(2) below takes what it is given, like a descriptor that can refuse.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createLineDestination, type WriteSync } from "../../src/runtime/log-destination.ts";
import { createLogger } from "../../src/runtime/log.ts";
import { ROOT } from "../helpers/gateway.ts";

const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A descriptor's write(2): `refuse` decides per call whether it throws EAGAIN or takes at most `take` bytes. */
function fakeFd(refuse: () => boolean = () => false, take = Infinity) {
  const writes: string[] = [];
  const writeSync: WriteSync = (_fd, buffer, offset) => {
    if (refuse()) throw Object.assign(new Error("EAGAIN: resource temporarily unavailable, write"), { code: "EAGAIN" });
    const part = buffer.subarray(offset, offset + Math.min(take, buffer.length - offset));
    writes.push(part.toString("utf8"));
    return part.length;
  };
  return { writes, writeSync, text: () => writes.join("") };
}

describe("the JSON lines' destination", () => {
  it("writes the lines of one turn in one write, in order, and the next turn's in the next", async () => {
    const fd = fakeFd();
    const destination = createLineDestination({ fd: 1, name: "test", writeSync: fd.writeSync });
    for (const n of [1, 2, 3]) destination.write(`line ${n}\n`);
    expect(fd.writes).toEqual([]);
    await turn();
    destination.write("line 4\n");
    await turn();
    expect(fd.writes).toEqual(["line 1\nline 2\nline 3\n", "line 4\n"]);
  });

  it("queues a refused write and tries it again later, without blocking the caller; lines logged meanwhile follow in order", async () => {
    let refusing = true;
    const fd = fakeFd(() => refusing, 5);
    const destination = createLineDestination({ fd: 1, name: "test", writeSync: fd.writeSync, retryMs: 20 });
    const started = performance.now();
    destination.write("first line\n");
    await turn();
    for (let n = 0; n < 100; n++) destination.write(`more ${n}\n`);
    expect(performance.now() - started).toBeLessThan(15); // sonic-boom's synchronous mode would have slept 100 ms here
    expect(fd.text()).toBe("");
    refusing = false;
    await sleep(60);
    expect(fd.text()).toBe(`first line\n${Array.from({ length: 100 }, (_, n) => `more ${n}\n`).join("")}`);
  });

  it("takes a partial write's rest first when the descriptor took only part of it", async () => {
    let calls = 0;
    const fd = fakeFd(() => ++calls === 2, 4); // takes 4 bytes, then refuses once, then takes 4 at a time
    const destination = createLineDestination({ fd: 1, name: "test", writeSync: fd.writeSync, retryMs: 10 });
    destination.write("abcdefghij\n");
    await turn();
    destination.write("k\n");
    await sleep(40);
    expect(fd.text()).toBe("abcdefghij\nk\n");
  });

  it("drops lines past its limit while the descriptor refuses, and says how many once writes go through", async () => {
    let refusing = true;
    const fd = fakeFd(() => refusing);
    const destination = createLineDestination({ fd: 1, name: "gateway", writeSync: fd.writeSync, retryMs: 10, maxQueuedBytes: 100 });
    for (let n = 0; n < 50; n++) destination.write(`line ${String(n).padStart(2, "0")}\n`); // 8 characters each: 12 fit
    await turn();
    refusing = false;
    await sleep(40);
    destination.write("after\n");
    await turn();
    const lines = fd.text().trimEnd().split("\n");
    expect(lines.slice(0, 12)).toEqual(Array.from({ length: 12 }, (_, n) => `line ${String(n).padStart(2, "0")}`));
    expect(JSON.parse(lines[12]!)).toMatchObject({ level: "warn", name: "gateway", msg: expect.stringContaining("dropped 38 log line(s)") });
    expect(lines.slice(13)).toEqual(["after"]);
  });

  it("counts the lines of a write the descriptor cannot take at all (EPIPE) as dropped, and goes on", async () => {
    let broken = true;
    const writeSync: WriteSync = (fd, buffer, offset) => {
      if (broken) throw Object.assign(new Error("EPIPE: broken pipe, write"), { code: "EPIPE" });
      return fakeOk.writeSync(fd, buffer, offset);
    };
    const fakeOk = fakeFd();
    const destination = createLineDestination({ fd: 1, name: "bot:telegram", writeSync });
    destination.write("a\n");
    destination.write("b\n");
    await turn();
    broken = false;
    destination.write("c\n");
    await turn();
    const [first, ...rest] = fakeOk.text().trimEnd().split("\n");
    expect(first).toBe("c");
    expect(rest.map((l) => JSON.parse(l).msg)).toEqual([expect.stringContaining("dropped 2 log line(s)")]);
  });
});

describe("a process's JSON lines (child processes)", () => {
  /** Runs a script that logs through createLogger with stdout a pipe; `read` false leaves the pipe unread for a while. */
  function child(script: string, { read = true }: { read?: boolean } = {}) {
    const proc = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    if (read) proc.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on("close", resolve));
    return { proc, exited, out: () => out, err: () => err, readNow: () => proc.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString())) };
  }
  const logger = `import { createLogger } from "./src/runtime/log.ts"; const log = createLogger("probe", { pretty: false });`;

  it("writes the lines logged just before process.exit", async () => {
    const run = child(`${logger} log.info("one"); log.warn("two"); process.exit(3);`);
    expect(await run.exited).toBe(3);
    expect(run.out().trimEnd().split("\n").map((l) => JSON.parse(l).msg)).toEqual(["one", "two"]);
  });

  it("keeps its event loop running while nobody reads its stdout, and writes everything once someone does", async () => {
    // 4 MiB of lines into a 64 KiB pipe that is not read for 1.5 s: a 10 ms timer keeps ticking meanwhile (with
    // pino's synchronous destination the burst would hold the loop until the reader came back: ~5 ticks).
    const run = child(
      `${logger} process.stdout; let ticks = 0; const t = setInterval(() => ticks++, 10);
       setTimeout(() => { const line = "x".repeat(1000); for (let i = 0; i < 4000; i++) log.info({ i }, line); }, 50);
       setTimeout(() => { clearInterval(t); process.stderr.write("ticks " + ticks + "\\n"); log.info("done"); }, 1000);`,
      { read: false },
    );
    await sleep(1500);
    run.readNow();
    expect(await run.exited).toBe(0);
    expect(Number(/ticks (\d+)/.exec(run.err())?.[1])).toBeGreaterThan(50);
    const lines = run.out().trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.msg === "x".repeat(1000)).map((l) => l.i)).toEqual(Array.from({ length: 4000 }, (_, i) => i));
    expect(lines.at(-1).msg).toBe("done");
  }, 30_000);
});

it("createLogger writes JSON lines through it (not a terminal)", async () => {
  const lines: string[] = [];
  const log = createLogger("gateway", { pretty: false, destination: { write: (l: string) => void lines.push(l) } });
  log.info("hello");
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", name: "gateway", msg: "hello" });
});
