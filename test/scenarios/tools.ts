import { rpcOk, sleep } from "../helpers/gateway.ts";
import { capabilitiesOf, type BotHarness, type PromptCopy } from "./harness.ts";

/** Polls until `probe` returns something truthy, or fails naming what it waited for. */
export async function waitUntil<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** What every bot test asks of the gateway and the fake: deliveries, results, statuses and summaries. */
export function scenarioTools(harness: () => BotHarness) {
  const gateway = () => harness().gatewayUrl();
  const deliveryOf = (id: string, chat = harness().chat) =>
    waitUntil(async () => {
      const record = await rpcOk(gateway(), "question.get", { id });
      return record.deliveries.find((d: any) => d.surface === harness().surface && d.chat === chat) as { messageRef: string } | undefined;
    }, `the prompt of ${id} in ${chat}`);
  return {
    deliveryOf,
    promptOf: async (id: string, chat = harness().chat): Promise<PromptCopy> => harness().copy(chat, (await deliveryOf(id, chat)).messageRef),
    /** The ask_user result, without the payload's id and record. */
    async result(id: string) {
      const { id: _id, record: _record, ...rest } = await rpcOk(gateway(), "question.waitAnswer", { id, timeoutMs: 8_000 });
      return rest;
    },
    status: async (id: string) => (await rpcOk(gateway(), "question.get", { id })).status as string,
    /**
     * Waits until a copy reads `pattern` and has no buttons left. Where the platform cannot edit (`edits: false`),
     * that is the reply the bot made to the copy, and the copy itself stays as it was sent, controls and all.
     */
    summaryOf: async (copy: PromptCopy, pattern: RegExp) => {
      const summary = await waitUntil(() => {
        const now = harness().copy(copy.chat, copy.ref);
        return pattern.test(now.text) && now.buttons.length === 0 && now;
      }, `the copy to read ${pattern}`);
      const h = harness();
      if (!capabilitiesOf(h).edits) {
        const sent = (h.sentCopy ?? h.copy)(copy.chat, copy.ref);
        if (sent.text === summary.text) throw new Error(`the copy ${copy.ref} was edited, on a platform that declares it cannot edit`);
      }
      return summary;
    },
  };
}

/**
 * A harness's `ask` and `promptOf` through the gateway's HTTP mirror, for one surface: asks with the test token and
 * resolves to the id; waits until the gateway knows the copy in `chat` and returns it as the harness shows it.
 */
export function gatewayQuestions(surface: string, gatewayUrl: () => string, copy: (chat: string, ref: string) => PromptCopy, defaultChat: string) {
  return {
    async ask(questions: unknown[], target: { chat: string; users?: string[] }, extra: Record<string, unknown> = {}): Promise<string> {
      return (await rpcOk(gatewayUrl(), "question.request", { questions, targets: [{ surface, ...target }], ...extra })).id as string;
    },
    async promptOf(id: string, chat = defaultChat): Promise<PromptCopy> {
      const delivery = await waitUntil(async () => {
        const record = await rpcOk(gatewayUrl(), "question.get", { id });
        return (record.deliveries as Array<{ surface: string; chat: string; messageRef: string }>).find((d) => d.surface === surface && d.chat === chat);
      }, `the prompt of ${id} in ${chat}`);
      return copy(chat, delivery.messageRef);
    },
  };
}
