import type { QuestionRecord } from "../../../record/record.ts";
import type { ClaimOutcome, DeliveryClaim, HeldClaim } from "./types.ts";

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

/**
 * The in-process claims (memory and SQLite): question id → `surface\nchat` → the prompt claim held, and
 * `surface\nchat\noffset` → the reminder-copy claim held.
 */
export function createClaimTable() {
  const byQuestion = new Map<string, Map<string, StoredClaim>>();
  const reminders = new Map<string, Map<string, { claimant: string; leaseUntilMs: number }>>();
  const chatKey = (surface: string, chat: string) => `${surface}\n${chat}`;
  return {
    /** Takes (or renews) a prompt or reminder copy's claim by the rules above. */
    claim(record: QuestionRecord | undefined, claim: DeliveryClaim): ClaimOutcome {
      const offsetSeconds = reminderOffsetOf(claim.copy);
      if (offsetSeconds !== undefined) {
        const held = reminders.get(claim.id) ?? new Map<string, { claimant: string; leaseUntilMs: number }>();
        const key = `${chatKey(claim.surface, claim.chat)}\n${offsetSeconds}`;
        const outcome = reminderClaimFor(record, held.get(key), { ...claim, offsetSeconds });
        if (outcome.ok) reminders.set(claim.id, held.set(key, { claimant: claim.claimant, leaseUntilMs: outcome.leaseUntilMs }));
        return outcome;
      }
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
      reminders.delete(id);
    },
    clear(): void {
      byQuestion.clear();
      reminders.clear();
    },
  };
}

/** A claim's copy: "prompt" (the question itself) or "reminder:<offsetSeconds>". */
export function reminderOffsetOf(copy: string | undefined): number | undefined {
  const match = /^reminder:([1-9][0-9]*)$/.exec(copy ?? "");
  return match ? Number(match[1]) : undefined;
}

/**
 * The claim rule for a reminder copy: the question is pending, that reminder has fired, this chat has the prompt
 * (a reminder replies to it) and no reminder message for that offset yet; then the first claimant, its renewal, or
 * a takeover once the lease lapsed.
 */
export function reminderClaimFor(
  record: QuestionRecord | undefined,
  held: { claimant: string; leaseUntilMs: number } | undefined,
  claim: DeliveryClaim & { offsetSeconds: number },
): ClaimOutcome {
  if (!record) return { ok: false, reason: "not_found" };
  if (record.status !== "pending" || !(record.remindersSent ?? []).some((r) => r.offsetSeconds === claim.offsetSeconds)) {
    return { ok: false, reason: "not_pending" };
  }
  const sent = (record.reminderCopies ?? []).some((c) => c.surface === claim.surface && c.chat === claim.chat && c.offsetSeconds === claim.offsetSeconds);
  if (sent) return { ok: false, reason: "delivered" };
  if (held && held.claimant !== claim.claimant && held.leaseUntilMs > claim.nowMs) return { ok: false, reason: "claimed", leaseUntilMs: held.leaseUntilMs };
  return { ok: true, leaseUntilMs: claim.nowMs + claim.leaseMs };
}
