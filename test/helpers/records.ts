import type { AskUserQuestion } from "../../src/contract/schema.ts";
import type { QuestionRecord } from "../../src/record/record.ts";

/** A normalised single-select question; `over` changes any field. */
export function question(over: Partial<AskUserQuestion> = {}): AskUserQuestion {
  return {
    id: "target",
    header: "Deployment t",
    question: "Where should this deploy?",
    options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
    multiSelect: false,
    ...over,
  };
}

/** A pending record holding these questions. */
export function record(questions: AskUserQuestion[], over: Partial<QuestionRecord> = {}): QuestionRecord {
  return { id: "q_123", questions, timeoutSeconds: 900, status: "pending", createdAtMs: 0, expiresAtMs: 900_000, targets: [], deliveries: [], reminders: [], ...over };
}
