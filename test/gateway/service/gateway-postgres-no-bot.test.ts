/**
 * Issue 30 §3 on two gateway instances sharing one PostgreSQL database: "no bot is connected" means to none of the
 * instances. A bot connected to B counts for a question asked on A (the shared bot_presence table); when it goes,
 * questions asked on A wait again; a waiting state written on A reads the same on B.
 */
import { describe, expect, it } from "vitest";
import { useGatewaysOnPostgres } from "../../helpers/postgres-gateways.ts";
import { oneQuestion, RawWs, TOKEN } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

const shared = useGatewaysOnPostgres(2, { DELIVERY_TIMEOUT_SECONDS: 30 });
const telegram = (chat: string) => [{ surface: "telegram" as const, chat }];

describe("no bot connected, on two instances", () => {
  it("a question asked on A waits when no instance has a bot, and B reads the same state", async () => {
    const [a, b] = [await shared.client(0), await shared.client(1)];
    const { id } = await a.request(oneQuestion({ timeoutSeconds: 60, targets: telegram("1") }));
    const expected = [expect.objectContaining({ surface: "telegram", chat: "1", state: "waiting", reason: "no Telegram bot is connected" })];
    expect((await a.get(id)).targetStates).toEqual(expected);
    expect((await b.get(id)).targetStates).toEqual(expected);
    await a.resolve({ id, cancel: true });
  });

  it("a bot connected to B counts for a question asked on A; once it goes, A's questions wait again", async () => {
    const a = await shared.client(0);
    const bot = await RawWs.connect(shared.instances()[1]!.wsUrl);
    await bot.ok("connect", { token: TOKEN, surface: "telegram" });
    // B publishes at once; A reads the shared table (with a short cache), so allow it a moment.
    const askedWhileUp = await waitUntil(async () => {
      const { id } = await a.request(oneQuestion({ timeoutSeconds: 60, targets: telegram("2") }));
      const states = (await a.get(id)).targetStates;
      await a.resolve({ id, cancel: true });
      return states === undefined && id;
    }, "a question on A with no waiting state");
    expect(askedWhileUp).toBeTruthy();
    bot.close();
    await waitUntil(async () => {
      const { id } = await a.request(oneQuestion({ timeoutSeconds: 60, targets: telegram("3") }));
      const states = (await a.get(id)).targetStates;
      await a.resolve({ id, cancel: true });
      return states?.[0]?.state === "waiting";
    }, "waiting on A once B's bot is gone");
  });
});
