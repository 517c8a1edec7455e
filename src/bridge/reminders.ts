import type { Clock, ClockTimer } from "../kernel/clock.ts";
import type { GatewayClient } from "../client/index.ts";
import type { Surface } from "../contract/result.ts";
import { GatewayError } from "../kernel/errors.ts";
import type { Delivery, QuestionRecord, ReminderCopy } from "../record/record.ts";
import { renderReminderDone, renderReminderText } from "../render/index.ts";
// The gateway's rule for a reminder it fires late, applied again by a bot that comes back to one it has not sent.
import { reminderStillUseful } from "../record/reminder-timing.ts";
import type { RecordCache } from "./record-cache.ts";
import { sendRetryDelayMs, type SendRetryPolicy } from "./send-retry.ts";
import { PermanentSendError, type ReminderAdapter } from "./surface-adapter.ts";

/** How many times a failed reminder send, or clean-up, is tried again before the next resync. */
const TRIES_MAX = 5;
/** How soon a report the gateway could not take (STORE_UNAVAILABLE, TIMEOUT) is sent again. */
const REPORT_RETRY_MS = 2_000;
/** Clean-ups remembered as done (the oldest are forgotten first; a repeat costs one refused delete). */
const CLEANED_MAX = 10_000;

export interface ReminderSenderOptions {
  client: GatewayClient;
  surface: Surface;
  reminders: ReminderAdapter;
  cache: RecordCache;
  claimant: string;
  claimLeaseMs: number;
  clock: Clock;
  log: (message: string, error?: unknown) => void;
  sendRetry: SendRetryPolicy;
  /** A reminder went out: a reply to it is a reply to its question. */
  onSent?: (note: { chat: string; questionId: string; messageRef: string }) => void;
}

const isTransient = (error: unknown): boolean => error instanceof GatewayError && (error.code === "STORE_UNAVAILABLE" || error.code === "TIMEOUT");
const sameCopy = (a: Pick<ReminderCopy, "surface" | "chat" | "offsetSeconds">, b: Pick<ReminderCopy, "surface" | "chat" | "offsetSeconds">) =>
  a.surface === b.surface && a.chat === b.chat && a.offsetSeconds === b.offsetSeconds;

/**
 * Reminders (issue 20 §1): when the gateway fires one (question.reminded), or a resync finds one this bot's copies
 * never got, each copy that existed when it fired gets one reply to its prompt, claimed at the gateway first
 * (`copy: "reminder:<offset>"`) so that exactly one bot sends it, and reported with question.reminderSent. Only the
 * latest reminder is sent: a person never gets two at once. Once the question resolves, each reminder is deleted, or
 * edited to a short line where the platform refuses the delete.
 */
