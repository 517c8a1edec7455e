/**
 * Issue 20 on a shared PostgreSQL store: two gateway instances both run the schedule, yet each reminder and each
 * escalation step happens once, and clients of either instance hear of it once (the instance that fired it
 * announces it; the other follows the database's notification). A late answer given on one instance is announced
 * on the other too.
 */
import { describe, expect, it } from "vitest";
import type { GatewayClient } from "../../../src/client/index.ts";
import type { QuestionRecord } from "../../../src/record/record.ts";
import { useGatewaysOnPostgres } from "../../helpers/postgres-gateways.ts";
import { oneQuestion, sleep } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

const shared = useGatewaysOnPostgres(2);
const client = shared.client;

function record(client: GatewayClient, event: "question.reminded" | "question.escalated" | "question.lateAnswered" | "question.resolved", id: string) {
  const seen: QuestionRecord[] = [];
  client.on(event, (r) => {
    if (r.id === id) seen.push(r);
  });
  return seen;
}

describe.concurrent("two gateway instances on one PostgreSQL database", () => {
  it("fire a reminder and an escalation step once, and both instances' clients hear each once", async () => {
    const [a, b] = [await client(0), await client(1)];
    const { id } = await a.request(
      oneQuestion({ timeoutSeconds: 3, reminders: [1], escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C0123ABCD" }] }], targets: [{ surface: "web" }] }),
    );
    const heard = [a, b].map((c) => ({ reminded: record(c, "question.reminded", id), escalated: record(c, "question.escalated", id), resolved: record(c, "question.resolved", id) }));
    await waitUntil(() => heard.every((h) => h.resolved.length > 0), "the expiry on both instances", 8_000);
    await sleep(300);
    for (const h of heard) {
      expect(h.escalated).toHaveLength(1);
      expect(h.reminded).toHaveLength(1);
      expect(h.escalated[0]?.targets).toEqual([{ surface: "web" }, { surface: "slack", chat: "C0123ABCD" }]);
    }
    const final = await b.get(id);
    expect(final.remindersSent).toHaveLength(1);
    expect(final.escalated).toHaveLength(1);
  });

  it("announce a late answer given on one instance to the other's clients", async () => {
    const [a, b] = [await client(0), await client(1)];
    const { id } = await a.request(oneQuestion({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 30, sessionKey: "pg-late" }));
    const onA: QuestionRecord[] = [];
    a.onLateAnswer((r) => {
      if (r.id === id) onA.push(r);
    });
    await waitUntil(async () => (await b.get(id)).status === "expired", "the expiry", 5_000);
    await b.resolve({ id, answers: { deploy_target: "Production" }, by: { surface: "telegram", chat: "1", via: "button" } });
    await waitUntil(() => onA.length > 0, "question.lateAnswered on A");
    expect(onA[0]?.lateAnswer?.answers).toEqual({ deploy_target: ["Production"] });
    expect((await a.lateAnswers({ sessionKey: "pg-late" })).map((r) => r.id)).toEqual([id]);
  });
});
