/**
 * The SDK side of issue 20 against a real gateway: askUser passes reminders, escalate and lateAnswerSeconds through;
 * after a no_answer, `client.onLateAnswer` hears the late answer, and `client.lateAnswers` / `lateAnswers(client, …)`
 * list a session's (or a run's) late answers, newest first.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connectGateway, lateAnswers, type GatewayClient, type LateAnsweredRecord } from "../../src/index.ts";
import { askUser, createGatewayAsk } from "../../src/client/sdk.ts";
import { cleanup, oneQuestion, rpcOk, TOKEN, useTestGateway } from "../helpers/gateway.ts";
import { waitUntil } from "../scenarios/tools.ts";

const gateway = useTestGateway();
const clients: GatewayClient[] = [];
afterAll(async () => {
  for (const client of clients) client.close();
  await cleanup();
});

async function connect(): Promise<GatewayClient> {
  const client = await connectGateway({ url: gateway.url, token: TOKEN });
  clients.push(client);
  return client;
}

const answerLate = (id: string, value: string) => rpcOk(gateway.url, "question.resolve", { id, answers: { deploy_target: value }, by: { surface: "discord", user: "7", via: "button" } });

describe.concurrent("SDK: late answers", () => {
  it("askUser passes the follow-up options; onLateAnswer hears the answer that came after no_answer", async () => {
    const client = await connect();
    const heard: LateAnsweredRecord[] = [];
    const off = client.onLateAnswer((record) => heard.push(record));
    let id = "";
    const result = await askUser(client, oneQuestion({ timeoutSeconds: 2 }), {
      sessionKey: "sdk-late-1",
      reminders: [1],
      escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C0123ABCD" }] }],
      lateAnswerSeconds: 60,
      onRequested: (q) => void (id = q.id),
    });
    expect(result).toEqual({ status: "no_answer", reason: "expired" });
    const record = await client.get(id);
    expect(record).toMatchObject({ reminders: [1], lateAnswerSeconds: 60, remindersSent: [{ offsetSeconds: 1 }], escalated: [{ step: 0 }] });
    await answerLate(id, "Production");
    await waitUntil(() => heard.find((r) => r.id === id), "onLateAnswer");
    expect(heard.find((r) => r.id === id)).toMatchObject({ status: "expired", lateAnswer: { answers: { deploy_target: ["Production"] }, by: { surface: "discord", user: "7" } } });
    off();
  });

  it("createGatewayAsk applies its follow-up defaults to every question", async () => {
    const client = await connect();
    const ask = createGatewayAsk(client, { reminders: [], lateAnswerSeconds: 0, escalate: [{ afterSeconds: 5, targets: [{ surface: "web" }] }] });
    const controller = new AbortController();
    const asking = ask(oneQuestion({ timeoutSeconds: 30 }) as never, { signal: controller.signal, session: { kind: "main", key: "sdk-defaults" } } as never);
    const [record] = await waitUntil(async () => {
      const found = await client.list({ sessionKey: "sdk-defaults" });
      return found.length > 0 ? found : undefined;
    }, "the question");
    expect(record).toMatchObject({ reminders: [], escalate: [{ afterSeconds: 5 }] });
    expect(record).not.toHaveProperty("lateAnswerSeconds");
    controller.abort();
    expect(await asking).toEqual({ status: "no_answer", reason: "aborted" });
  });

  it("lateAnswers lists a session's or a run's late answers, newest first, as a method and as a function", async () => {
    const client = await connect();
    const ask = async (extra: Record<string, unknown>) => (await client.request(oneQuestion({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 60, ...extra }))).id;
    const first = await ask({ sessionKey: "sdk-late-2", runId: "sdk-run" });
    await client.waitAnswer({ id: first, timeoutMs: 3_000 });
    const second = await ask({ sessionKey: "sdk-late-2", runId: "sdk-run" });
    const unanswered = await ask({ sessionKey: "sdk-late-3", runId: "sdk-run" });
    await client.waitAnswer({ id: second, timeoutMs: 3_000 });
    await client.waitAnswer({ id: unanswered, timeoutMs: 3_000 });
    await answerLate(second, "Production");
    await answerLate(first, "Staging (Recommended)");
    expect((await client.lateAnswers({ sessionKey: "sdk-late-2" })).map((r) => r.id)).toEqual([first, second]);
    expect((await lateAnswers(client, { runId: "sdk-run" })).map((r) => r.id)).toEqual([first, second]);
    expect(await client.lateAnswers({ sessionKey: "sdk-late-3" })).toEqual([]);
  });
});
