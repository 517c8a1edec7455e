import { randomBytes } from "node:crypto";
import type { GatewayClient } from "../client/index.ts";
import { clockSleep, realClock, type Clock, type ClockTimer } from "../kernel/clock.ts";
import { GatewayError } from "../kernel/errors.ts";
import type { QuestionRecord } from "../record/record.ts";
import { createClaimKeeper } from "./claim-keeper.ts";
import { acceptsLateAnswer } from "../record/late-window.ts";
import { createCopySettler } from "./settle-copies.ts";
import { createCopyEditor } from "./copy-editor.ts";
import { renderedFingerprint } from "./copy-fingerprint.ts";
import { createReminderSender } from "./reminders.ts";
import type { RecordCache } from "./record-cache.ts";
import { PermanentSendError, WaitingSendError, type SurfaceAdapter } from "./surface-adapter.ts";
import { SEND_RETRY, sendFailureReason, sendRetryDelayMs, type SendRetryPolicy } from "./send-retry.ts";

export { PermanentSendError, WaitingSendError, type SurfaceAdapter } from "./surface-adapter.ts";

export interface DeliveryLoopOptions {
  client: GatewayClient;
  adapter: SurfaceAdapter;
  cache: RecordCache;
  /** Time and timers (send retries, reminders, late windows, claim renewal); default the real clock. */
  clock?: Clock;
  log?: (message: string, error?: unknown) => void;
  /** This bot process in delivery claims; default: the surface and a random id. */
  claimant?: string;
  /** How long a claim holds before another bot may take the copy over (default 60 s). */
  claimLeaseMs?: number;
  /** How a send that failed for a passing reason is tried again (default 1 s, 2 s, 4 s … up to 60 s). */
  sendRetry?: SendRetryPolicy;
  /** A reminder went out: a reply to it is a reply to its question. */
  onReminderSent?: (note: { chat: string; questionId: string; messageRef: string }) => void;
}

/** After a reconnect, copies of up to this many recent questions are checked for a missed resolution. */
const RECENT_MAX = 1000;
const RECENT_PAGE = 250;

/** A claim handed back on stop lapses this soon (the protocol's shortest lease). */
const HAND_BACK_LEASE_MS = 1_000;

/** How soon a claim or report the gateway could not take (STORE_UNAVAILABLE, TIMEOUT) is tried again. */
const RETRY_AFTER_STORE_ERROR_MS = 2_000;

/**
 * Whether a resolved record may have changed since `sinceMs`: it resolved then, a late answer came then, or its late
 * window ended then or is still open (its copies are checked, which costs nothing when they are up to date, and the
 * window's end is watched). Its copies may be behind.
 */
function changedSince(record: QuestionRecord, sinceMs: number): boolean {
  return (record.resolvedAtMs ?? 0) >= sinceMs || (record.lateUntilMs ?? 0) >= sinceMs || (record.lateAnswer?.atMs ?? 0) >= sinceMs;
}

/** A failure with the link up that a later try may get past. */
const isTransient = (error: unknown): boolean => error instanceof GatewayError && (error.code === "STORE_UNAVAILABLE" || error.code === "TIMEOUT");

/** What a claim says: send now, skip (delivered, resolved, or the link dropped), or look again when another bot's lease lapses. */
type ClaimVerdict = "send" | "skip" | { retryAtMs: number };

/**
 * Delivers every pending question targeted at this surface exactly once per chat, reports each copy with
 * question.delivered, and edits every copy when a question resolves. Runs at start-up, after every reconnect
 * (resync) and on question.requested. Each send is claimed at the gateway first, so with several bot processes
 * for one platform exactly one sends each copy; a claim whose bot dies lapses, and another bot then sends it.
 */
