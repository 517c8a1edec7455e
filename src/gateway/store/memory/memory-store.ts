import type { QuestionRecord } from "../../../record/record.ts";
import { addDeliveryTo, applyResolution, withVisibleStates } from "../../../record/transitions.ts";
import { nextFollowUpMs } from "../../../record/follow-ups.ts";
import { QuestionExistsError, SessionBusyError } from "../kit/errors.ts";
import { enforceQuota, quotaCheckFor } from "../kit/pending-limits.ts";
import { createClaimTable } from "../kit/claims.ts";
import { compareNewestFirst, compareSoonestExpiry, isBefore, normalizeLimit } from "../kit/reads.ts";
import { createRecordOperations, type RecordCell } from "../kit/record-cell.ts";
import { outboxRowsFor, outboxRowToMessage, settlementColumns, type OutboxRow } from "../kit/outbox.ts";
import type { ListFilter, PendingFilter, QuestionStore, WebhookEvent } from "../kit/types.ts";

/**
 * Stores what a durable store would keep: plain JSON, so `undefined` fields vanish exactly as they do in
 * SQLite's JSON columns, and nothing the caller holds aliases stored state.
 */
function toStored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A session's slot: sessions are per asker, and the admin's records (no askedBy) are a namespace of their own. */
const sessionSlot = (record: QuestionRecord): string => JSON.stringify([record.askedBy ?? null, record.sessionKey]);

/**
 * An in-process store for tests and throwaway gateways. Every result is a copy. A pending index
 * (id → expiresAtMs) keeps expireDue / nextExpiryMs proportional to the pending records only.
 */
