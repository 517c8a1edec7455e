/**
 * Several gateway instances on one PostgreSQL database, in this process: what one instance does, every other follows
 * (waiters, events, the expiry schedule, delivery claims), and the migrate command applies the schema explicitly.
 */
import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../src/kernel/errors.ts";
import type { QuestionRecord } from "../../../src/record/record.ts";
import { createTestDatabase } from "../../helpers/postgres.ts";
import { useGatewaysOnPostgres } from "../../helpers/postgres-gateways.ts";
import { oneQuestion, RawWs, spawnCli } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

const shared = useGatewaysOnPostgres(3, { DELIVERY_TIMEOUT_SECONDS: 30 });
const client = shared.client;

describe("three gateway instances on one PostgreSQL database", () => {
  it("a waiter on A gets the answer given on C, and a subscriber on B sees the ask and the answer live", async () => {
    const [a, b, c] = [await client(0), await client(1), await client(2)];
    const seen: string[] = [];
    b.on("question.requested", (record) => seen.push(`requested ${record.id}`));
    b.on("question.resolved", (record) => seen.push(`resolved ${record.id} ${record.by?.surface}`));
    const { id } = await a.request(oneQuestion());
    const waiting = a.waitAnswer({ id, timeoutMs: 10_000 });
    await waitUntil(() => seen.includes(`requested ${id}`), "question.requested on B");
    await c.resolve({ id, answers: { deploy_target: ["Production"] }, by: { surface: "slack", via: "button" } });
    expect(await waiting).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    await waitUntil(() => seen.includes(`resolved ${id} slack`), "question.resolved on B");
  });

  it("lets exactly one of three instances answering at once win, and tells the others", async () => {
    const all = [await client(0), await client(1), await client(2)];
    for (let round = 0; round < 10; round++) {
      const { id } = await all[round % 3]!.request(oneQuestion());
      const outcomes = await Promise.allSettled(all.map((c, i) => c.resolve({ id, answers: { deploy_target: [`answer ${i}`] } })));
      const won = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [i] : []));
      expect(won).toHaveLength(1);
      for (const lost of outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected")) {
        expect(lost.reason).toBeInstanceOf(GatewayError);
        expect((lost.reason as GatewayError).code).toBe("QUESTION_ALREADY_TERMINAL");
      }
      for (const c of all) expect((await c.get(id)).answers).toEqual({ deploy_target: [`answer ${won[0]}`] });
    }
  });

  it("keeps one pending question per session across instances", async () => {
    const [a, b] = [await client(0), await client(1)];
    await a.request(oneQuestion({ sessionKey: "shared-session" }));
    await expect(b.request(oneQuestion({ sessionKey: "shared-session" }))).rejects.toMatchObject({ code: "SESSION_HAS_PENDING_QUESTION" });
  });

  it("expires a question exactly once, announced on every instance", async () => {
    const [a, b, c] = [await client(0), await client(1), await client(2)];
    const resolvedEvents: QuestionRecord[] = [];
    for (const each of [a, b, c]) each.on("question.resolved", (record) => resolvedEvents.push(record));
    const { id } = await b.request(oneQuestion({ timeoutSeconds: 1 }));
    const waiting = c.waitAnswer({ id, timeoutMs: 10_000 });
    expect(await waiting).toMatchObject({ status: "no_answer", reason: "expired" });
    await waitUntil(() => resolvedEvents.filter((r) => r.id === id).length === 3, "question.resolved on each of the three connections");
    expect(new Set(resolvedEvents.filter((r) => r.id === id).map((r) => r.resolvedAtMs)).size).toBe(1);
  });

  it("gives a copy to one claimant whichever instance each bot asks", async () => {
    const a = await client(0);
    const { id } = await a.request(oneQuestion({ targets: [{ surface: "telegram", chat: "5" }] }));
    const bots = [await client(1), await client(2)];
    const outcomes = await Promise.all(bots.map((bot, i) => bot.claimDelivery({ id, surface: "telegram", chat: "5", claimant: `bot-${i}` })));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
  });

  it("serves the protocol's raw frames the same on every instance", async () => {
    const ws = await RawWs.connect(shared.instances()[2]!.wsUrl);
    const res = await ws.request("question.list", { status: "pending", limit: 1 });
    expect(res).toMatchObject({ type: "res", ok: true });
    ws.close();
  });
});

describe("ask-user-bridge migrate", () => {
  it("brings a new PostgreSQL database up to date, then says it is current", async () => {
    const fresh = await createTestDatabase();
    try {
      const first = await spawnCli(["migrate"], { DATABASE_URL: fresh.url }).exited;
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^PostgreSQL schema migrated from version 0 to \d+ \(applied 1(, \d+)*\)\.$/m);
      const again = await spawnCli(["migrate"], { DATABASE_URL: fresh.url }).exited;
      expect(again.stdout).toMatch(/^PostgreSQL schema is current \(version \d+\)\.$/m);
    } finally {
      await fresh.drop();
    }
  });

  it("names the problem when PostgreSQL cannot be reached", async () => {
    const { code, stderr } = await spawnCli(["migrate"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }).exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/PostgreSQL is unreachable/);
  });

  it("migrates the SQLite database under DATA_DIR when there is no DATABASE_URL", async () => {
    const run = await spawnCli(["migrate"], {}).exited;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^SQLite schema migrated from version 0 to \d+ in data\/ask-user-bridge\.sqlite\.$/m);
  });
});
