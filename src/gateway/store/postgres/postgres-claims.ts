import type { QuestionRecord } from "../../../record/record.ts";
import { reminderClaimFor, reminderOffsetOf } from "../kit/claims.ts";
import type { ClaimOutcome, DeliveryClaim, HeldClaim, QuestionStore } from "../kit/types.ts";
import type { PostgresStatements } from "./postgres-pool.ts";

/**
 * The PostgreSQL store's delivery claims, held in the database so that every instance sees them: a prompt's claim
 * in one statement (the rule of kit/claims.ts restated in SQL), a reminder copy's after the kit's check.
 */
export function createPostgresClaims(
  { query }: PostgresStatements,
  get: (id: string) => Promise<QuestionRecord | undefined>,
): Pick<QuestionStore, "claimDelivery" | "liveClaims"> {
  async function claimReminderCopy(claim: DeliveryClaim, offsetSeconds: number): Promise<ClaimOutcome> {
    const checked = reminderClaimFor(await get(claim.id), undefined, { ...claim, offsetSeconds });
    if (!checked.ok) return checked;
    const leaseUntilMs = claim.nowMs + claim.leaseMs;
    const [row] = await query<{ claimant: string; lease_until_ms: number }>(
      "claimDelivery",
      true,
      `INSERT INTO reminder_claims AS c (question_id, surface, chat, offset_seconds, claimant, lease_until_ms)
       VALUES ($1, $2, $3, $4::bigint, $5, $7::bigint)
       ON CONFLICT (question_id, surface, chat, offset_seconds) DO UPDATE SET
         claimant = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $6::bigint THEN EXCLUDED.claimant ELSE c.claimant END,
         lease_until_ms = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $6::bigint
                               THEN EXCLUDED.lease_until_ms ELSE c.lease_until_ms END
       RETURNING c.claimant, c.lease_until_ms`,
      [claim.id, claim.surface, claim.chat, offsetSeconds, claim.claimant, claim.nowMs, leaseUntilMs],
    );
    if (row?.claimant === claim.claimant) return { ok: true, leaseUntilMs };
    return { ok: false, reason: "claimed", ...(row ? { leaseUntilMs: row.lease_until_ms } : {}) };
  }

  return {
    async claimDelivery(claim): Promise<ClaimOutcome> {
      const offsetSeconds = reminderOffsetOf(claim.copy);
      if (offsetSeconds !== undefined) return claimReminderCopy(claim, offsetSeconds);
      const leaseUntilMs = claim.nowMs + claim.leaseMs;
      // FOR SHARE holds off a concurrent resolution until this claim commits, so a claim is never granted on a
      // question that was resolved before it. The upsert keeps a live lease held by someone else (and returns it).
      const [row] = await query<{ status: string | null; delivered: boolean; claimant: string | null; lease_until_ms: number | null }>(
        "claimDelivery",
        true,
        `WITH q AS MATERIALIZED (SELECT status FROM questions WHERE id = $1 FOR SHARE),
         delivered AS MATERIALIZED (SELECT 1 FROM deliveries WHERE question_id = $1 AND surface = $2 AND chat = $3),
         claim AS (
           INSERT INTO delivery_claims AS c (question_id, surface, chat, claimant, lease_until_ms, claimed_at_ms)
           SELECT $1, $2, $3, $4, $6::bigint, $5::bigint
           WHERE EXISTS (SELECT 1 FROM q WHERE status = 'pending') AND NOT EXISTS (SELECT 1 FROM delivered)
           ON CONFLICT (question_id, surface, chat) DO UPDATE SET
             claimant = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $5::bigint THEN EXCLUDED.claimant ELSE c.claimant END,
             lease_until_ms = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $5::bigint
                                   THEN EXCLUDED.lease_until_ms ELSE c.lease_until_ms END,
             claimed_at_ms = CASE WHEN c.claimant = EXCLUDED.claimant OR c.lease_until_ms <= $5::bigint
                                  THEN EXCLUDED.claimed_at_ms ELSE c.claimed_at_ms END
           RETURNING c.claimant, c.lease_until_ms
         )
         SELECT (SELECT status FROM q) AS status, EXISTS (SELECT 1 FROM delivered) AS delivered,
                (SELECT claimant FROM claim) AS claimant, (SELECT lease_until_ms FROM claim) AS lease_until_ms`,
        [claim.id, claim.surface, claim.chat, claim.claimant, claim.nowMs, leaseUntilMs],
      );
      if (!row || row.status === null) return { ok: false, reason: "not_found" };
      if (row.status !== "pending") return { ok: false, reason: "not_pending" };
      if (row.delivered) return { ok: false, reason: "delivered" };
      if (row.claimant === claim.claimant) return { ok: true, leaseUntilMs };
      return row.lease_until_ms === null ? { ok: false, reason: "claimed" } : { ok: false, reason: "claimed", leaseUntilMs: row.lease_until_ms };
    },

    async liveClaims(id, nowMs): Promise<HeldClaim[]> {
      const rows = await query<{ surface: string; chat: string; claimant: string; claimed_at_ms: number; lease_until_ms: number }>(
        "liveClaims",
        false,
        `SELECT c.surface, c.chat, c.claimant, COALESCE(c.claimed_at_ms, 0) AS claimed_at_ms, c.lease_until_ms
         FROM delivery_claims c
         WHERE c.question_id = $1 AND c.lease_until_ms > $2::bigint
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.question_id = c.question_id AND d.surface = c.surface AND d.chat = c.chat)
         ORDER BY c.surface, c.chat`,
        [id, nowMs],
      );
      return rows.map((r) => ({ surface: r.surface, chat: r.chat, claimant: r.claimant, claimedAtMs: r.claimed_at_ms, leaseUntilMs: r.lease_until_ms }));
    },

  };
}
