import type { ApprovalEdit, ApprovalSubject, Delivery, EscalationStep, LateAnswer, QuestionRecord, QuestionStatus, RecordReason, ResolvedBy, Target, TargetState } from "../../../record/record.ts";
import { nextFollowUpMs } from "../../../record/follow-ups.ts";
import type { AskUserQuestion } from "../../../contract/schema.ts";
import type { Surface } from "../../../contract/result.ts";
import { CorruptRecordError } from "./errors.ts";
import type { Resolution } from "./types.ts";

/** A `questions` row as better-sqlite3 returns it. */
export interface QuestionRow {
  id: string;
  status: QuestionStatus;
  created_at_ms: number;
  expires_at_ms: number;
  resolved_at_ms: number | null;
  timeout_seconds: number;
  run_id: string | null;
  session_key: string | null;
  asked_by?: string | null;
  surfaces: string;
  reason: string | null;
  detail: string | null;
  questions_json: string;
  answers_json: string | null;
  by_json: string | null;
  targets_json: string;
  partial_json: string | null;
  /** `{reminders, escalate?}`: the follow-up policy (null in rows written before it existed: no reminders). */
  policy_json?: string | null;
  /** `{remindersSent?, remindersSkipped?, escalated?, reminderCopies?}`: what followed up so far. */
  progress_json?: string | null;
  /** A pending record's next reminder or escalation moment (null: none left). */
  next_due_ms?: number | null;
  late_answer_seconds?: number | null;
  late_until_ms?: number | null;
  late_json?: string | null;
  /** Reads only: `[[surface, chat, message_ref, delivered_at_ms, rendered], …]` from the deliveries table (json_group_array). */
  deliveries_json?: string;
  /**
   * Reads only: `[[surface, chat, state, reason, at_ms, retry_at_ms], …]` from the target_states table, without the
   * chats that have a delivered copy. Absent or null: none.
   */
  states_json?: string | null;
}

export interface DeliveryRow {
  surface: string;
  chat: string;
  message_ref: string;
  delivered_at_ms: number;
  rendered?: string | null;
}

/** `,SURFACE,web,`: every target surface once, comma-delimited on both ends for `instr`. */
export function surfacesColumn(targets: Target[]): string {
  return `,${[...new Set(targets.map((t) => t.surface))].join(",")},`;
}

/** Named parameters for the insert statement (null where the record has no value). */
export function recordToParams(record: QuestionRecord): QuestionRow {
  return {
    id: record.id,
    status: record.status,
    created_at_ms: record.createdAtMs,
    expires_at_ms: record.expiresAtMs,
    resolved_at_ms: record.resolvedAtMs ?? null,
    timeout_seconds: record.timeoutSeconds,
    run_id: record.runId ?? null,
    session_key: record.sessionKey ?? null,
    asked_by: record.askedBy ?? null,
    surfaces: surfacesColumn(record.targets),
    reason: record.reason ?? null,
    detail: record.detail ?? null,
    questions_json: JSON.stringify(record.questions),
    answers_json: record.answers === undefined ? null : JSON.stringify(record.answers),
    by_json: byJson(record.by, record.approvalEdit),
    targets_json: JSON.stringify(record.targets),
    partial_json: record.partialAnswers === undefined ? null : JSON.stringify(record.partialAnswers),
    ...followUpParams(record),
    late_answer_seconds: record.lateAnswerSeconds ?? null,
    late_until_ms: record.lateUntilMs ?? null,
    late_json: record.lateAnswer === undefined ? null : JSON.stringify(record.lateAnswer),
  };
}

/**
 * What the request asked besides its questions, as stored (`policy_json`): the follow-up policy, `links`, and an
 * approval's subject (written once, with the record; every later write of the column carries it on unchanged).
 */
export function policyJson(record: QuestionRecord): string {
  return JSON.stringify({
    reminders: record.reminders ?? [],
    ...(record.escalate ? { escalate: record.escalate } : {}),
    ...(record.linksRequested ? { links: true } : {}),
    ...(record.approval ? { approval: record.approval } : {}),
  });
}

/**
 * Who resolved, as stored (`by_json`); an approval allowed with changes keeps the edited input beside it
 * (`approvalEdit`), since both are written by the one resolution and read back together.
 */
function byJson(by: ResolvedBy | undefined, approvalEdit: ApprovalEdit | undefined): string | null {
  if (by === undefined) return null;
  return JSON.stringify(approvalEdit === undefined ? by : { ...by, approvalEdit });
}

/** What followed up so far (`progress_json`), null when nothing has. */
export function progressJson(record: QuestionRecord): string | null {
  const progress = {
    ...(record.remindersSent ? { remindersSent: record.remindersSent } : {}),
    ...(record.remindersSkipped ? { remindersSkipped: record.remindersSkipped } : {}),
    ...(record.escalated ? { escalated: record.escalated } : {}),
    ...(record.reminderCopies ? { reminderCopies: record.reminderCopies } : {}),
  };
  return Object.keys(progress).length > 0 ? JSON.stringify(progress) : null;
}

/** The follow-up columns a write of `record` sets: policy, progress and the next due moment. */
export function followUpParams(record: QuestionRecord): { policy_json: string; progress_json: string | null; next_due_ms: number | null } {
  return { policy_json: policyJson(record), progress_json: progressJson(record), next_due_ms: nextFollowUpMs(record) ?? null };
}

export function deliveryToParams(questionId: string, delivery: Delivery): DeliveryRow & { question_id: string } {
  return {
    question_id: questionId,
    surface: delivery.surface,
    chat: delivery.chat,
    message_ref: delivery.messageRef,
    delivered_at_ms: delivery.deliveredAtMs,
    rendered: delivery.rendered ?? null,
  };
}