export function createDeliveryLoop({ client, adapter, cache, clock = realClock, log = () => {}, ...options }: DeliveryLoopOptions) {
  const now = () => clock.now();
  const { surface } = adapter;
  const claimant = options.claimant ?? `${surface}-${randomBytes(6).toString("hex")}`;
  const claimLeaseMs = options.claimLeaseMs ?? 60_000;
  const sendRetry = options.sendRetry ?? SEND_RETRY;
  /** Failed tries so far of each copy still to send (a successful send forgets it). */
  const attempts = new Map<string, number>();
  const keeper = createClaimKeeper({
    leaseMs: claimLeaseMs,
    clock,
    renew: (id, chat) => client.claimDelivery({ id, surface, chat, claimant, leaseMs: claimLeaseMs }),
  });
  const fingerprintOf = (record: QuestionRecord, chat: string, nowMs = now()): string | undefined =>
    adapter.renderedOf ? renderedFingerprint(adapter.renderedOf(record, chat, nowMs)) : undefined;
  const { updateCopies } = createCopyEditor({ client, adapter, cache, log, sendRetry, clock, fingerprintOf, onSettled: () => keeper.progressed() });
  const reminders = adapter.reminders
    ? createReminderSender({ client, surface, reminders: adapter.reminders, cache, claimant, claimLeaseMs, clock, log, sendRetry, ...(options.onReminderSent ? { onSent: options.onReminderSent } : {}) })
    : undefined;
  const copiesBehind = (record: QuestionRecord): boolean =>
    record.deliveries.some((d) => d.surface === surface && (!d.rendered || d.rendered !== fingerprintOf(record, d.chat)));
  const { settle, stop: stopSettling } = createCopySettler({ cache, clock, updateCopies, copiesBehind, ...(reminders ? { reminders } : {}) });
  /** Copies another bot holds: looked at again when its lease lapses. */
  const retries = new Map<string, ClockTimer>();
  const inFlight = new Set<string>();
  /** Sends whose question.delivered report has not reached the gateway yet (it was down): re-sent first. */
  const unreported = new Map<string, { id: string; chat: string; messageRef: string; rendered?: string }>();
  let disconnectedAtMs: number | undefined;
  let firstSync = true;

  /** A report the gateway could not take just now (its database is down, or it timed out) is sent again shortly. */
  let flushTimer: ClockTimer | undefined;
  function flushLater(): void {
    if (flushTimer) return;
    flushTimer = clock.setTimeout(() => {
      flushTimer = undefined;
      void flushReports();
    }, RETRY_AFTER_STORE_ERROR_MS);
    flushTimer.unref?.();
  }

  /** Reports being sent now: each report goes once at a time, however many flushes run. */
  const reporting = new Map<string, Promise<boolean>>();
  /** Copies the platform took and then refused for good, whose report has not reached the gateway yet. */
  const refusals = new Map<string, { id: string; chat: string; messageRef: string; reason: string }>();
  const refusing = new Set<string>();

  /** Reports one send; false when the gateway cannot take reports now (the others wait too). */
  function report(key: string): Promise<boolean> {
    const sent = unreported.get(key);
    if (!sent || reporting.has(key)) return Promise.resolve(true);
    const running = reportSent(key, sent).finally(() => reporting.delete(key));
    reporting.set(key, running);
    return running;
  }

  async function reportSent(key: string, sent: { id: string; chat: string; messageRef: string; rendered?: string }): Promise<boolean> {
    try {
      const { id, chat, messageRef, rendered } = sent;
      const updated = await client.delivered({ id, surface, chat, messageRef, ...(rendered ? { rendered } : {}) });
      cache.put(updated);
      unreported.delete(key);
      // Resolved before this copy was recorded: its question.resolved edit did not know of it, so edit it now.
      if (updated.status !== "pending") void settle(updated);
      return true;
    } catch (error) {
      if (error instanceof GatewayError && error.code === "DISCONNECTED") return false; // the resync after the reconnect flushes
      if (isTransient(error)) {
        log("delivery report not taken yet; retrying", error);
        flushLater();
        return false;
      }
      unreported.delete(key); // the question is gone or the target refused: nothing to retry
      log("delivery report refused", error);
      return true;
    }
  }

  /** Reports one refused copy (question.deliveryFailed with `sent`); false when the gateway cannot take it now. */
  async function reportRefusal(key: string): Promise<boolean> {
    const refusal = refusals.get(key);
    if (!refusal || refusing.has(key)) return true;
    refusing.add(key);
    try {
      const { id, chat, messageRef, reason } = refusal;
      const updated = await client.deliveryFailed({ id, surface, chat, reason, permanent: true, sent: true, messageRef });
      cache.put(updated);
      refusals.delete(key);
      return true;
    } catch (error) {
      if (error instanceof GatewayError && error.code === "DISCONNECTED") return false;
      if (isTransient(error)) {
        log("refused-copy report not taken yet; retrying", error);
        flushLater();
        return false;
      }
      refusals.delete(key);
      log("refused-copy report refused", error);
      return true;
    } finally {
      refusing.delete(key);
    }
  }

  async function flushReports(): Promise<void> {
    for (const key of [...unreported.keys()]) if (!(await report(key))) return;
    for (const key of [...refusals.keys()]) if (!(await reportRefusal(key))) return;
  }

  /** Asks the gateway whether this bot sends the copy. A gateway without claims (older) lets every bot send. */
  async function claim(id: string, chat: string): Promise<ClaimVerdict> {
    try {
      const outcome = await client.claimDelivery({ id, surface, chat, claimant, leaseMs: claimLeaseMs });
      if (outcome.ok) return "send";
      return outcome.reason === "claimed" && outcome.leaseUntilMs !== undefined ? { retryAtMs: outcome.leaseUntilMs } : "skip";
    } catch (error) {
      if (error instanceof GatewayError && error.code === "UNKNOWN_METHOD") return "send";
      log(`could not claim ${id} for ${surface}:${chat}`, error);
      // The gateway's database is down (the link is up, so no resync will come): ask again shortly.
      if (isTransient(error)) return { retryAtMs: now() + RETRY_AFTER_STORE_ERROR_MS };
      return "skip"; // the link dropped: the resync after the reconnect delivers it
    }
  }

  function retryLater(record: QuestionRecord, key: string, atMs: number, slackMs = 250): void {
    if (retries.has(key)) return;
    const timer = clock.setTimeout(() => {
      retries.delete(key);
      void deliver(cache.get(record.id) ?? record);
    }, Math.max(0, atMs - now()) + slackMs);
    timer.unref?.();
    retries.set(key, timer);
  }

  async function deliver(record: QuestionRecord): Promise<void> {
    if (record.status !== "pending") return;
    for (const target of record.targets) {
      if (target.surface !== surface || !target.chat) continue;
      const key = `${record.id}\u0000${target.chat}`;
      if (inFlight.has(key) || unreported.has(key)) continue;
      // `record` may be older than what this bot knows (a resync's list is fetched before the reports it flushes):
      // the cache also holds every copy this process sent, and the latest status.
      const known = cache.get(record.id);
      if (known && known.status !== "pending") continue;
      if ([record, known].some((r) => r?.deliveries.some((d) => d.surface === surface && d.chat === target.chat))) continue;
      inFlight.add(key);
      try {
        const verdict = await claim(record.id, target.chat);
        if (verdict !== "send") {
          if (verdict !== "skip") retryLater(record, key, verdict.retryAtMs);
          continue;
        }
        let messageRef: string;
        let rendered: string | undefined;
        keeper.hold(key, record.id, target.chat);
        try {
          messageRef = await adapter.sendPrompt(record, target);
          // After the send: the adapter may only now know what kind of chat it is (a DM opened for a user target).
          rendered = fingerprintOf(record, target.chat);
          cache.addSent(record.id, { surface, chat: target.chat, messageRef, deliveredAtMs: now(), ...(rendered ? { rendered } : {}) });
          attempts.delete(key);
        } catch (error) {
          log(`could not send ${record.id} to ${surface}:${target.chat}`, error);
          if (error instanceof PermanentSendError) {
            attempts.delete(key);
            await client.deliveryFailed({ id: record.id, surface, chat: target.chat, reason: error.message, permanent: true }).catch(() => {});
          } else if (error instanceof WaitingSendError) {
            // Not a failure to retry: the adapter asks for this copy again (redeliver) once the person wrote.
            attempts.delete(key);
            await client
              .deliveryFailed({ id: record.id, surface, chat: target.chat, reason: error.message.slice(0, 1000), permanent: false, waiting: true })
              .catch((reportError) => log(`could not report that ${record.id} waits for ${surface}:${target.chat}`, reportError));
          } else {
            await sendFailed(record, target.chat, key, error);
          }
          continue;
        } finally {
          keeper.release(key);
          keeper.progressed();
        }
        unreported.set(key, { id: record.id, chat: target.chat, messageRef, ...(rendered ? { rendered } : {}) });
        await report(key);
      } finally {
        inFlight.delete(key);
      }
    }
  }

  /**
   * A send failed for a reason a later try may get past, after the framework's own retries: the target is recorded
   * as retrying (with the reason and when), and tried again with backoff while the question is pending.
   */
  async function sendFailed(record: QuestionRecord, chat: string, key: string, error: unknown): Promise<void> {
    const attempt = (attempts.get(key) ?? 0) + 1;
    const latest = cache.get(record.id) ?? record;
    const retryAtMs = now() + sendRetryDelayMs(attempt, sendRetry);
    const willRetry = latest.status === "pending" && retryAtMs < latest.expiresAtMs;
    if (willRetry) attempts.set(key, attempt);
    else attempts.delete(key);
    const reason = sendFailureReason(error, surface);
    await client
      .deliveryFailed({ id: record.id, surface, chat, reason, permanent: false, ...(willRetry ? { retryAtMs } : {}) })
      .catch((reportError) => log(`could not report the failed send of ${record.id} to ${surface}:${chat}`, reportError));
    if (willRetry) retryLater(latest, key, retryAtMs, 0);
  }

  async function resync(pending: QuestionRecord[]): Promise<void> {
    await flushReports();
    await reminders?.flush();
    for (const record of pending) cache.put(record);
    // Copies of questions resolved while we were away still show buttons: edit them now.
    const since = firstSync ? now() - 60 * 60_000 : (disconnectedAtMs ?? now()) - 5_000;
    firstSync = false;
    disconnectedAtMs = undefined;
    const stale: QuestionRecord[] = [];
    try {
      let seen = 0;
      // The most recent RECENT_MAX records, page by page (each response stays small).
      for await (const page of client.pages({ surface, limit: RECENT_PAGE })) {
        for (const record of page) {
          const changed = record.status !== "pending" && changedSince(record, since);
          // An expired question still taking a late answer stays known: a typed reply to its prompt is that answer.
          if (record.status === "pending" || changed || acceptsLateAnswer(record, now())) cache.put(record);
          if (changed) stale.push(record);
        }
        if ((seen += page.length) >= RECENT_MAX) break;
      }
    } catch (error) {
      log("could not list recent questions", error);
    }
    // Escalated targets are targets like the first ones: delivered here too.
    await Promise.all(pending.map(deliver));
    // A reminder fired while this bot was away, and still useful, goes to the copies that missed it.
    for (const record of pending) reminders?.remind(record);
    // The catch-up edits run in the background, so a restarted bot listens at once.
    void (async () => {
      for (const record of stale) await settle(record, { catchingUp: true });
    })();
  }

  return {
    /** Subscribes to the gateway and runs the first sync. */
    async start(): Promise<void> {
      const concerns = (r: QuestionRecord) => r.targets.some((t) => t.surface === surface);
      client.on("resync", (pending) => void resync(pending.filter(concerns)));
      client.on("disconnected", () => {
        disconnectedAtMs ??= now();
      });
      client.on("question.requested", (record) => {
        if (!concerns(record)) return;
        cache.put(record);
        void deliver(record);
      });
      client.on("question.updated", (record) => {
        if (!concerns(record)) return;
        cache.put(record);
        // After resolution: the late window ended, or a reminder was reported late; the copies catch up.
        if (record.status !== "pending") void settle(record);
      });
      // Resolved, or answered late: every copy is edited the same way, from the same event.
      for (const event of ["question.resolved", "question.lateAnswered"] as const) {
        client.on(event, (record) => {
          if (!concerns(record)) return;
          cache.put(record);
          void settle(record);
        });
      }
      client.on("question.escalated", (record) => {
        if (!concerns(record)) return;
        cache.put(record);
        void deliver(record);
      });
      client.on("question.reminded", (record) => {
        if (!concerns(record)) return;
        cache.put(record);
        reminders?.remind(record);
      });
      // The first sync; later ones follow every reconnect.
      await resync((await client.listAll({ status: "pending", surface })).filter(concerns));
    },
    /**
     * The process is stopping: sends still in flight may never be reported, so their claims are handed back (renewed
     * to lapse in a second), and another bot, or this one restarted, sends those copies at once instead of after the
     * full lease. Waits at most `waitMs` for the gateway's answers.
     */
    async stop(waitMs = 500): Promise<void> {
      const copies: Array<{ id: string; chat: string; copy?: string }> = [...keeper.heldCopies(), ...(reminders?.stop() ?? [])];
      keeper.stop();
      stopSettling();
      for (const timer of retries.values()) clock.clearTimeout(timer);
      retries.clear();
      if (copies.length === 0) return;
      const handBack = Promise.all(
        copies.map(({ id, chat, copy }) => client.claimDelivery({ id, surface, chat, claimant, leaseMs: HAND_BACK_LEASE_MS, ...(copy ? { copy } : {}) }).catch(() => {})),
      );
      await Promise.race([handBack, clockSleep(clock, waitMs)]);
    },
    /**
     * The platform took a copy this bot sent (`messageRef`) and then refused it for good, e.g. in a delivery status
     * that came later: the copy is forgotten here, and the gateway withdraws its delivery and fails the target with
     * `reason` (the asker hears delivery_failed once every chat target has failed). Resolves once reported (or queued
     * for the next flush when the gateway cannot take it now).
     */
    async refused(note: { questionId: string; chat: string; messageRef: string; reason: string }): Promise<void> {
      const { questionId: id, chat, messageRef, reason } = note;
      const key = `${id}\u0000${chat}`;
      cache.dropSent(id, surface, chat, messageRef);
      await reporting.get(key); // a delivery report in flight lands first, so this one withdraws it
      // A copy the gateway never heard of: its delivery report is dropped, and the refusal fails the target alone.
      if (unreported.get(key)?.messageRef === messageRef) unreported.delete(key);
      refusals.set(key, { id, chat, messageRef, reason: reason.slice(0, 1000) });
      await reportRefusal(key);
    },
    /**
     * Sends this question's copies not sent yet, now (a copy the adapter held with WaitingSendError can go out): a
     * retry timer for them is dropped, and each is claimed as usual, so it goes out once.
     */
    redeliver(id: string): void {
      const record = cache.get(id);
      if (!record) return;
      for (const [key, timer] of retries) {
        if (!key.startsWith(`${id}\u0000`)) continue;
        clock.clearTimeout(timer);
        retries.delete(key);
      }
      void deliver(record);
    },
    /** For tests and ops: sends not yet reported to the gateway. */
    unreportedCount: () => unreported.size,
  };
}
