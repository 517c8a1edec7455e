import type { Delivery, QuestionRecord, TargetState } from "../../../record/record.ts";
import type { ListPosition } from "../../../protocol/list-filter.ts";
import { CorruptRecordError } from "./errors.ts";
import { lateUntilFor } from "../../../record/late-window.ts";
import type { ClaimOutcome, DeliveryClaim, HeldClaim, Resolution } from "./types.ts";

/**
 * Pure helpers shared by every store, so that each implementation has the same semantics.
 * Both stores order lists newest first (createdAtMs DESC, then id DESC) and expiries soonest first
 * (expiresAtMs ASC, then id ASC).
 */

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

/** Appends a delivery unless one for the same (surface, chat) exists: a repeat report keeps the first copy. */
export function addDeliveryTo(deliveries: Delivery[], delivery: Delivery): boolean {
  if (deliveries.some((d) => d.surface === delivery.surface && d.chat === delivery.chat)) return false;
  deliveries.push(delivery);
  return true;
}

/**
 * One state per (surface, chat): `next` replaces the one held, except that `retrying` never replaces `failed` (a
 * chat that can never receive stays failed) and `waiting` replaces nothing but `waiting`. Returns the new list, or undefined when nothing changes.
 */
export function mergeTargetState(states: readonly TargetState[], next: TargetState): TargetState[] | undefined {
  const index = states.findIndex((s) => s.surface === next.surface && s.chat === next.chat);
  if (index < 0) return [...states, next];
  if (states[index]?.state === "failed" && next.state === "retrying") return undefined;
  // "No bot is connected" is the weakest news: it never hides a bot's own report.
  if (next.state === "waiting" && states[index]?.state !== "waiting") return undefined;
  return states.map((s, i) => (i === index ? next : s));
}

/** A delivered copy supersedes its chat's trouble: the states of chats with a delivery are left out. */
export function undeliveredStates(states: readonly TargetState[] | undefined, deliveries: readonly Delivery[]): TargetState[] {
  return (states ?? []).filter((s) => !deliveries.some((d) => d.surface === s.surface && d.chat === s.chat));
}

/** The record as reads return it: `targetStates` only with the states still standing, absent when none. */
export function withVisibleStates(record: QuestionRecord): QuestionRecord {
  const states = undeliveredStates(record.targetStates, record.deliveries);
  const { targetStates: _held, ...rest } = record;
  return states.length > 0 ? { ...rest, targetStates: states } : rest;
}

/** `undefined` means no limit; anything else is a whole number of records, at least 0. */
export function normalizeLimit(limit: number | undefined): number | undefined {
  if (limit === undefined || !Number.isFinite(limit)) return undefined;
  return Math.max(0, Math.trunc(limit));
}

const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function compareNewestFirst(a: QuestionRecord, b: QuestionRecord): number {
  return b.createdAtMs - a.createdAtMs || compareIds(b.id, a.id);
}

/** True when `record` comes after `position` in the newest-first order: the next page of question.list. */
export function isBefore(record: QuestionRecord, position: ListPosition): boolean {
  return record.createdAtMs < position.createdAtMs || (record.createdAtMs === position.createdAtMs && record.id < position.id);
}

export function compareSoonestExpiry(a: QuestionRecord, b: QuestionRecord): number {
  return a.expiresAtMs - b.expiresAtMs || compareIds(a.id, b.id);
}

/** A held delivery claim: who may send that copy, and until when. */
export interface StoredClaim {
  claimant: string;
  leaseUntilMs: number;
  /** When the claimant last took or renewed it. */
  claimedAtMs: number;
}

/**
 * The claim rule every store applies (PostgreSQL in one statement): a copy of a pending question that nobody has
 * delivered goes to the first claimant; that claimant may renew; another may take it over once the lease lapses.
 */
export function claimFor(record: QuestionRecord | undefined, held: StoredClaim | undefined, claim: DeliveryClaim): ClaimOutcome {
  if (!record) return { ok: false, reason: "not_found" };
  if (record.status !== "pending") return { ok: false, reason: "not_pending" };
  if (record.deliveries.some((d) => d.surface === claim.surface && d.chat === claim.chat)) return { ok: false, reason: "delivered" };
  if (held && held.claimant !== claim.claimant && held.leaseUntilMs > claim.nowMs) return { ok: false, reason: "claimed", leaseUntilMs: held.leaseUntilMs };
  return { ok: true, leaseUntilMs: claim.nowMs + claim.leaseMs };
}

/** The in-process claims (memory and SQLite): question id → `surface\nchat` → the claim held. */
export function createClaimTable() {
  const byQuestion = new Map<string, Map<string, StoredClaim>>();
  const chatKey = (surface: string, chat: string) => `${surface}\n${chat}`;
  return {
    claim(record: QuestionRecord | undefined, claim: DeliveryClaim): ClaimOutcome {
      const held = byQuestion.get(claim.id);
      const outcome = claimFor(record, held?.get(chatKey(claim.surface, claim.chat)), claim);
      if (outcome.ok) {
        const claims = held ?? new Map<string, StoredClaim>();
        claims.set(chatKey(claim.surface, claim.chat), { claimant: claim.claimant, leaseUntilMs: outcome.leaseUntilMs, claimedAtMs: claim.nowMs });
        byQuestion.set(claim.id, claims);
      }
      return outcome;
    },
    live(record: QuestionRecord | undefined, nowMs: number): HeldClaim[] {
      if (!record) return [];
      return [...(byQuestion.get(record.id) ?? [])].flatMap(([key, held]) => {
        const cut = key.indexOf("\n");
        const surface = key.slice(0, cut);
        const chat = key.slice(cut + 1);
        const delivered = record.deliveries.some((d) => d.surface === surface && d.chat === chat);
        return held.leaseUntilMs > nowMs && !delivered ? [{ surface, chat, ...held }] : [];
      });
    },
    /** The question is no longer pending: its claims can never be granted again. */
    forget(id: string): void {
      byQuestion.delete(id);
    },
    clear(): void {
      byQuestion.clear();
    },
  };
}

/**
 * Decodes many rows, skipping (and reporting once each, through `corruptIds`) the ones that are corrupt, so one bad
 * row never hides the rest. Single-record reads throw CorruptRecordError instead.
 */
export function decodeSkippingCorrupt<Row extends { id: string }>(
  rows: readonly Row[],
  decode: (row: Row) => QuestionRecord,
  corruptIds: Set<string>,
  onCorruptRecord: (error: CorruptRecordError) => void,
): QuestionRecord[] {
  return rows.flatMap((row) => {
    try {
      return [decode(row)];
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      if (!corruptIds.has(row.id)) onCorruptRecord(error);
      corruptIds.add(row.id);
      return [];
    }
  });
}
