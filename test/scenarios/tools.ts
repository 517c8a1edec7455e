import { rpcOk, sleep } from "../helpers/gateway.ts";
import { acceptsLateAnswer } from "../../src/record/late-window.ts";
import { LATE_OPEN_SUMMARY, renderSummary } from "../../src/render/summary.ts";
import { capabilitiesOf, type BotHarness, type PromptCopy, type ScenarioClock } from "./harness.ts";

/** `ms` pass: a virtual clock is moved on (at once), a real one slept through. */
export function elapse(clock: ScenarioClock | undefined, ms: number): Promise<void> {
  return clock ? clock.advance(ms) : sleep(ms);
}

/**
 * A deadline `ms` ahead comes due: a virtual clock is moved there at once; on a real one nothing happens here, and
 * the wait that follows waits for it.
 */
export async function skipAhead(clock: ScenarioClock | undefined, ms: number): Promise<void> {
  await clock?.advance(ms);
}

/** A message that should not come would have been sent by now (after something that could have sent it). */
export const quietPeriod = (ms = 300) => sleep(ms);

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
  /** Each copy's question, by the copy's chat and ref (where the platform sends no summary, its record says it). */
  const questionOfCopy = new Map<string, string>();
  const copyKey = (copy: PromptCopy) => `${copy.chat}\u0000${copy.ref}`;
  const questionOf = (copy: PromptCopy): string => {
    const id = questionOfCopy.get(copyKey(copy));
    if (!id) throw new Error(`no question known for the copy ${copy.ref} in ${copy.chat}: get it with promptOf first`);
    return id;
  };
  /** The copy as it was sent is what the person still sees: nothing was sent to change it. */
  const unchanged = async (copy: PromptCopy) => {
    const h = harness();
    await quietPeriod(200);
    const now = h.copy(copy.chat, copy.ref);
    const sent = (h.sentCopy ?? h.copy)(copy.chat, copy.ref);
    if (now.text !== sent.text) throw new Error(`the copy ${copy.ref} was followed by a message, on a platform that sends none when a question resolves`);
    return now;
  };
  return {
    deliveryOf,
    questionOf,
    promptOf: async (id: string, chat = harness().chat): Promise<PromptCopy> => {
      const copy = harness().copy(chat, (await deliveryOf(id, chat)).messageRef);
      questionOfCopy.set(copyKey(copy), id);
      return copy;
    },
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
      if (!capabilitiesOf(harness()).summaries) {
        // No message when a question resolves, except the one that says a late answer was taken (checked below as a
        // reply to the copy, as on any platform without edits). Otherwise the record's summary (what its answer links
        // show) must read `pattern`, and nothing followed the copy.
        const id = questionOf(copy);
        const record = await waitUntil(async () => {
          const r = await rpcOk(gateway(), "question.get", { id });
          return r.status !== "pending" && (r.lateAnswer !== undefined || pattern.test(renderSummary(r))) && r;
        }, `the record of ${id} to read ${pattern}`);
        if (record.lateAnswer === undefined) return { ...(await unchanged(copy)), text: renderSummary(record), buttons: [] };
      }
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
    /**
     * Waits until the copy says a late answer is still taken, with its controls; where the platform sends no summary,
     * until its record expired with the late window open, and the copy still shows its prompt.
     */
    lateOpenOf: async (copy: PromptCopy): Promise<PromptCopy> => {
      if (!capabilitiesOf(harness()).summaries) {
        const id = questionOf(copy);
        await waitUntil(async () => {
          const r = await rpcOk(gateway(), "question.get", { id });
          return r.status === "expired" && acceptsLateAnswer(r, harness().clock?.now() ?? Date.now());
        }, `the record of ${id} to expire with its late window open`);
        return unchanged(copy);
      }
      return waitUntil(() => {
        const now = harness().copy(copy.chat, copy.ref);
        return now.text.startsWith(LATE_OPEN_SUMMARY) && now;
      }, "the expired copy to say a late answer is still taken");
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
