import type { QuestionRecord } from "../../record.ts";
import { QuestionExistsError } from "./errors.ts";
import {
  addDeliveryTo,
  applyResolution,
  compareNewestFirst,
  compareSoonestExpiry,
  normalizeLimit,
} from "./record-ops.ts";
import type { ListFilter, QuestionStore } from "./types.ts";

/**
 * Stores what a durable store would keep: plain JSON, so `undefined` fields vanish exactly as they do in
 * SQLite's JSON columns, and nothing the caller holds aliases stored state.
 */
function toStored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * An in-process store for tests and throwaway gateways. Every result is a copy. A pending index
 * (id → expiresAtMs) keeps findExpired / nextExpiryMs proportional to the pending records only.
 */
export function createMemoryStore(): QuestionStore {
  const records = new Map<string, QuestionRecord>();
  const pending = new Map<string, number>();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error("the memory question store is closed");
  };
  const copy = (record: QuestionRecord): QuestionRecord => structuredClone(record);

  const put = (record: QuestionRecord): void => {
    records.set(record.id, record);
    if (record.status === "pending") pending.set(record.id, record.expiresAtMs);
    else pending.delete(record.id);
  };

  const matches = (record: QuestionRecord, filter: ListFilter): boolean =>
    (filter.status === undefined || record.status === filter.status) &&
    (filter.runId === undefined || record.runId === filter.runId) &&
    (filter.sessionKey === undefined || record.sessionKey === filter.sessionKey) &&
    (filter.surface === undefined || record.targets.some((t) => t.surface === filter.surface)) &&
    (filter.chat === undefined || record.targets.some((t) => t.chat === filter.chat && (filter.surface === undefined || t.surface === filter.surface)));

  const pendingRecords = (): QuestionRecord[] =>
    [...pending.keys()].map((id) => records.get(id)).filter((r): r is QuestionRecord => r !== undefined);

  return {
    create(record) {
      assertOpen();
      if (records.has(record.id)) throw new QuestionExistsError(record.id);
      const stored = toStored(record);
      const deliveries = stored.deliveries;
      stored.deliveries = [];
      for (const delivery of deliveries) addDeliveryTo(stored.deliveries, delivery);
      put(stored);
    },

    get(id) {
      assertOpen();
      const record = records.get(id);
      return record && copy(record);
    },

    list(filter = {}) {
      assertOpen();
      const source = filter.status === "pending" ? pendingRecords() : [...records.values()];
      const found = source.filter((r) => matches(r, filter)).sort(compareNewestFirst);
      const limit = normalizeLimit(filter.limit);
      return (limit === undefined ? found : found.slice(0, limit)).map(copy);
    },

    resolve(id, resolution) {
      assertOpen();
      const record = records.get(id);
      if (!record) return { ok: false, code: "QUESTION_NOT_FOUND" };
      if (record.status !== "pending") return { ok: false, code: "QUESTION_ALREADY_TERMINAL", record: copy(record) };
      const resolved = toStored(applyResolution(record, resolution));
      put(resolved);
      return { ok: true, record: copy(resolved) };
    },

    addDelivery(id, delivery) {
      assertOpen();
      const record = records.get(id);
      if (!record) return undefined;
      addDeliveryTo(record.deliveries, toStored(delivery));
      return copy(record);
    },

    savePartial(id, answers) {
      assertOpen();
      const record = records.get(id);
      if (!record) return undefined;
      if (record.status === "pending") record.partialAnswers = structuredClone(answers);
      return copy(record);
    },

    findExpired(nowMs) {
      assertOpen();
      const expired: QuestionRecord[] = [];
      for (const [id, expiresAtMs] of pending) {
        const record = expiresAtMs <= nowMs ? records.get(id) : undefined;
        if (record) expired.push(record);
      }
      return expired.sort(compareSoonestExpiry).map(copy);
    },

    pendingAwaitingDelivery() {
      assertOpen();
      return pendingRecords()
        .filter((r) => r.deliveries.length === 0 && r.targets.every((t) => t.surface !== "web"))
        .sort((a, b) => compareNewestFirst(b, a))
        .map(copy);
    },

    nextExpiryMs() {
      assertOpen();
      let next: number | undefined;
      for (const expiresAtMs of pending.values()) if (next === undefined || expiresAtMs < next) next = expiresAtMs;
      return next;
    },

    close() {
      closed = true;
      records.clear();
      pending.clear();
    },
  };
}