export function createMemoryStore(options: { webhookUrls?: readonly string[] } = {}): QuestionStore {
  const webhookUrls = options.webhookUrls ?? [];
  const records = new Map<string, QuestionRecord>();
  const pending = new Map<string, number>();
  /** sessionSlot (askedBy and sessionKey) → the id of its pending record. */
  const pendingSessions = new Map<string, string>();
  /** Pending id → its next reminder or escalation moment (records with one left only). */
  const followUps = new Map<string, number>();
  /** Expired id → its late window's end (records with a window and no late answer yet only). */
  const lateWindows = new Map<string, number>();
  const claims = createClaimTable();
  /** Reply keys taken (`surface\nchat\nmessageRef`) → when. */
  const replyKeys = new Map<string, number>();
  /** sharedSecret's secrets, by name. */
  const secrets = new Map<string, Buffer>();
  const replyKeyText = (key: { surface: string; chat: string; messageRef: string }) => `${key.surface}\n${key.chat}\n${key.messageRef}`;
  /** The webhook outbox: id → its row, the next due moment (undefined once sent or given up), and the claimant. */
  const outbox = new Map<string, { row: OutboxRow; dueAtMs: number | undefined; claimant?: string; doneAtMs?: number; seq: number }>();
  let outboxSeq = 0;
  /** Writes the event's outbox messages with the state change (one step on one thread: the same commit). */
  const addToOutbox = (event: WebhookEvent, record: QuestionRecord): void => {
    for (const row of outboxRowsFor(event, record, webhookUrls)) outbox.set(row.id, { row: { ...row, attempts: 0 }, dueAtMs: 0, seq: outboxSeq++ });
  };
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error("the memory question store is closed");
  };
  const copy = (record: QuestionRecord): QuestionRecord => withVisibleStates(structuredClone(record));

  const put = (record: QuestionRecord): void => {
    records.set(record.id, record);
    const due = nextFollowUpMs(record);
    if (due === undefined) followUps.delete(record.id);
    else followUps.set(record.id, due);
    if (record.status === "expired" && record.lateUntilMs !== undefined && record.lateAnswer === undefined) lateWindows.set(record.id, record.lateUntilMs);
    else lateWindows.delete(record.id);
    if (record.status === "pending") {
      pending.set(record.id, record.expiresAtMs);
      if (record.sessionKey !== undefined) pendingSessions.set(sessionSlot(record), record.id);
    } else {
      pending.delete(record.id);
      claims.forget(record.id);
      if (record.sessionKey !== undefined && pendingSessions.get(sessionSlot(record)) === record.id) pendingSessions.delete(sessionSlot(record));
    }
  };

  const matches = (record: QuestionRecord, filter: ListFilter): boolean =>
    (filter.status === undefined || record.status === filter.status) &&
    (filter.runId === undefined || record.runId === filter.runId) &&
    (filter.sessionKey === undefined || record.sessionKey === filter.sessionKey) &&
    (filter.askedBy === undefined || record.askedBy === filter.askedBy) &&
    (filter.surface === undefined || record.targets.some((t) => t.surface === filter.surface)) &&
    (filter.chat === undefined || record.targets.some((t) => t.chat === filter.chat && (filter.surface === undefined || t.surface === filter.surface))) &&
    (filter.late !== true || record.lateAnswer !== undefined) &&
    (filter.before === undefined || isBefore(record, filter.before));

  /**
   * The primitive: a stored record is never changed in place, so the object itself is its version. Nothing awaits
   * between a load and its store (the kit runs them in one step), so on one thread nothing moves in between.
   */
  const cell: RecordCell<QuestionRecord> = {
    load(id) {
      assertOpen();
      const stored = records.get(id);
      return stored && { record: structuredClone(stored), version: stored };
    },
    storeIfUnchanged(loaded, next, change) {
      assertOpen();
      if (records.get(next.id) !== loaded.version) return undefined;
      const stored = toStored(next);
      put(stored);
      if (change.webhook) addToOutbox(change.webhook, copy(stored));
      return structuredClone(stored);
    },
  };

  const pendingRecords = (): QuestionRecord[] =>
    [...pending.keys()].map((id) => records.get(id)).filter((r): r is QuestionRecord => r !== undefined);

  const countPending = (filter: PendingFilter): number =>
    pendingRecords().filter(
      (r) =>
        (filter.runId === undefined || r.runId === filter.runId) &&
        (filter.askedBy === undefined || r.askedBy === filter.askedBy) &&
        (filter.surface === undefined || r.targets.some((t) => t.surface === filter.surface)),
    ).length;

  // Each method is async, so a throw becomes a rejection, as with the durable stores.
  return {
    ...createRecordOperations(cell),

    // Nothing awaits between the checks and `put`, so on one thread the quota is exact however many creates race.
    async create(record, limits) {
      assertOpen();
      const quota = quotaCheckFor(record, limits);
      if (quota) {
        enforceQuota(quota, {
          run: quota.runId === undefined ? 0 : countPending({ askedBy: quota.askedBy, runId: quota.runId }),
          credential: countPending({ askedBy: quota.askedBy }),
        });
      }
      if (records.has(record.id)) throw new QuestionExistsError(record.id);
      if (record.status === "pending" && record.sessionKey !== undefined && pendingSessions.has(sessionSlot(record))) {
        throw new SessionBusyError(record.sessionKey);
      }
      const stored = toStored(record);
      stored.reminders ??= [];
      const deliveries = stored.deliveries;
      stored.deliveries = [];
      for (const delivery of deliveries) addDeliveryTo(stored.deliveries, delivery);
      put(stored);
    },

    async countPending(filter = {}) {
      assertOpen();
      return countPending(filter);
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
      addToOutbox("question.resolved", copy(resolved));
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
          addToOutbox("question.resolved", copy(expired));
          return copy(expired);
        });
    },

    async nextExpiryMs() {
      assertOpen();
      let next: number | undefined;
      for (const expiresAtMs of pending.values()) if (next === undefined || expiresAtMs < next) next = expiresAtMs;
      return next;
    },

    async followUpsDue(nowMs, limit) {
      assertOpen();
      return [...followUps]
        .filter(([, at]) => at <= nowMs)
        .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, Math.max(0, limit))
        .map(([id]) => copy(records.get(id)!));
    },

    async nextFollowUpMs(lateAfterMs) {
      assertOpen();
      let next: number | undefined;
      for (const at of followUps.values()) if (next === undefined || at < next) next = at;
      for (const at of lateWindows.values()) if (at > lateAfterMs && (next === undefined || at < next)) next = at;
      return next;
    },

    async lateWindowsEnded(afterMs, uptoMs, limit) {
      assertOpen();
      return [...lateWindows]
        .filter(([, at]) => at > afterMs && at <= uptoMs)
        .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, Math.max(0, limit))
        .map(([id]) => copy(records.get(id)!));
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

    async sharedSecret(name, candidate) {
      assertOpen();
      if (!secrets.has(name)) secrets.set(name, Buffer.from(candidate));
      return Buffer.from(secrets.get(name)!);
    },

    async claimWebhooks({ claimant, nowMs, leaseMs, limit, exceptUrls = [] }) {
      assertOpen();
      const due = [...outbox.values()]
        .filter((m) => m.dueAtMs !== undefined && m.dueAtMs <= nowMs && !exceptUrls.includes(m.row.url))
        .sort((a, b) => a.dueAtMs! - b.dueAtMs! || a.seq - b.seq)
        .slice(0, Math.max(0, limit));
      return due.map((m) => {
        m.dueAtMs = nowMs + leaseMs;
        m.claimant = claimant;
        m.row.attempts += 1;
        return outboxRowToMessage(m.row);
      });
    },

    async settleWebhook(id, claimant, settlement) {
      assertOpen();
      const message = outbox.get(id);
      if (!message || message.dueAtMs === undefined || message.claimant !== claimant) return false;
      message.dueAtMs = settlementColumns(settlement).due_at_ms ?? undefined;
      message.claimant = undefined;
      if (message.dueAtMs === undefined) message.doneAtMs = settlement.atMs;
      return true;
    },

    async nextWebhookMs() {
      assertOpen();
      let next: number | undefined;
      for (const { dueAtMs } of outbox.values()) if (dueAtMs !== undefined && (next === undefined || dueAtMs < next)) next = dueAtMs;
      return next;
    },

    async countWebhooks() {
      assertOpen();
      return [...outbox.values()].filter((m) => m.dueAtMs !== undefined).length;
    },

    async pruneWebhooks(doneBeforeMs) {
      assertOpen();
      let pruned = 0;
      for (const [id, m] of outbox) {
        if (m.doneAtMs !== undefined && m.doneAtMs < doneBeforeMs) {
          outbox.delete(id);
          pruned++;
        }
      }
      return pruned;
    },

    async close() {
      closed = true;
      outbox.clear();
      records.clear();
      pending.clear();
      followUps.clear();
      lateWindows.clear();
      pendingSessions.clear();
      claims.clear();
      replyKeys.clear();
    },
  };
}
