import type { QuestionRecord } from "../../../record/record.ts";
import { QuotaExceededError } from "./errors.ts";
import type { PendingLimits } from "./types.ts";

/** The limits one create must check: whose pending records to count, and against what. */
export interface QuotaCheck {
  askedBy: string;
  /** Set with `perRun` only: the record's run. */
  runId?: string;
  perRun?: number;
  perCredential?: number;
}

/** The pending records of one credential, and of those the ones in the record's run (0 without a run). */
export interface PendingCounts {
  run: number;
  credential: number;
}

/**
 * The limits that apply to `record`, or undefined when none does: limits bind only a pending record with an
 * `askedBy` (the admin's records have no quota), and `perRun` only a record with a `runId`. Every store calls
 * this, so the rule is written once.
 */
export function quotaCheckFor(record: QuestionRecord, limits: PendingLimits | undefined): QuotaCheck | undefined {
  if (!limits || record.status !== "pending" || record.askedBy === undefined) return undefined;
  const perRun = record.runId === undefined ? undefined : limits.perRun;
  const { perCredential } = limits;
  if (perRun === undefined && perCredential === undefined) return undefined;
  return {
    askedBy: record.askedBy,
    ...(perRun !== undefined ? { runId: record.runId, perRun } : {}),
    ...(perCredential !== undefined ? { perCredential } : {}),
  };
}

/** Throws QuotaExceededError when a count has reached its limit: the run's quota first, then the credential's. */
export function enforceQuota(check: QuotaCheck, counts: PendingCounts): void {
  const { askedBy, runId, perRun, perCredential } = check;
  if (perRun !== undefined && counts.run >= perRun) {
    throw new QuotaExceededError({ quota: "run", pending: counts.run, max: perRun, ...(runId !== undefined ? { runId } : {}), askedBy });
  }
  if (perCredential !== undefined && counts.credential >= perCredential) {
    throw new QuotaExceededError({ quota: "credential", pending: counts.credential, max: perCredential, askedBy });
  }
}
