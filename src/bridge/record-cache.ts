import type { Surface } from "../contract/result.ts";
import type { Delivery, QuestionRecord } from "../record/record.ts";
import { acceptsLateAnswer } from "../record/late-window.ts";
import { isStaleCopy } from "../record/freshness.ts";

const KEEP_TERMINAL_MS = 2 * 60 * 60_000;

/** The bot's view of the records that concern it, kept fresh from gateway events. */
export function createRecordCache(now: () => number = Date.now) {
  const records = new Map<string, QuestionRecord>();
  /**
   * Copies this bot sent, by question: kept for the process's life and merged into every record put here, so the bot
   * knows its own prompts before (and regardless of) the gateway recording them, even when an older record arrives.
   */
  const sent = new Map<string, Delivery[]>();

  function prune(): void {
    const cutoff = now() - KEEP_TERMINAL_MS;
    for (const [id, r] of records) {
      // An expired question still taking a late answer is kept: a typed reply to its prompt is that answer.
      if (r.status !== "pending" && (r.resolvedAtMs ?? 0) < cutoff && !acceptsLateAnswer(r, now())) {
        records.delete(id);
        sent.delete(id);
      }
    }
  }

  function withSent(record: QuestionRecord): QuestionRecord {
    const mine = sent.get(record.id);
    const missing = mine?.filter((d) => !record.deliveries.some((x) => x.surface === d.surface && x.chat === d.chat));
    return missing?.length ? { ...record, deliveries: [...record.deliveries, ...missing] } : record;
  }

  /** The record delivered to that chat that passes `keep` with the highest `order`. */
  function latestIn(surface: Surface, chat: string, keep: (r: QuestionRecord) => boolean, order: (r: QuestionRecord) => number): QuestionRecord | undefined {
    let best: QuestionRecord | undefined;
    for (const r of records.values()) {
      if ((best && order(r) <= order(best)) || !r.deliveries.some((d) => d.surface === surface && d.chat === chat)) continue;
      if (keep(r)) best = r;
    }
    return best;
  }

  return {
    put(record: QuestionRecord): void {
      const known = records.get(record.id);
      if (isStaleCopy(known, record)) return;
      // Events and responses can cross: an expired record read before its late answer never hides it.
      if (known?.lateAnswer && !record.lateAnswer) return;
      records.set(record.id, withSent(record));
      if (records.size % 500 === 0) prune();
    },
    /** This bot sent a copy: known from now on, whatever the gateway's records say yet. */
    addSent(id: string, delivery: Delivery): void {
      sent.set(id, [...(sent.get(id) ?? []), delivery]);
      const known = records.get(id);
      if (known) records.set(id, withSent(known));
    },
    /** The platform refused a copy this bot sent (after taking it): no longer known as sent, nor as the record's. */
    dropSent(id: string, surface: Surface, chat: string, messageRef: string): void {
      const gone = (d: Delivery) => d.surface === surface && d.chat === chat && d.messageRef === messageRef;
      const mine = sent.get(id)?.filter((d) => !gone(d));
      if (mine) sent.set(id, mine);
      const known = records.get(id);
      if (known) records.set(id, { ...known, deliveries: known.deliveries.filter((d) => !gone(d)) });
    },
    /** A copy now shows `rendered` (a fingerprint): the cached record and this bot's own copies say so from now on. */
    setRendered(id: string, surface: Surface, chat: string, rendered: string): void {
      const mark = (deliveries: Delivery[]) => deliveries.map((d) => (d.surface === surface && d.chat === chat ? { ...d, rendered } : d));
      const mine = sent.get(id);
      if (mine) sent.set(id, mark(mine));
      const known = records.get(id);
      if (known) records.set(id, { ...known, deliveries: mark(known.deliveries) });
    },
    get: (id: string) => records.get(id),
    /** The record whose prompt, or one of whose reminders (a reply to the prompt), is that message in that chat. */
    byMessageRef(surface: Surface, chat: string, messageRef: string): QuestionRecord | undefined {
      const here = (c: { surface: Surface; chat: string; messageRef: string }) => c.surface === surface && c.chat === chat && c.messageRef === messageRef;
      for (const r of records.values()) {
        if (r.deliveries.some(here) || r.reminderCopies?.some(here)) return r;
      }
      return undefined;
    },
    /** The most recent pending question delivered to that chat that passes `admit`. */
    latestPendingIn: (surface: Surface, chat: string, admit: (r: QuestionRecord) => boolean): QuestionRecord | undefined =>
      latestIn(surface, chat, (r) => r.status === "pending" && admit(r), (r) => r.createdAtMs),
    /**
     * The most recent expired question delivered to that chat that still takes a late answer (at `nowMs`) and passes
     * `admit`: a direct message that answers no pending question may answer it.
     */
    latestLateIn: (surface: Surface, chat: string, nowMs: number, admit: (r: QuestionRecord) => boolean): QuestionRecord | undefined =>
      latestIn(surface, chat, (r) => acceptsLateAnswer(r, nowMs) && admit(r), (r) => r.expiresAtMs),
    size: () => records.size,
  };
}

export type RecordCache = ReturnType<typeof createRecordCache>;
