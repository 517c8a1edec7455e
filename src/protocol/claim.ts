/** What `question.claimDelivery` answers: whether this claimant may send that copy now. */
export type ClaimOutcome =
  /** This claimant may send (a new claim, its own claim renewed, or another's lapsed lease taken over). */
  | { ok: true; leaseUntilMs: number }
  /** Someone else holds a live lease, or the copy is already delivered, or the question is not pending. */
  | { ok: false; reason: "claimed" | "delivered" | "not_pending" | "not_found"; leaseUntilMs?: number };
