import type { ApprovalEdit, Delivery, QuestionRecord, RecordReason, ResolvedBy, TargetState } from "./record.ts";
import { acceptsLateAnswer, lateUntilFor } from "./late-window.ts";

/**
 * The record's transitions, as pure functions every store applies the same way (the store kit runs them as one
 * read-modify-compare-and-set on one record). Each returns the changed record, or undefined when nothing changes.
 */

/** A terminal outcome, applied as a compare-and-set from `pending`. */
export type Resolution =
  | { status: "answered"; answers: Record<string, string[]>; by: ResolvedBy; resolvedAtMs: number; /** An approval allowed with changes. */ approvalEdit?: ApprovalEdit }
  | { status: "expired"; reason: "expired"; resolvedAtMs: number }
  | { status: "cancelled"; reason: Exclude<RecordReason, "expired">; by?: ResolvedBy; detail?: string; resolvedAtMs: number };

/** Applies a terminal resolution to a record. Fields the resolution does not name are kept as they were. */
export function applyResolution(record: QuestionRecord, resolution: Resolution): QuestionRecord {
  const next: QuestionRecord = { ...record, status: resolution.status, resolvedAtMs: resolution.resolvedAtMs };
  if (resolution.status === "answered") {
    next.answers = resolution.answers;
    next.by = resolution.by;
    if (resolution.approvalEdit !== undefined) next.approvalEdit = resolution.approvalEdit;
    return next;
  }
  next.reason = resolution.reason;
  if (resolution.status === "expired") {
    const lateUntilMs = lateUntilFor(record, resolution.resolvedAtMs);
    if (lateUntilMs !== undefined) next.lateUntilMs = lateUntilMs;
  }
  if (resolution.status === "cancelled") {
    if (resolution.by !== undefined) next.by = resolution.by;
    if (resolution.detail !== undefined) next.detail = resolution.detail;
  }
  return next;
}

const sameChat = (a: { surface: string; chat: string }, b: { surface: string; chat: string }): boolean => a.surface === b.surface && a.chat === b.chat;

/** Appends a delivery unless one for the same (surface, chat) exists: a repeat report keeps the first copy. */
export function addDeliveryTo(deliveries: Delivery[], delivery: Delivery): boolean {
  if (deliveries.some((d) => sameChat(d, delivery))) return false;
  deliveries.push(delivery);
  return true;
}

/** Records one delivered copy; a repeat report for the same (surface, chat) keeps the first. */
export function applyDelivery(record: QuestionRecord, delivery: Delivery): QuestionRecord | undefined {
  if (record.deliveries.some((d) => sameChat(d, delivery))) return undefined;
  return { ...record, deliveries: [...record.deliveries, delivery] };
}

/**
 * One state per (surface, chat): `next` replaces the one held, except that `retrying` never replaces `failed` (a
 * chat that can never receive stays failed) and `waiting` replaces nothing but `waiting`. Returns the new list, or undefined when nothing changes.
 */
export function mergeTargetState(states: readonly TargetState[], next: TargetState): TargetState[] | undefined {
  const index = states.findIndex((s) => sameChat(s, next));
  if (index < 0) return [...states, next];
  if (states[index]?.state === "failed" && next.state === "retrying") return undefined;
  // "No bot is connected" is the weakest news: it never hides a bot's own report.
  if (next.state === "waiting" && states[index]?.state !== "waiting") return undefined;
  return states.map((s, i) => (i === index ? next : s));
}

/** Records a chat target's delivery trouble by mergeTargetState's rule. */
export function applyTargetState(record: QuestionRecord, state: TargetState): QuestionRecord | undefined {
  const targetStates = mergeTargetState(record.targetStates ?? [], state);
  return targetStates && { ...record, targetStates };
}

/** Removes the chat's `waiting` state (a bot took its copy); undefined when it has none. */
export function applyClearWaiting(record: QuestionRecord, surface: string, chat: string): QuestionRecord | undefined {
  const states = record.targetStates ?? [];
  const index = states.findIndex((s) => s.surface === surface && s.chat === chat && s.state === "waiting");
  if (index < 0) return undefined;
  return { ...record, targetStates: states.filter((_, i) => i !== index) };
}

/**
 * A copy the platform took and then refused for good: on a pending record whose copy in (state.surface, state.chat)
 * is `messageRef`, removes that delivery and records `state` (by mergeTargetState's rule, the state held otherwise).
 */
export function applyWithdrawal(record: QuestionRecord, messageRef: string, state: TargetState): QuestionRecord | undefined {
  const index = record.deliveries.findIndex((d) => sameChat(d, state) && d.messageRef === messageRef);
  if (record.status !== "pending" || index < 0) return undefined;
  const targetStates = mergeTargetState(record.targetStates ?? [], state) ?? record.targetStates;
  return { ...record, deliveries: record.deliveries.filter((_, i) => i !== index), ...(targetStates ? { targetStates } : {}) };
}

/** Stores what one delivered copy shows now; no copy for that chat (or the same fingerprint): nothing changes. */
export function applyRendered(record: QuestionRecord, surface: string, chat: string, rendered: string): QuestionRecord | undefined {
  const index = record.deliveries.findIndex((d) => d.surface === surface && d.chat === chat);
  if (index < 0 || record.deliveries[index]?.rendered === rendered) return undefined;
  return { ...record, deliveries: record.deliveries.map((d, i) => (i === index ? { ...d, rendered } : d)) };
}

/**
 * Merges partial answers into a pending record (keys already held keep their values only when `answers` does not
 * name them); with `lateAtMs`, an expired record still in its late window takes them too.
 */
export function applyPartial(record: QuestionRecord, answers: Record<string, string[]>, lateAtMs?: number): QuestionRecord | undefined {
  const late = lateAtMs !== undefined && acceptsLateAnswer(record, lateAtMs);
  if (record.status !== "pending" && !late) return undefined;
  return { ...record, partialAnswers: { ...record.partialAnswers, ...answers } };
}

/** A delivered copy supersedes its chat's trouble: the states of chats with a delivery are left out. */
export function undeliveredStates(states: readonly TargetState[] | undefined, deliveries: readonly Delivery[]): TargetState[] {
  return (states ?? []).filter((s) => !deliveries.some((d) => sameChat(d, s)));
}

/** The record as reads return it: `targetStates` only with the states still standing, absent when none. */
export function withVisibleStates(record: QuestionRecord): QuestionRecord {
  const states = undeliveredStates(record.targetStates, record.deliveries);
  const { targetStates: _held, ...rest } = record;
  return states.length > 0 ? { ...rest, targetStates: states } : rest;
}
