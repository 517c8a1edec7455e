/**
 * A bot's platform check (bots/platform-watch.ts, issue 36 §2), against a real HTTP server standing in for the
 * Discord API: it tells the gateway (`bot.status`) at once and on every reconnection, logs one warning when the API
 * is lost and one line when it is back, and asks nothing of a platform with no one-call check.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { watchPlatform } from "../../bots/platform-watch.ts";
import { loadConfig } from "../../src/runtime/config.ts";
import { waitUntil } from "../scenarios/tools.ts";

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

function fakeGateway() {
  const calls: Array<{ method: string; params: unknown }> = [];
  const listeners: Array<() => void> = [];
  return {
    calls,
    reconnect: () => listeners.forEach((l) => l()),
    call: async (method: string, params?: unknown) => void calls.push({ method, params }),
    on: (event: string, listener: () => void) => (event === "connected" && listeners.push(listener), () => void listeners.splice(listeners.indexOf(listener), 1)),
  };
}

describe("a bot's platform check", () => {
  it("reports reachable, then unreachable with one warning, then reachable again with one line", async () => {
    let status = 200;
    const server = createServer((req, res) => {
      expect(req.headers.authorization).toBe("Bot discord-token");
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(status === 200 ? { username: "asker" } : { message: "Service Unavailable" }));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const gateway = fakeGateway();
    const lines: Array<[string, unknown]> = [];
    const config = loadConfig({ DISCORD_BOT_TOKEN: "discord-token", DISCORD_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` });
    const watch = watchPlatform({ config, surface: "discord", gateway: gateway as never, log: (m, e) => lines.push([m, e]), everyMs: 100, retryMs: 20 });
    try {
      await waitUntil(() => gateway.calls.length >= 1 || undefined, "the first report");
      expect(gateway.calls[0]).toEqual({ method: "bot.status", params: { platform: { reachable: true, detail: "the Discord API answers (asker)" } } });
      expect(lines).toEqual([]);

      status = 503;
      await waitUntil(() => gateway.calls.find((c) => (c.params as { platform: { reachable: boolean } }).platform.reachable === false), "the loss reported");
      expect(gateway.calls.at(-1)!.params).toEqual({ platform: { reachable: false, detail: "cannot reach the Discord API: HTTP 503" } });
      await new Promise((r) => setTimeout(r, 200)); // several failed checks: still one warning
      expect(lines).toEqual([["cannot reach the Discord API: HTTP 503; checking again every few seconds (the gateway's /readyz says not ready until it answers)", "HTTP 503"]]);

      gateway.reconnect(); // a new connection hears the last status again
      expect(gateway.calls.at(-1)!.params).toMatchObject({ platform: { reachable: false } });

      status = 200;
      await waitUntil(() => lines.find(([m]) => m === "reached the Discord API again"), "the back line");
      expect(gateway.calls.at(-1)!.params).toMatchObject({ platform: { reachable: true } });
      expect(lines).toHaveLength(2);
    } finally {
      watch.stop();
    }
  });

  it("reports once that it cannot tell for a platform with no one-call check, and polls nothing", async () => {
    const gateway = fakeGateway();
    const watch = watchPlatform({ config: loadConfig({}), surface: "whatsapp", gateway: gateway as never, log: () => {}, everyMs: 10 });
    await waitUntil(() => gateway.calls.length >= 1 || undefined, "the report");
    await new Promise((r) => setTimeout(r, 100));
    expect(gateway.calls).toEqual([{ method: "bot.status", params: { platform: { reachable: null, detail: "the bot cannot check the WhatsApp Cloud API with one call" } } }]);
    watch.stop();
  });
});