/** Named parameters for the compare-and-set update; null means "keep the stored value". */
export function resolutionToParams(id: string, resolution: Resolution): Record<string, string | number | null> {
  return {
    id,
    status: resolution.status,
    resolved_at_ms: resolution.resolvedAtMs,
    answers_json: resolution.status === "answered" ? JSON.stringify(resolution.answers) : null,
    by_json: resolution.status !== "expired" && resolution.by ? byJson(resolution.by, resolution.status === "answered" ? resolution.approvalEdit : undefined) : null,
    reason: resolution.status === "answered" ? null : resolution.reason,
    detail: resolution.status === "cancelled" ? (resolution.detail ?? null) : null,
  };
}

/** The deliveries a read selected as JSON (SQLite builds it from typed columns, so it is never corrupt). */
export function deliveriesFromJson(text: string): DeliveryRow[] {
  const rows = JSON.parse(text) as Array<[string, string, string, number, (string | null)?]>;
  return rows.map(([surface, chat, message_ref, delivered_at_ms, rendered]) => ({ surface, chat, message_ref, delivered_at_ms, rendered: rendered ?? null }));
}

/** The target states a read selected as JSON (built from typed columns, like the deliveries). */
export function targetStatesFromJson(text: string | null | undefined): TargetState[] {
  if (!text) return [];
  const rows = JSON.parse(text) as Array<[string, string, TargetState["state"], string, number, number | null]>;
  return rows.map(([surface, chat, state, reason, atMs, retryAtMs]) => ({
    surface: surface as Surface,
    chat,
    state,
    reason,
    atMs,
    ...(retryAtMs === null || retryAtMs === undefined ? {} : { retryAtMs }),
  }));
}

const isObject = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value);

function parseColumn<T>(id: string, column: string, text: string, valid: (value: unknown) => boolean): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new CorruptRecordError(id, column, { cause });
  }
  if (!valid(value)) throw new CorruptRecordError(id, column);
  return value as T;
}

/** Decodes a row; absent values stay absent (never null). Throws CorruptRecordError on bad JSON. */
export function rowToRecord(row: QuestionRow, deliveries: DeliveryRow[]): QuestionRecord {
  const record: QuestionRecord = {
    id: row.id,
    questions: parseColumn<AskUserQuestion[]>(row.id, "questions_json", row.questions_json, Array.isArray),
    timeoutSeconds: row.timeout_seconds,
    status: row.status,
    createdAtMs: row.created_at_ms,
    expiresAtMs: row.expires_at_ms,
    targets: parseColumn<Target[]>(row.id, "targets_json", row.targets_json, Array.isArray),
    deliveries: deliveries.map((d) => ({
      surface: d.surface as Surface,
      chat: d.chat,
      messageRef: d.message_ref,
      deliveredAtMs: d.delivered_at_ms,
      ...(d.rendered === null || d.rendered === undefined ? {} : { rendered: d.rendered }),
    })),
    reminders: [],
  };
  const states = targetStatesFromJson(row.states_json);
  if (states.length > 0) record.targetStates = states;
  if (row.resolved_at_ms !== null) record.resolvedAtMs = row.resolved_at_ms;
  if (row.answers_json !== null) record.answers = parseColumn(row.id, "answers_json", row.answers_json, isObject);
  if (row.reason !== null) record.reason = row.reason as RecordReason;
  if (row.detail !== null) record.detail = row.detail;
  if (row.by_json !== null) {
    const { approvalEdit, ...by } = parseColumn<ResolvedBy & { approvalEdit?: ApprovalEdit }>(row.id, "by_json", row.by_json, isObject);
    record.by = by;
    if (isObject(approvalEdit)) record.approvalEdit = approvalEdit!;
  }
  if (row.run_id !== null) record.runId = row.run_id;
  if (row.session_key !== null) record.sessionKey = row.session_key;
  if (row.asked_by !== null && row.asked_by !== undefined) record.askedBy = row.asked_by;
  if (row.partial_json !== null) record.partialAnswers = parseColumn(row.id, "partial_json", row.partial_json, isObject);
  if (row.policy_json !== null && row.policy_json !== undefined) {
    const policy = parseColumn<{ reminders?: number[]; escalate?: EscalationStep[]; links?: unknown; approval?: ApprovalSubject }>(row.id, "policy_json", row.policy_json, isObject);
    if (isObject(policy.approval)) record.approval = policy.approval!;
    record.reminders = Array.isArray(policy.reminders) ? policy.reminders : [];
    if (Array.isArray(policy.escalate)) record.escalate = policy.escalate;
    if (policy.links === true) record.linksRequested = true;
  }
  if (row.progress_json !== null && row.progress_json !== undefined) {
    const progress = parseColumn<Pick<QuestionRecord, "remindersSent" | "remindersSkipped" | "escalated" | "reminderCopies">>(row.id, "progress_json", row.progress_json, isObject);
    for (const key of ["remindersSent", "remindersSkipped", "escalated", "reminderCopies"] as const) {
      if (Array.isArray(progress[key])) (record as unknown as Record<string, unknown>)[key] = progress[key];
    }
  }
  if (row.late_answer_seconds !== null && row.late_answer_seconds !== undefined) record.lateAnswerSeconds = row.late_answer_seconds;
  if (row.late_until_ms !== null && row.late_until_ms !== undefined) record.lateUntilMs = row.late_until_ms;
  if (row.late_json !== null && row.late_json !== undefined) record.lateAnswer = parseColumn<LateAnswer>(row.id, "late_json", row.late_json, isObject);
  return record;
}
