/** The bots' listener (bots/kit/listener.ts) and the capped body reader it builds on (src/kernel/capped-body.ts). */
import { afterEach, describe, expect, it } from "vitest";
import { readBodyOr413, startListener, type Listener } from "../../../bots/kit/listener.ts";

describe("the bots' listener", () => {
  const open: Listener[] = [];
  afterEach(async () => void (await Promise.all(open.splice(0).map((l) => l.close()))));

  /** A listener that echoes bodies up to 16 bytes. */
  async function echo(port = 0): Promise<Listener> {
    const listener = await startListener({
      host: "127.0.0.1",
      port,
      portVariable: "EXAMPLE_PORT",
      handle: (req, res) =>
        void readBodyOr413(req, res, 16).then((body) => {
          if (body) res.writeHead(200).end(body);
        }),
    });
    open.push(listener);
    return listener;
  }

  it("reads a body up to the cap; past it answers 413 and goes on serving", async () => {
    const { port } = await echo();
    const small = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "sixteen bytes ok" });
    expect([small.status, await small.text()]).toEqual([200, "sixteen bytes ok"]);
    expect((await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "x".repeat(100_000) })).status).toBe(413);
    expect((await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "again" })).status).toBe(200);
  });

  it("a taken port is reported by the variable that sets it", async () => {
    const { port } = await echo();
    const taken = await echo(port).catch((error: unknown) => error);
    expect(taken).toMatchObject({ code: "EADDRINUSE", portVariable: "EXAMPLE_PORT", message: `EXAMPLE_PORT ${port} is in use` });
  });

  it("closes cleanly, with a connection still open, and frees the port", async () => {
    const listener = await echo();
    const keptAlive = await fetch(`http://127.0.0.1:${listener.port}/`, { method: "POST", body: "hi", keepalive: true });
    expect(keptAlive.status).toBe(200);
    await open.pop()!.close();
    open.push(await echo(listener.port));
  });
});
