import type { QuestionRecord } from "../../record/record.ts";

/** What an answer to a pending question is checked against: its questions never change, its expiry neither. */
export type KnownQuestion = Pick<QuestionRecord, "questions" | "expiresAtMs"> & { /** An approval: its answers take the full path. */ approval?: true };

/**
 * The questions of pending records this instance created or heard of (a shared store's change carrying the record),
 * so that `question.resolve` validates an answer and runs the store's compare-and-set without reading the record
 * first. Only a shortcut: whatever it does not know, or whatever the compare-and-set refuses, takes the full path.
 * Bounded (the oldest go first); a record is forgotten when it finishes.
 */
export function createKnownQuestions(max = 10_000) {
  const known = new Map<string, KnownQuestion>();
  return {
    remember(record: QuestionRecord): void {
      if (record.status !== "pending") return;
      if (known.size >= max && !known.has(record.id)) known.delete(known.keys().next().value!);
      known.set(record.id, { questions: record.questions, expiresAtMs: record.expiresAtMs, ...(record.approval ? { approval: true as const } : {}) });
    },
    get(id: string): KnownQuestion | undefined {
      return known.get(id);
    },
    forget(id: string): void {
      known.delete(id);
    },
  };
}

export type KnownQuestions = ReturnType<typeof createKnownQuestions>;
