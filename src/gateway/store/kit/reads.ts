import type { QuestionRecord } from "../../../record/record.ts";
import type { ListPosition } from "../../../protocol/list-filter.ts";
import { CorruptRecordError } from "./errors.ts";

/**
 * What every store's reads share: lists newest first (createdAtMs DESC, then id DESC), expiries soonest first
 * (expiresAtMs ASC, then id ASC), limits, and corrupt rows skipped.
 */

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
