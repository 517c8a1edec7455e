/**
 * Issue 18 on two gateway instances sharing one PostgreSQL database: a reply key taken on one instance is refused on
 * the other, target states are visible (and announced) on every instance, and a copy claimed through one instance
 * keeps the question queued on the other past the delivery deadline; a copy withdrawn through one (refused after the
 * platform took it) is gone on the other. DELIVERY_TIMEOUT_SECONDS=1.
 */
import { describe, expect, it } from "vitest";
import type { QuestionRecord } from "../../../src/record/record.ts";
import { useGatewaysOnPostgres } from "../../helpers/postgres-gateways.ts";
import { oneQuestion, sleep } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

const shared = useGatewaysOnPostgres(2, { DELIVERY_TIMEOUT_SECONDS: 1 });
const client = shared.client;

const telegram = (chat: string) => [{ surface: "telegram" as const, chat }];

describe("two instances on one PostgreSQL database", () => {
  it("refuses on B a message already taken as a reply on A, on another question", async () => {
    const [a, b] = [await client(0), await client(1)];
    const first = await a.request(oneQuestion({ targets: [{ surface: "web" }] }));
    const second = await b.request(oneQuestion({ targets: [{ surface: "web" }] }));
    const by = { surface: "telegram", chat: "500", via: "text" as const };
    expect(await a.reply({ id: first.id, text: "Production", by, messageRef: "u-1" })).toMatchObject({ kind: "answered" });
    await expect(b.reply({ id: second.id, text: "Production", by, messageRef: "u-1" })).rejects.toMatchObject({ code: "DUPLICATE_REPLY" });
    await expect(b.resolve({ id: second.id, answers: { deploy_target: "Production" }, by, messageRef: "u-1" })).rejects.toMatchObject({ code: "DUPLICATE_REPLY" });
    expect((await b.get(second.id)).status).toBe("pending");
  });

  it("shows a target state reported on A on B, announced there as question.updated", async () => {
    const [a, b] = [await client(0), await client(1)];
    const updates: QuestionRecord[] = [];
    b.on("question.updated", (record) => updates.push(record));
    const { id } = await a.request(oneQuestion({ targets: [...telegram("501"), { surface: "web" }] }));
    await a.deliveryFailed({ id, surface: "telegram", chat: "501", reason: "502 Bad Gateway", permanent: false });
    await waitUntil(() => updates.some((r) => r.id === id && r.targetStates?.[0]?.state === "retrying"), "question.updated with the state on B");
    expect((await b.get(id)).targetStates).toEqual([expect.objectContaining({ surface: "telegram", chat: "501", state: "retrying", reason: "502 Bad Gateway" })]);
  });

  it("keeps a question queued past the deadline while a claim taken through B is renewed, on both instances", async () => {
    const [a, b] = [await client(0), await client(1)];
    const { id } = await a.request(oneQuestion({ targets: telegram("502") }));
    const claim = () => b.claimDelivery({ id, surface: "telegram", chat: "502", claimant: "bot-1", leaseMs: 2_000 });
    expect(await claim()).toMatchObject({ ok: true });
    for (let i = 0; i < 4; i++) {
      await sleep(450);
      expect(await claim()).toMatchObject({ ok: true });
    }
    expect((await a.get(id)).status).toBe("pending");
    await b.delivered({ id, surface: "telegram", chat: "502", messageRef: "m-502" });
    await sleep(1_200);
    expect(await a.get(id)).toMatchObject({ status: "pending", deliveries: [expect.objectContaining({ chat: "502" })] });
  });

  it("a copy withdrawn on B (sent: true) is gone on A, announced there as question.updated with the failed state", async () => {
    const [a, b] = [await client(0), await client(1)];
    const updates: QuestionRecord[] = [];
    a.on("question.updated", (record) => updates.push(record));
    const { id } = await a.request(oneQuestion({ targets: [...telegram("504"), ...telegram("505")] }));
    await a.delivered({ id, surface: "telegram", chat: "504", messageRef: "m-504" });
    await a.delivered({ id, surface: "telegram", chat: "505", messageRef: "m-505" });
    await b.deliveryFailed({ id, surface: "telegram", chat: "504", reason: "refused after it was taken", sent: true, messageRef: "m-504" });
    await waitUntil(() => updates.some((r) => r.id === id && r.targetStates?.[0]?.state === "failed"), "question.updated with the withdrawal on A");
    expect(await a.get(id)).toMatchObject({
      status: "pending",
      deliveries: [expect.objectContaining({ chat: "505" })],
      targetStates: [expect.objectContaining({ chat: "504", state: "failed", reason: "refused after it was taken" })],
    });
    const waiting = a.waitAnswer({ id, timeoutMs: 10_000 });
    await b.deliveryFailed({ id, surface: "telegram", chat: "505", reason: "undeliverable", sent: true });
    expect(await waiting).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining("telegram:505: failed: undeliverable") });
  });

  it("a permanent failure reported on B ends the question on A at once, with the reason", async () => {
    const [a, b] = [await client(0), await client(1)];
    const { id } = await a.request(oneQuestion({ targets: telegram("503") }));
    const waiting = a.waitAnswer({ id, timeoutMs: 10_000 });
    await b.deliveryFailed({ id, surface: "telegram", chat: "503", reason: "Forbidden: bot was blocked by the user" });
    expect(await waiting).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining("telegram:503: failed: Forbidden: bot was blocked by the user") });
  });
});
