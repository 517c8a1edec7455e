import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QuestionRecord, ResolvedBy } from "../src/record.ts";
import { QuestionExistsError } from "../src/gateway/store/errors.ts";
import type { QuestionStore, Resolution } from "../src/gateway/store/types.ts";

/** One store under test. `reopen` (durable stores only) closes it and opens it again on the same data. */
export interface StoreHarness {
  store: QuestionStore;
  reopen?: () => QuestionStore;
  cleanup: () => void;
}

const OPTIONAL_KEYS = ["resolvedAtMs", "answers", "reason", "detail", "by", "runId", "sessionKey"] as const;

/** A pending record with only the required fields. */
export function pendingRecord(id: string, overrides: Partial<QuestionRecord> = {}): QuestionRecord {
  return {
    id,
    questions: [
      {
        id: "target",
        header: "Deployment t",
        question: "Where should this deploy?",
        options: [{ label: "Staging (Recommended)", description: "Safe first" }, { label: "Production" }],
        multiSelect: false,
      },
    ],
    timeoutSeconds: 900,
    status: "pending",
    createdAtMs: 1_000,
    expiresAtMs: 901_000,
    targets: [{ surface: "web" }],
    deliveries: [],
    ...overrides,
  };
}

/** A record with every optional field present, nested ones included. */
export function fullRecord(id: string): QuestionRecord {
  return pendingRecord(id, {
    status: "cancelled",
    resolvedAtMs: 5_000,
    answers: { target: ["Staging (Recommended)"], extra: ["my own words", "two"] },
    reason: "skipped",
    detail: "skipped from the web page",
    by: { surface: "telegram", user: "42", userName: "Ada", chat: "-100123", via: "button" },
    runId: "run-1",
    sessionKey: "session-1",
    targets: [{ surface: "telegram", chat: "-100123", users: ["42", "77"] }, { surface: "web" }],
    deliveries: [
      { surface: "telegram", chat: "-100123", messageRef: "555", deliveredAtMs: 1_100 },
      { surface: "discord", chat: "987", messageRef: "m-1", deliveredAtMs: 1_200 },
    ],
  });
}

type AnsweredResolution = Extract<Resolution, { status: "answered" }>;
const by: ResolvedBy = { surface: "web", user: "ada", via: "web" };
const answered = (resolvedAtMs = 2_000): AnsweredResolution => ({
  status: "answered",
  answers: { target: ["Production"] },
  by,
  resolvedAtMs,
});

