import { describe, expect, it } from "vitest";
import type { QuestionRecord } from "../../../src/record/record.ts";
import { compareAndSet, createRecordOperations, type RecordCell } from "../../../src/gateway/store/kit/record-cell.ts";

const record = (partialAnswers?: Record<string, string[]>): QuestionRecord => ({
  id: "q1",
  questions: [],
  timeoutSeconds: 60,
  status: "pending",
  createdAtMs: 0,
  expiresAtMs: 60_000,
  targets: [{ surface: "web" }],
  deliveries: [],
  reminders: [],
  ...(partialAnswers ? { partialAnswers } : {}),
});

/** A cell whose first `conflicts` stores find the record moved (another writer merged `{ other: ["x"] }` meanwhile). */
function conflictingCell(conflicts: number): RecordCell<number> & { stores: number } {
  let stored = record();
  let version = 0;
  const cell = {
    stores: 0,
    async load(id: string) {
      return id === stored.id ? { record: stored, version } : undefined;
    },
    async storeIfUnchanged(loaded: { version: number }, next: QuestionRecord) {
      cell.stores++;
      if (cell.stores <= conflicts) {
        stored = { ...stored, partialAnswers: { ...stored.partialAnswers, other: ["x"] } };
        version++;
      }
      if (loaded.version !== version) return undefined;
      stored = next;
      version++;
      return stored;
    },
  };
  return cell;
}

describe("the record cell's compare-and-set (store/kit/record-cell.ts)", () => {
  it("applies the change to the record as it is after another writer got there first", async () => {
    const cell = conflictingCell(2);
    const merged = await createRecordOperations(cell).mergePartial("q1", { a: ["1"] });
    expect(merged?.partialAnswers).toEqual({ other: ["x"], a: ["1"] });
    expect(cell.stores).toBe(3);
  });

  it("reports an unknown id, and a change that does not apply, without storing", async () => {
    const cell = conflictingCell(0);
    expect(await createRecordOperations(cell).setRendered("nope", "slack", "C1", "f")).toBeUndefined();
    expect(await createRecordOperations(cell).markReminder("q1", 30, 1)).toBeUndefined(); // 30 s is not in its policy
    expect(cell.stores).toBe(0);
  });

  it("gives up when the record keeps moving", async () => {
    await expect(Promise.resolve(compareAndSet(conflictingCell(100), "q1", (r) => ({ ...r, partialAnswers: {} }), { event: null }))).rejects.toThrow(
      /kept changing/,
    );
  });
});
