import type { QuestionRecord } from "../../record.ts";
import { QuestionExistsError, SessionBusyError } from "./errors.ts";
import {
  addDeliveryTo,
  applyResolution,
  compareNewestFirst,
  compareSoonestExpiry,
  createClaimTable,
  isBefore,
  mergeTargetState,
  normalizeLimit,
  withVisibleStates,
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
 * (id → expiresAtMs) keeps expireDue / nextExpiryMs proportional to the pending records only.
 */
export function createMemoryStore(): QuestionStore {
  const records = new Map<string, QuestionRecord>();
  const pending = new Map<string, number>();
  /** sessionKey → the id of its pending record. */
  const pendingSessions = new Map<string, string>();
  const claims = createClaimTable();
  /** Reply keys taken (`surface\nchat\nmessageRef`) → when. */
  const replyKeys = new Map<string, number>();
  const replyKeyText = (key: { surface: string; chat: string; messageRef: string }) => `${key.surface}\n${key.chat}\n${key.messageRef}`;
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error("the memory question store is closed");
  };
  const copy = (record: QuestionRecord): QuestionRecord => withVisibleStates(structuredClone(record));

  const put = (record: QuestionRecord): void => {
    records.set(record.id, record);
    if (record.status === "pending") {
      pending.set(record.id, record.expiresAtMs);
      if (record.sessionKey !== undefined) pendingSessions.set(record.sessionKey, record.id);
    } else {
      pending.delete(record.id);
      claims.forget(record.id);
      if (record.sessionKey !== undefined && pendingSessions.get(record.sessionKey) === record.id) pendingSessions.delete(record.sessionKey);
    }
  };

  const matches = (record: QuestionRecord, filter: ListFilter): boolean =>
    (filter.status === undefined || record.status === filter.status) &&
    (filter.runId === undefined || record.runId === filter.runId) &&
    (filter.sessionKey === undefined || record.sessionKey === filter.sessionKey) &&
    (filter.askedBy === undefined || record.askedBy === filter.askedBy) &&
    (filter.surface === undefined || record.targets.some((t) => t.surface === filter.surface)) &&
    (filter.chat === undefined || record.targets.some((t) => t.chat === filter.chat && (filter.surface === undefined || t.surface === filter.surface))) &&
    (filter.before === undefined || isBefore(record, filter.before));

  const pendingRecords = (): QuestionRecord[] =>
    [...pending.keys()].map((id) => records.get(id)).filter((r): r is QuestionRecord => r !== undefined);

  // Each method is async, so a throw becomes a rejection, as with the durable stores.
  return {
    async create(record) {
      assertOpen();
      if (records.has(record.id)) throw new QuestionExistsError(record.id);
      if (record.status === "pending" && record.sessionKey !== undefined && pendingSessions.has(record.sessionKey)) {
        throw new SessionBusyError(record.sessionKey);
      }
      const stored = toStored(record);
      const deliveries = stored.deliveries;
      stored.deliveries = [];
      for (const delivery of deliveries) addDeliveryTo(stored.deliveries, delivery);
      put(stored);
    },

    async get(id) {
      assertOpen();
      const record = records.get(id);
      return record && copy(record);
    },

    async list(filter = {}) {
      assertOpen();
      const source = filter.status === "pending" ? pendingRecords() : [...records.values()];
      const found = source.filter((r) => matches(r, filter)).sort(compareNewestFirst);
      const limit = normalizeLimit(filter.limit);
      return (limit === undefined ? found : found.slice(0, limit)).map(copy);
    },

    async resolve(id, resolution) {
      assertOpen();
      const record = records.get(id);
      if (!record) return { ok: false, code: "QUESTION_NOT_FOUND" };
      if (record.status !== "pending") return { ok: false, code: "QUESTION_ALREADY_TERMINAL", record: copy(record) };
      const resolved = toStored(applyResolution(record, resolution));
      put(resolved);
      return { ok: true, record: copy(resolved) };
    },

    async expireDue(nowMs, limit) {
      assertOpen();
      const due: QuestionRecord[] = [];
      for (const [id, expiresAtMs] of pending) {
        const record = expiresAtMs <= nowMs ? records.get(id) : undefined;
        if (record) due.push(record);
      }
      return due
        .sort(compareSoonestExpiry)
        .slice(0, Math.max(0, limit))
        .map((record) => {
          const expired = applyResolution(record, { status: "expired", reason: "expired", resolvedAtMs: nowMs });
          put(expired);
          return copy(expired);
        });
    },

    async nextExpiryMs() {
      assertOpen();
      let next: number | undefined;
      for (const expiresAtMs of pending.values()) if (next === undefined || expiresAtMs < next) next = expiresAtMs;
      return next;
    },

    async addDelivery(id, delivery) {
      assertOpen();
      const record = records.get(id);
      if (!record) return undefined;
      addDeliveryTo(record.deliveries, toStored(delivery));
      return copy(record);
    },

    async mergePartial(id, answers) {
      assertOpen();
      const record = records.get(id);
      if (!record) return undefined;
      if (record.status === "pending") record.partialAnswers = { ...record.partialAnswers, ...structuredClone(answers) };
      return copy(record);
    },

    async pendingAwaitingDelivery() {
      assertOpen();
      return pendingRecords()
        .filter((r) => r.deliveries.length === 0 && r.targets.every((t) => t.surface !== "web"))
        .sort((a, b) => compareNewestFirst(b, a))
        .map(copy);
    },

    async claimDelivery(claim) {
      assertOpen();
      return claims.claim(records.get(claim.id), claim);
    },

    async liveClaims(id, nowMs) {
      assertOpen();
      return claims.live(records.get(id), nowMs);
    },

    async setTargetState(id, state) {
      assertOpen();
      const record = records.get(id);
      if (!record) return undefined;
      const merged = mergeTargetState(record.targetStates ?? [], toStored(state));
      if (merged) record.targetStates = merged;
      return copy(record);
    },

    async setRendered(id, surface, chat, rendered) {
      assertOpen();
      const record = records.get(id);
      if (!record) return undefined;
      const delivery = record.deliveries.find((d) => d.surface === surface && d.chat === chat);
      if (delivery) delivery.rendered = rendered;
      return copy(record);
    },

    async markReplySeen(key, atMs) {
      assertOpen();
      const text = replyKeyText(key);
      if (replyKeys.has(text)) return false;
      replyKeys.set(text, atMs);
      return true;
    },

    async unmarkReplySeen(key) {
      assertOpen();
      replyKeys.delete(replyKeyText(key));
    },

    async pruneRepliesSeen(beforeMs) {
      assertOpen();
      let pruned = 0;
      for (const [text, atMs] of replyKeys) {
        if (atMs < beforeMs) {
          replyKeys.delete(text);
          pruned++;
        }
      }
      return pruned;
    },

    async close() {
      closed = true;
      records.clear();
      pending.clear();
      pendingSessions.clear();
      claims.clear();
      replyKeys.clear();
    },
  };
}