export function createReminderSender(options: ReminderSenderOptions) {
  const { client, surface, reminders, cache, claimant, claimLeaseMs, clock, log, sendRetry } = options;
  const now = () => clock.now();
  /** Reminders this process sent, until cleaned up: known before (and whether or not) the gateway records them. */
  const sent = new Map<string, { id: string; copy: ReminderCopy; reported: boolean }>();
  const inFlight = new Set<string>();
  const attempts = new Map<string, number>();
  const cleaning = new Set<string>();
  const cleaned = new Set<string>();
  const timers = new Set<ClockTimer>();
  const keyOf = (id: string, chat: string, offsetSeconds: number) => `${id}\u0000${chat}\u0000${offsetSeconds}`;

  function later(ms: number, run: () => void): void {
    const timer = clock.setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timer.unref?.();
    timers.add(timer);
  }

  /** The copies this bot sent reminders for: the record's and this process's own. */
  function copiesOf(record: QuestionRecord): ReminderCopy[] {
    const recorded = (record.reminderCopies ?? []).filter((c) => c.surface === surface);
    const mine = [...sent.values()].filter((s) => s.id === record.id && !recorded.some((c) => sameCopy(c, s.copy))).map((s) => s.copy);
    return [...recorded, ...mine];
  }

  /** Sends the latest fired reminder to every copy of this surface that existed when it fired and has not had it. */
  function remind(record: QuestionRecord): void {
    const latest = cache.get(record.id) ?? record;
    if (record.status !== "pending" || latest.status !== "pending") return;
    const fired = record.remindersSent?.at(-1);
    if (!fired || !reminderStillUseful(record, fired.offsetSeconds, now())) return;
    const had = [...(record.reminderCopies ?? []), ...(latest.reminderCopies ?? [])];
    for (const delivery of latest.deliveries) {
      if (delivery.surface !== surface || delivery.deliveredAtMs > fired.atMs) continue;
      if (had.some((c) => sameCopy(c, { surface, chat: delivery.chat, offsetSeconds: fired.offsetSeconds }))) continue;
      void remindCopy(record.id, delivery, fired.offsetSeconds);
    }
  }

  async function remindCopy(id: string, delivery: Delivery, offsetSeconds: number): Promise<void> {
    const key = keyOf(id, delivery.chat, offsetSeconds);
    if (inFlight.has(key) || sent.has(key)) return;
    inFlight.add(key);
    try {
      let outcome;
      try {
        outcome = await client.claimDelivery({ id, surface, chat: delivery.chat, claimant, leaseMs: claimLeaseMs, copy: `reminder:${offsetSeconds}` });
      } catch (error) {
        log(`could not claim the reminder of ${id} for ${surface}:${delivery.chat}`, error);
        if (isTransient(error)) retry(id, key, REPORT_RETRY_MS);
        return; // the link dropped: the resync after the reconnect looks again
      }
      if (!outcome.ok) {
        // Another bot holds it: look again once its lease lapses (it may have died mid-send).
        if (outcome.reason === "claimed" && outcome.leaseUntilMs !== undefined) retry(id, key, Math.max(0, outcome.leaseUntilMs - now()) + 250);
        return;
      }
      const record = cache.get(id);
      if (!record || record.status !== "pending") return;
      let messageRef: string;
      try {
        messageRef = await reminders.send(delivery, renderReminderText(record, now()));
      } catch (error) {
        log(`could not send the reminder of ${id} to ${surface}:${delivery.chat}`, error);
        if (error instanceof PermanentSendError) return; // the chat takes no more messages (the bot was blocked)
        const attempt = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, attempt);
        if (attempt <= TRIES_MAX) retry(id, key, sendRetryDelayMs(attempt, sendRetry));
        else attempts.delete(key);
        return;
      }
      attempts.delete(key);
      sent.set(key, { id, reported: false, copy: { surface, chat: delivery.chat, offsetSeconds, messageRef, sentAtMs: now() } });
      options.onSent?.({ chat: delivery.chat, questionId: id, messageRef });
      await report(key);
    } finally {
      inFlight.delete(key);
    }
    // Resolved while it was on its way (its clean-up skipped it then): clean it up now.
    const after = cache.get(id);
    if (sent.has(key) && after && after.status !== "pending") void cleanUp(after);
  }

  /** Looks at one copy's reminder again after `ms`, with the record as it is then. */
  function retry(id: string, key: string, ms: number): void {
    later(ms, () => {
      const record = cache.get(id);
      const chat = key.split("\u0000")[1];
      const delivery = record?.deliveries.find((d) => d.surface === surface && d.chat === chat);
      const offsetSeconds = Number(key.split("\u0000")[2]);
      if (!record || !delivery || record.status !== "pending" || !reminderStillUseful(record, offsetSeconds, now())) return void attempts.delete(key);
      if ((record.reminderCopies ?? []).some((c) => sameCopy(c, { surface, chat: delivery.chat, offsetSeconds }))) return;
      void remindCopy(id, delivery, offsetSeconds);
    });
  }

  /** Reports one sent reminder; kept for the next flush when the gateway cannot take it now. */
  async function report(key: string): Promise<void> {
    const entry = sent.get(key);
    if (!entry || entry.reported) return;
    const { id, copy } = entry;
    try {
      cache.put(await client.reminderSent({ id, surface, chat: copy.chat, offsetSeconds: copy.offsetSeconds, messageRef: copy.messageRef }));
      entry.reported = true;
    } catch (error) {
      if (error instanceof GatewayError && error.code === "DISCONNECTED") return; // flushed after the reconnect
      if (isTransient(error)) return void later(REPORT_RETRY_MS, () => void report(key));
      entry.reported = true; // refused (the question is gone): nothing to retry
      log(`the reminder of ${id} in ${surface}:${copy.chat} was not recorded`, error);
    }
  }

  /** Once a question resolved: each of its reminders is deleted, or edited to a short line where it cannot be. */
  async function cleanUp(record: QuestionRecord): Promise<void> {
    if (record.status === "pending") return;
    await Promise.all(
      copiesOf(record).map(async (copy) => {
        const key = keyOf(record.id, copy.chat, copy.offsetSeconds);
        if (cleaned.has(key) || cleaning.has(key) || inFlight.has(key)) return;
        cleaning.add(key);
        try {
          if (!(await reminders.delete(copy))) await reminders.edit(copy, renderReminderDone(record, now()));
          attempts.delete(key);
          sent.delete(key);
          cleaned.add(key);
          if (cleaned.size > CLEANED_MAX) cleaned.delete(cleaned.values().next().value!);
        } catch (error) {
          log(`could not clean up the reminder of ${record.id} in ${surface}:${copy.chat}`, error);
          const attempt = (attempts.get(key) ?? 0) + 1;
          attempts.set(key, attempt);
          if (attempt <= TRIES_MAX) later(sendRetryDelayMs(attempt, sendRetry), () => void cleanUp(cache.get(record.id) ?? record));
          else attempts.delete(key);
        } finally {
          cleaning.delete(key);
        }
      }),
    );
  }

  return {
    remind,
    cleanUp,
    /** After a reconnect: reports that did not reach the gateway go again. */
    async flush(): Promise<void> {
      for (const key of [...sent.keys()]) await report(key);
    },
    /** Stops retrying; returns the reminders whose sends are in flight now (their claims are handed back). */
    stop(): Array<{ id: string; chat: string; copy: string }> {
      for (const timer of timers) clock.clearTimeout(timer);
      timers.clear();
      return [...inFlight].map((key) => {
        const [id, chat, offsetSeconds] = key.split("\u0000");
        return { id: id!, chat: chat!, copy: `reminder:${offsetSeconds}` };
      });
    },
  };
}

export type ReminderSender = ReturnType<typeof createReminderSender>;
