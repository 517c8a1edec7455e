/**
 * Delivery on every platform (issue 18 §2): every target gets the question once, a passing failure is retried and
 * shown as `retrying` meanwhile, a chat that can never receive fails at once, and a restarted bot edits only copies
 * that are behind. Each platform's test file runs this suite against its own fake, with the real framework.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk } from "../helpers/gateway.ts";
import type { DeliveryKit } from "./delivery-kits.ts";
import { elapse, skipAhead, waitUntil } from "./tools.ts";

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };

export function runDeliveryScenarios(name: string, makeKit: () => Promise<DeliveryKit>) {
  describe(`${name}: delivery scenarios`, () => {
    let kit: DeliveryKit;
    beforeAll(async () => {
      kit = await makeKit();
    }, 60_000);
    afterAll(async () => {
      await kit?.close();
    });

    const ask = async (chats: string[], extra: Record<string, unknown> = {}) => {
      const targets = chats.map((chat) => ({ surface: kit.surface, chat }));
      return (await rpcOk(kit.gatewayUrl(), "question.request", { questions: [single], targets, ...extra })).id as string;
    };
    const get = (id: string) => rpcOk(kit.gatewayUrl(), "question.get", { id });
    /** Where resolution sends nothing (kit.summaries false), a copy changes only with a late answer: it expires first. */
    const noSummaries = () => kit.summaries === false;
    const askToSettle = (chat: string) => ask([chat], noSummaries() ? { timeoutSeconds: 1 } : {});
    /** Answers the question: at once, or once it expired (a late answer), where only that changes a copy. */
    const settle = async (id: string, label: string) => {
      if (noSummaries()) {
        await skipAhead(kit.clock, 1_000);
        await waitUntil(async () => (await get(id)).status === "expired", `${id} to expire`);
      }
      await rpcOk(kit.gatewayUrl(), "question.resolve", { id, answers: { deploy_target: [label] } });
    };

    it("a send that fails with 502 is retried until it arrives; meanwhile the record shows that target retrying", async () => {
      const [ok, flaky] = kit.chats;
      const lift = kit.failSendsTo(flaky, 502);
      const id = await ask([ok, flaky]);
      const retrying = await waitUntil(async () => {
        const record = await get(id);
        return record.targetStates?.find((s: any) => s.chat === flaky && s.state === "retrying") as { reason: string; retryAtMs?: number } | undefined;
      }, "the flaky target recorded as retrying");
      expect(retrying.reason).toMatch(/502|Bad Gateway|bad_gateway/i);
      expect(retrying.retryAtMs).toBeGreaterThan(Date.now() - 5_000);
      const meanwhile = await get(id);
      expect(meanwhile.deliveries.map((d: any) => d.chat)).toEqual([ok]);
      lift();
      await skipAhead(kit.clock, 2_000); // the next try (1 s after the first failure)
      const record = await waitUntil(async () => {
        const r = await get(id);
        return r.deliveries.length === 2 ? r : undefined;
      }, "both targets delivered once the platform recovers", 15_000);
      expect(record.status).toBe("pending");
      expect(record.targetStates ?? []).toEqual([]);
      expect([kit.acceptedSends(ok), kit.acceptedSends(flaky)]).toEqual([1, 1]);
      await rpcOk(kit.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
    });

    it("a chat that can never receive the question fails delivery at once, not after the 30 s timeout", async () => {
      const started = Date.now();
      const id = await ask([kit.refusingChat]);
      const result = await rpcOk(kit.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 10_000 });
      expect(result.status).toBe("delivery_failed");
      expect(Date.now() - started).toBeLessThan(2_500);
      const record = await get(id);
      expect(record.targetStates).toEqual([expect.objectContaining({ chat: kit.refusingChat, state: "failed" })]);
    });

    it("an edit that fails with 502 is tried again until the copy shows the summary", async () => {
      const [, chat] = kit.chats;
      const id = await askToSettle(chat);
      const sent = await waitUntil(async () => (await get(id)).deliveries[0]?.rendered as string | undefined, "the copy delivered");
      const lift = kit.failEditsIn(chat, 502);
      const before = kit.editCalls();
      await settle(id, "Production");
      await waitUntil(() => kit.editCalls() > before, "the first edit, refused");
      await elapse(kit.clock, 1_200);
      lift();
      await skipAhead(kit.clock, 2_000); // the next try (2 s after the second failure)
      const shown = await waitUntil(async () => {
        const d = (await get(id)).deliveries[0];
        return d.rendered !== sent && d.rendered;
      }, "the copy recorded as showing its summary", 15_000);
      expect(shown).toMatch(/^[0-9a-f]{16}$/);
    });

    it("a restart edits no copy that already shows its summary, and edits the one resolved while the bot was down", async () => {
      const [chat] = kit.chats;
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push(await askToSettle(chat));
      const sent = await Promise.all(
        ids.map((id) =>
          waitUntil(async () => {
            const d = (await get(id)).deliveries[0];
            return d?.rendered ? (d.rendered as string) : undefined;
          }, `the copy of ${id} delivered, with what it shows`),
        ),
      );
      for (const id of ids) await settle(id, "Production");
      // Every copy edited into its summary, and the record says so.
      await Promise.all(
        ids.map((id, i) =>
          waitUntil(async () => {
            const d = (await get(id)).deliveries[0];
            return d.rendered && d.rendered !== sent[i];
          }, `the copy of ${id} recorded as showing its summary`),
        ),
      );
      expect(kit.editCalls()).toBeGreaterThanOrEqual(4);

      // One more question, resolved while the bot is down: its copy is behind, the other four are not.
      const behind = await askToSettle(chat);
      await waitUntil(async () => (await get(behind)).deliveries[0]?.rendered, "the last copy delivered");
      await kit.stopBot();
      const before = kit.editCalls();
      await settle(behind, "Staging");
      await kit.startBot();
      await waitUntil(() => kit.editCalls() > before, "the copy resolved while the bot was down edited");
      await elapse(kit.clock, 1_500); // any catch-up edit of the other copies would have been made by now
      expect(kit.editCalls() - before).toBe(1);
    });
  });
}