export function runStoreContract(name: string, makeStore: () => StoreHarness): void {
  describe(`QuestionStore contract: ${name}`, () => {
    let harness: StoreHarness;
    let store: QuestionStore;
    beforeEach(() => {
      harness = makeStore();
      store = harness.store;
    });
    afterEach(() => harness.cleanup());

    describe("create and get", () => {
      it("round-trips a record with every optional field", () => {
        store.create(fullRecord("q1"));
        expect(store.get("q1")).toStrictEqual(fullRecord("q1"));
      });

      it("keeps absent optional fields absent, never null", () => {
        store.create(pendingRecord("q1", { runId: undefined }));
        const got = store.get("q1")!;
        expect(got).toStrictEqual(pendingRecord("q1"));
        for (const key of OPTIONAL_KEYS) expect(Object.hasOwn(got, key)).toBe(false);
        expect(Object.hasOwn(got.questions[0]!.options[1]!, "description")).toBe(false);
      });

      it("returns undefined for an unknown id", () => {
        expect(store.get("nope")).toBeUndefined();
      });

      it("refuses a duplicate id and keeps the first record", () => {
        store.create(pendingRecord("q1", { runId: "first" }));
        expect(() => store.create(pendingRecord("q1", { runId: "second" }))).toThrow(QuestionExistsError);
        expect(store.get("q1")?.runId).toBe("first");
      });

      it("keeps the first of duplicate deliveries given at create", () => {
        const delivery = { surface: "telegram", chat: "1", messageRef: "a", deliveredAtMs: 1 } as const;
        store.create(pendingRecord("q1", { deliveries: [delivery, { ...delivery, messageRef: "b" }] }));
        expect(store.get("q1")?.deliveries).toEqual([delivery]);
      });
    });

    describe("list", () => {
      beforeEach(() => {
        const tg = { surface: "telegram", chat: "1" } as const;
        store.create(pendingRecord("a", { createdAtMs: 100, runId: "r1", sessionKey: "s1", targets: [tg] }));
        store.create(pendingRecord("b", { createdAtMs: 300, runId: "r1", sessionKey: "s2", targets: [{ surface: "web" }] }));
        store.create(pendingRecord("c", { createdAtMs: 200, runId: "r2", targets: [{ surface: "web" }, tg] }));
        store.create(pendingRecord("d", { createdAtMs: 300, sessionKey: "s1", targets: [{ surface: "slack", chat: "C1" }] }));
        store.resolve("c", answered());
        store.resolve("d", { status: "cancelled", reason: "aborted", resolvedAtMs: 2_000 });
      });
      const ids = (records: QuestionRecord[]) => records.map((r) => r.id);

      it("returns everything newest first, ties broken by id descending", () => {
        expect(ids(store.list())).toEqual(["d", "b", "c", "a"]);
        expect(ids(store.list({}))).toEqual(["d", "b", "c", "a"]);
      });

      it.each([
        [{ status: "pending" }, ["b", "a"]],
        [{ status: "answered" }, ["c"]],
        [{ status: "cancelled" }, ["d"]],
        [{ status: "expired" }, []],
        [{ runId: "r1" }, ["b", "a"]],
        [{ runId: "zz" }, []],
        [{ sessionKey: "s1" }, ["d", "a"]],
        [{ surface: "telegram" }, ["c", "a"]],
        [{ surface: "web" }, ["b", "c"]],
        [{ surface: "discord" }, []],
        [{ status: "pending", surface: "telegram" }, ["a"]],
        [{ chat: "1" }, ["c", "a"]],
        [{ chat: "C1" }, ["d"]],
        [{ chat: "zz" }, []],
        [{ surface: "telegram", chat: "1" }, ["c", "a"]],
        [{ surface: "slack", chat: "1" }, []],
        [{ status: "pending", surface: "telegram", chat: "1" }, ["a"]],
        [{ runId: "r1", sessionKey: "s1" }, ["a"]],
        [{ status: "pending", runId: "r1", sessionKey: "s2", surface: "web" }, ["b"]],
        [{ limit: 2 }, ["d", "b"]],
        [{ limit: 0 }, []],
        [{ limit: 10 }, ["d", "b", "c", "a"]],
        [{ status: "pending", limit: 1 }, ["b"]],
      ] as const)("filters by %j", (filter, expected) => {
        expect(ids(store.list(filter))).toEqual(expected);
      });

      it("lists the pending chat-only questions no surface has delivered yet, oldest first", () => {
        store.create(pendingRecord("e", { createdAtMs: 50, targets: [{ surface: "discord", chat: "9" }] }));
        store.create(pendingRecord("f", { createdAtMs: 400, targets: [{ surface: "telegram", chat: "2" }] }));
        store.addDelivery("f", { surface: "telegram", chat: "2", messageRef: "m", deliveredAtMs: 5 });
        expect(ids(store.pendingAwaitingDelivery?.() ?? [])).toEqual(store.pendingAwaitingDelivery ? ["e", "a"] : []);
      });

      it("returns full records, deliveries included", () => {
        store.addDelivery("a", { surface: "telegram", chat: "1", messageRef: "m", deliveredAtMs: 5 });
        const [a] = store.list({ runId: "r1", sessionKey: "s1" });
        expect(a).toStrictEqual(store.get("a"));
        expect(a?.deliveries).toHaveLength(1);
      });
    });

    describe("resolve", () => {
      beforeEach(() => store.create(pendingRecord("q1")));

      it("answers a pending record", () => {
        const outcome = store.resolve("q1", answered());
        const expected = { ...pendingRecord("q1"), status: "answered", resolvedAtMs: 2_000, answers: { target: ["Production"] }, by };
        expect(outcome).toStrictEqual({ ok: true, record: expected });
        expect(store.get("q1")).toStrictEqual(expected);
      });

      it("expires a pending record", () => {
        const outcome = store.resolve("q1", { status: "expired", reason: "expired", resolvedAtMs: 3_000 });
        const expected = { ...pendingRecord("q1"), status: "expired", reason: "expired", resolvedAtMs: 3_000 };
        expect(outcome).toStrictEqual({ ok: true, record: expected });
        expect(store.get("q1")).toStrictEqual(expected);
      });

      it("cancels with and without by and detail", () => {
        store.create(pendingRecord("q2"));
        store.resolve("q1", { status: "cancelled", reason: "skipped", by, detail: "skip", resolvedAtMs: 4 });
        store.resolve("q2", { status: "cancelled", reason: "aborted", resolvedAtMs: 5 });
        expect(store.get("q1")).toStrictEqual({ ...pendingRecord("q1"), status: "cancelled", reason: "skipped", by, detail: "skip", resolvedAtMs: 4 });
        expect(store.get("q2")).toStrictEqual({ ...pendingRecord("q2"), status: "cancelled", reason: "aborted", resolvedAtMs: 5 });
      });

      it("lets the first resolution win; later ones change nothing", () => {
        const first = store.resolve("q1", answered());
        expect(first.ok).toBe(true);
        const stored = store.get("q1");
        const laterResolutions: Resolution[] = [
          { status: "cancelled", reason: "cancelled", by: { surface: "api", via: "api" }, detail: "x", resolvedAtMs: 9 },
          { status: "expired", reason: "expired", resolvedAtMs: 9 },
          { ...answered(9), answers: { target: ["Staging (Recommended)"] } },
        ];
        for (const later of laterResolutions) {
          expect(store.resolve("q1", later)).toStrictEqual({ ok: false, code: "QUESTION_ALREADY_TERMINAL", record: stored });
        }
        expect(store.get("q1")).toStrictEqual(stored);
      });

      it("reports an unknown id", () => {
        expect(store.resolve("nope", answered())).toStrictEqual({ ok: false, code: "QUESTION_NOT_FOUND" });
        expect(store.get("nope")).toBeUndefined();
      });
    });

    describe("addDelivery", () => {
      const tg = { surface: "telegram", chat: "1", messageRef: "m1", deliveredAtMs: 10 } as const;
      const dc = { surface: "discord", chat: "1", messageRef: "m2", deliveredAtMs: 11 } as const;
      beforeEach(() => store.create(pendingRecord("q1")));

      it("appends in order and is idempotent per (surface, chat)", () => {
        expect(store.addDelivery("q1", tg)?.deliveries).toEqual([tg]);
        expect(store.addDelivery("q1", dc)?.deliveries).toEqual([tg, dc]);
        const again = store.addDelivery("q1", { ...tg, messageRef: "other", deliveredAtMs: 99 });
        expect(again?.deliveries).toEqual([tg, dc]);
        const otherChat = { ...tg, chat: "2", messageRef: "m3" };
        expect(store.addDelivery("q1", otherChat)?.deliveries).toEqual([tg, dc, otherChat]);
        expect(store.get("q1")?.deliveries).toEqual([tg, dc, otherChat]);
      });

      it("returns undefined for an unknown id", () => {
        expect(store.addDelivery("nope", tg)).toBeUndefined();
      });

      it("keeps deliveries through resolution, and accepts late reports", () => {
        store.addDelivery("q1", tg);
        const outcome = store.resolve("q1", answered());
        expect(outcome.ok && outcome.record.deliveries).toEqual([tg]);
        expect(store.addDelivery("q1", dc)?.deliveries).toEqual([tg, dc]);
        expect(store.get("q1")).toMatchObject({ status: "answered", deliveries: [tg, dc] });
      });
    });

    describe("expiry", () => {
      it("considers only pending records, soonest first, inclusive of nowMs", () => {
        expect(store.nextExpiryMs()).toBeUndefined();
        store.create(pendingRecord("late", { expiresAtMs: 3_000 }));
        store.create(pendingRecord("b", { expiresAtMs: 1_000 }));
        store.create(pendingRecord("a", { expiresAtMs: 1_000 }));
        store.create(pendingRecord("done", { expiresAtMs: 500 }));
        store.create(pendingRecord("old", { status: "expired", reason: "expired", expiresAtMs: 100, resolvedAtMs: 100 }));
        store.resolve("done", answered());
        expect(store.nextExpiryMs()).toBe(1_000);
        expect(store.findExpired(999)).toEqual([]);
        expect(store.findExpired(1_000).map((r) => r.id)).toEqual(["a", "b"]);
        expect(store.findExpired(10_000).map((r) => r.id)).toEqual(["a", "b", "late"]);
        store.resolve("a", { status: "expired", reason: "expired", resolvedAtMs: 1_000 });
        store.resolve("b", { status: "cancelled", reason: "aborted", resolvedAtMs: 1_000 });
        expect(store.nextExpiryMs()).toBe(3_000);
        expect(store.findExpired(10_000).map((r) => r.id)).toEqual(["late"]);
        store.resolve("late", answered());
        expect(store.nextExpiryMs()).toBeUndefined();
        expect(store.findExpired(Number.MAX_SAFE_INTEGER)).toEqual([]);
      });

      it("returns full records", () => {
        store.create(fullRecord("f"));
        store.create(pendingRecord("p", { runId: "r", deliveries: fullRecord("x").deliveries }));
        expect(store.findExpired(Number.MAX_SAFE_INTEGER)).toStrictEqual([store.get("p")]);
      });
    });

    it("returns copies: mutating inputs or results never changes the store", () => {
      const input = fullRecord("q1");
      store.create(input);
      store.create(pendingRecord("q2"));
      input.questions[0]!.header = "changed";
      input.deliveries.length = 0;
      input.by!.user = "mallory";
      const mutate = (record: QuestionRecord | undefined) => {
        if (!record) return;
        record.status = "expired";
        record.targets.push({ surface: "slack", chat: "X" });
        record.deliveries.push({ surface: "slack", chat: "X", messageRef: "x", deliveredAtMs: 0 });
        record.questions[0]!.options[0]!.label = "hacked";
        if (record.answers) record.answers.target = ["hacked"];
      };
      mutate(store.get("q1"));
      store.list().forEach(mutate);
      const target = ["Production"];
      const resolution: AnsweredResolution = { ...answered(), answers: { target }, by: { ...by } };
      const outcome = store.resolve("q2", resolution);
      mutate(outcome.ok ? outcome.record : undefined);
      target.push("hacked");
      resolution.by.user = "mallory";
      const delivery = { surface: "web" as const, chat: "w", messageRef: "r", deliveredAtMs: 1 };
      mutate(store.addDelivery("q2", delivery));
      delivery.messageRef = "hacked";
      store.create(pendingRecord("q3"));
      store.findExpired(Number.MAX_SAFE_INTEGER).forEach(mutate);
      mutate((store.resolve("q1", answered()) as { record?: QuestionRecord }).record);

      expect(store.get("q1")).toStrictEqual(fullRecord("q1"));
      expect(store.get("q2")).toStrictEqual({
        ...pendingRecord("q2"),
        ...answered(),
        deliveries: [{ surface: "web", chat: "w", messageRef: "r", deliveredAtMs: 1 }],
      });
      expect(store.get("q3")).toStrictEqual(pendingRecord("q3"));
    });

    it("refuses use after close", () => {
      store.close();
      expect(() => store.get("q1")).toThrow();
      expect(() => store.create(pendingRecord("q1"))).toThrow();
    });

    it("handles 1,000 creates and resolves", () => {
      const started = performance.now();
      for (let i = 0; i < 1_000; i++) {
        store.create(pendingRecord(`bulk-${i}`, { createdAtMs: i, expiresAtMs: 10_000 + i }));
        store.addDelivery(`bulk-${i}`, { surface: "telegram", chat: "1", messageRef: `${i}`, deliveredAtMs: i });
        expect(store.resolve(`bulk-${i}`, answered(i)).ok).toBe(true);
      }
      const elapsedMs = performance.now() - started;
      console.info(`[${name}] 1,000 create+deliver+resolve in ${elapsedMs.toFixed(0)} ms`);
      expect(store.list({ status: "answered" })).toHaveLength(1_000);
      expect(store.nextExpiryMs()).toBeUndefined();
    });

    it("keeps everything across close and reopen (durable stores)", (ctx) => {
      if (!harness.reopen) return ctx.skip();
      store.create(fullRecord("full"));
      store.create(pendingRecord("pending", { expiresAtMs: 7_000, sessionKey: "s" }));
      store.create(pendingRecord("answered"));
      store.addDelivery("answered", { surface: "slack", chat: "C1", messageRef: "ts.1", deliveredAtMs: 3 });
      store.resolve("answered", answered());
      const before = store.list();
      store = harness.reopen!();
      expect(store.list()).toStrictEqual(before);
      expect(store.nextExpiryMs()).toBe(7_000);
      expect(store.resolve("answered", answered(8)).ok).toBe(false);
      expect(store.resolve("pending", answered(8)).ok).toBe(true);
    });
  });
}
