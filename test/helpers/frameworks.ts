/** What the three framework tests (test/frameworks-*.test.ts) share: the person who answers, and the expected result. */
import type { GatewayClient } from "../../src/index.ts";
import { rpcOk, sleep } from "./gateway.ts";

/** The result every framework test expects when the person picks Production. */
export const answered = { status: "answered", answers: { answers: { deploy_target: ["Production"] } }, answeredBy: { surface: "web", via: "web" } };

/** The person: answers every question asked in `sessionKey` through the gateway protocol. Returns the unsubscribe. */
export function answerIn(person: GatewayClient, sessionKey: string, answers: Record<string, string[]>): () => void {
  return person.on("question.requested", (record) => {
    if (record.sessionKey === sessionKey) void person.resolve({ id: record.id, answers, by: { surface: "web", via: "web" } });
  });
}

/** The record once it is no longer pending (a few seconds at most). */
export async function settled(gatewayUrl: string, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 50; i++) {
    const record = await rpcOk(gatewayUrl, "question.get", { id });
    if (record.status !== "pending") return record;
    await sleep(50);
  }
  throw new Error(`question ${id} is still pending`);
}
