/**
 * question.resolve without a read first (issue 30, round trips): a question this instance created, or heard of in a
 * shared store's change, is answered against the questions it knows, straight to the store's compare-and-set. Every
 * case the shortcut does not cover takes the full path, with the same outcome and the same refusal as before.
 */
import { realClock } from "../../../src/kernel/clock.ts";
import { describe, expect, it } from "vitest";
import { createQuestionService } from "../../../src/gateway/service/service.ts";
import { createWaiters } from "../../../src/gateway/service/waiters.ts";
import { createMemoryStore, type QuestionStore } from "../../../src/gateway/store/index.ts";
import { oneQuestion } from "../../helpers/gateway.ts";

/** A memory store that counts its reads of one record. */
function countingStore(): { store: QuestionStore; gets: () => number } {
  const store = createMemoryStore();
  let gets = 0;
  const get = store.get.bind(store);
  store.get = (id) => {
    gets++;
    return get(id);
  };
  return { store, gets: () => gets };
}

const by = { surface: "web" as const, via: "web" as const };

describe("question.resolve of a question known here", () => {
  it("answers and cancels without reading the record first", async () => {
    const { store, gets } = countingStore();
    const service = createQuestionService({ store });
    const asked = await Promise.all([1, 2].map(() => service.request(oneQuestion())));
    const before = gets();
    const answered = await service.resolve({ id: asked[0]!.id, answers: { deploy_target: "Production" }, by });
    const cancelled = await service.resolve({ id: asked[1]!.id, cancel: true, reason: "cancelled", by });
    expect(gets() - before).toBe(0);
    expect(answered).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] }, by });
    expect(cancelled).toMatchObject({ status: "cancelled", reason: "cancelled" });
    expect(await store.get(asked[0]!.id)).toEqual(answered);
    service.stop();
  });

  it("refuses as before what the shortcut cannot decide: a bad answer, a question resolved elsewhere, one past its expiry", async () => {
    let nowMs = 1_000_000;
    const { store } = countingStore();
    const service = createQuestionService({ store, clock: { ...realClock, now: () => nowMs } });
    const { id } = await service.request(oneQuestion());
    await expect(service.resolve({ id, answers: { no_such_question: "Production" }, by })).rejects.toMatchObject({ code: "QUESTION_INVALID_ANSWER" });
    expect((await store.get(id))?.status).toBe("pending");

    // Resolved behind this service's back (as another instance would): the compare-and-set changes nothing.
    await store.resolve(id, { status: "cancelled", reason: "cancelled", resolvedAtMs: nowMs });
    await expect(service.resolve({ id, answers: { deploy_target: "Production" }, by })).rejects.toMatchObject({ code: "QUESTION_ALREADY_TERMINAL" });
    // A bad answer to a terminal question is refused as terminal, as the full path always did.
    await expect(service.resolve({ id, answers: { no_such_question: "Production" }, by })).rejects.toMatchObject({ code: "QUESTION_ALREADY_TERMINAL" });

    const late = await service.request(oneQuestion({ timeoutSeconds: 60 }));
    nowMs = late.expiresAtMs + 1;
    // Past its expiry: the full path expires it (and takes the answer as a late one, in the default late window);
    // the shortcut never answers it.
    await service.resolve({ id: late.id, answers: { deploy_target: "Production" }, by }).catch(() => undefined);
    expect((await store.get(late.id))?.status).toBe("expired");
    service.stop();
  });
});

describe("a wait that starts just after its question resolved", () => {
  it("ends at once with the resolution announced before it started (an ask's wait, another instance's answer)", async () => {
    const pending = { ...(await asked()), status: "pending" as const };
    const answered = { ...pending, status: "answered" as const, answers: { deploy_target: ["Production"] }, resolvedAtMs: 2 };
    // The store, as the wait reads it: the waiters remember only the id of a resolution nobody waited on.
    const reads: string[] = [];
    const waiters = createWaiters({ maxWaitMs: 60_000, read: async (id) => (reads.push(id), id === answered.id ? answered : undefined) });
    waiters.wake(answered); // announced while nobody waited
    const started = Date.now();
    expect(await waiters.wait(pending, 30_000)).toMatchObject({ status: "answered", record: { status: "answered", answers: { deploy_target: ["Production"] } } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(reads).toEqual([answered.id]);
    // Another question still waits (here: until its short timeout, then with what `read` finds: nothing newer).
    const other = { ...pending, id: "other" };
    expect(await waiters.wait(other, 50)).toMatchObject({ status: "pending" });
  });
});

async function asked() {
  const service = createQuestionService({ store: createMemoryStore() });
  const { record } = await service.request(oneQuestion());
  service.stop();
  return record;
}
